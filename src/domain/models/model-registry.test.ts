import { describe, expect, it } from 'vitest'
import { calibrationSurveyStore } from '../../../test/support/calibration-plots.ts'
import { TEST_POPULATION } from '../../../test/support/model/population.ts'
import { MemoryModelVersionStore } from '../../../test/support/model-version-fakes.ts'
import { loadSurvivalModel } from '../../model/index.ts'
import { calibrationSurvey, SIX_YEARS } from '../../seed/calibration-surveys.ts'
import { createRandom } from '../../seed/survey-simulation.ts'
import type { SiteAttributes } from '../../types.ts'
import { CalibrationService, fitHere } from '../calibration/calibration-service.ts'
import { ApiError } from '../errors.ts'
import { SPECIES } from '../species.ts'
import { ModelRegistry } from './model-registry.ts'

const base = loadSurvivalModel(SPECIES)
/** The same artifact under another version: a second base version shipped beside the first. */
const newer = { ...base, version: '0.3' }

describe('ModelRegistry', () => {
  const registry = new ModelRegistry(
    [
      { model: base, releasedAt: new Date('2026-11-24T00:00:00Z') },
      { model: newer, releasedAt: new Date('2027-02-01T00:00:00Z') },
    ],
    '0.3',
  )

  it('answers with the version a request names, or the current one', async () => {
    expect(await registry.resolve('acct', undefined)).toBe(newer)
    expect(await registry.resolve('acct', null)).toBe(newer)
    expect(await registry.resolve('acct', '0.2')).toBe(base)
  })

  it('keeps older base versions servable, lists newest first, and marks the default', async () => {
    const listed = await registry.list('acct')
    expect(listed.map((v) => [v.version, v.isDefault, v.kind, v.parent])).toEqual([
      ['0.3', true, 'base', null],
      ['0.2', false, 'base', null],
    ])
    expect(registry.currentView().version).toBe('0.3')
  })

  it('refuses a version it does not have as invalid_model_version, pointing to GET /v1/models', async () => {
    for (const attempt of [registry.resolve('acct', '0.1'), registry.describe('acct', '0.2+cal.00000000')]) {
      const error = await attempt.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ApiError)
      expect(error).toMatchObject({
        code: 'invalid_model_version',
        details: { suggestion: expect.stringMatching(/GET \/v1\/models/) },
      })
    }
    expect(() => new ModelRegistry([{ model: base, releasedAt: new Date(0) }], '0.9')).toThrow(RangeError)
  })
})

describe('ModelRegistry with calibrated versions', () => {
  const store = new MemoryModelVersionStore()
  let version = ''
  const options = { preparedVersions: 2, defaultTtlMs: 1000 }
  let clock = 0
  const registry = new ModelRegistry([{ model: base, releasedAt: new Date(0) }], '0.2', store, {
    ...options,
    now: () => clock,
  })

  it('prepares an account’s own versions, and refuses them to every other account', async () => {
    const service = new CalibrationService(
      base,
      store,
      calibrationSurveyStore(calibrationSurvey(createRandom(3), SIX_YEARS)),
      fitHere,
      'k'.repeat(32),
    )
    version = (await service.start({ accountId: 'acct', keyId: 'key', clientAddress: undefined }, {}))
      .version as string
    const model = await registry.resolve('acct', version)
    expect(model.version).toBe(version)
    expect(await registry.resolve('acct', version)).toBe(model)
    await expect(registry.resolve('other', version)).rejects.toMatchObject({ code: 'invalid_model_version' })
    const listed = await registry.list('acct')
    expect(listed.map((v) => [v.version, v.kind, v.parent])).toEqual([
      [version, 'calibrated', '0.2'],
      ['0.2', 'base', null],
    ])
    expect((await registry.list('other')).map((v) => v.version)).toEqual(['0.2'])
  })

  it('keeps a bounded number prepared: one pushed out is read again, the same', async () => {
    const first = await registry.resolve('acct', version)
    // Two other accounts' versions (the same content, kept for them) push it out.
    for (const account of ['b', 'c']) {
      const kept = await store.version('acct', version)
      await store.save(account, { version, parent: '0.2', fit: kept?.fit as string }, {} as never)
      await registry.resolve(account, version)
    }
    const again = await registry.resolve('acct', version)
    expect(again).not.toBe(first)
    const site = TEST_POPULATION[0] as SiteAttributes
    const psme = SPECIES.find((s) => s.code === 'PSME') as (typeof SPECIES)[number]
    expect(JSON.stringify(again.predict(site, psme, 'manual'))).toBe(
      JSON.stringify(first.predict(site, psme, 'manual')),
    )
  })

  it('never answers with a kept version whose text no longer matches its name', async () => {
    const kept = await store.version('acct', version)
    const forged = `0.2+cal.${'0'.repeat(8)}`
    await store.save('acct', { version: forged, parent: '0.2', fit: kept?.fit as string }, {} as never)
    await expect(registry.resolve('acct', forged)).rejects.toThrow(/does not match its name/)
  })

  it('reads an account’s default at most once per TTL', async () => {
    clock += 1001
    store.defaults.set('acct', version)
    const reads = store.defaultReads
    expect((await registry.resolve('acct', undefined)).version).toBe(version)
    expect((await registry.resolve('acct', null)).version).toBe(version)
    expect(store.defaultReads).toBe(reads + 1)
    store.defaults.delete('acct')
    expect((await registry.resolve('acct', undefined)).version).toBe(version)
    clock += 1001
    expect((await registry.resolve('acct', undefined)).version).toBe('0.2')
    registry.rememberDefault('acct', version)
    expect((await registry.resolve('acct', undefined)).version).toBe(version)
  })
})
