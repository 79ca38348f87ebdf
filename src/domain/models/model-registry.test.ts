import { describe, expect, it } from 'vitest'
import { loadSurvivalModel } from '../../model/index.ts'
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
