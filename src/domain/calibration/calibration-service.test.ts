import { describe, expect, it } from 'vitest'
import { calibrationSurveyStore } from '../../../test/support/calibration-plots.ts'
import { MemoryModelVersionStore } from '../../../test/support/model-version-fakes.ts'
import { loadSurvivalModel } from '../../model/index.ts'
import { calibrationSurvey, SIX_YEARS } from '../../seed/calibration-surveys.ts'
import { createRandom } from '../../seed/survey-simulation.ts'
import { ApiError } from '../errors.ts'
import { ModelRegistry } from '../models/model-registry.ts'
import { SPECIES } from '../species.ts'
import { CalibrationService, type FitRunner, fitHere } from './calibration-service.ts'
import type { CalibrationPlot } from './offset-fit.ts'

const parent = loadSurvivalModel(SPECIES)
const HOLDER = { accountId: 'acct-1', keyId: 'key-1', clientAddress: '203.0.113.9' }
const ADDRESS_KEY = 'calibration-test-address-hash-key-000'

const PLOTS = calibrationSurvey(createRandom(11), SIX_YEARS)

const surveysOf = (plots: readonly CalibrationPlot[]) => calibrationSurveyStore(plots, 3)

function setup(fit: FitRunner = fitHere, options: { waitMs?: number; staleMs?: number } = {}) {
  const store = new MemoryModelVersionStore()
  const errors: unknown[] = []
  const service = new CalibrationService(parent, store, surveysOf(PLOTS), fit, ADDRESS_KEY, {
    ...options,
    onError: (error) => errors.push(error),
  })
  const registry = new ModelRegistry([{ model: parent, releasedAt: new Date(0) }], parent.version, store)
  return { store, service, registry, errors }
}

/** A runner that fits only when released: a slow fit, as 100,000 plots are. */
function heldRunner() {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  const runner: FitRunner = async (request, onStage) => {
    onStage(1)
    await released
    return fitHere(request, onStage)
  }
  return { runner, release }
}

describe('CalibrationService', () => {
  it('answers a quick fit at once, keeps it under its content hash, and records the event', async () => {
    const { store, service, registry } = setup()
    const run = await service.start(HOLDER, {})
    expect(run).toMatchObject({ status: 'succeeded', stagesDone: 6, stages: 6, plots: PLOTS.length })
    expect(run.version).toMatch(/^0\.2\+cal\.[0-9a-f]{8}$/)
    const model = await registry.resolve(HOLDER.accountId, run.version)
    expect(model.version).toBe(run.version)
    const view = await registry.describe(HOLDER.accountId, run.version as string)
    expect(view.fit?.data).toMatchObject({ plots: PLOTS.length, otherVersionPlots: 3 })
    expect(view.fit?.notes.join(' ')).toMatch(
      /3 plots the filter kept were predicted by another model version/,
    )
    expect(store.events).toMatchObject([
      {
        kind: 'model.calibrated',
        actor: { kind: 'holder', keyId: 'key-1' },
        details: { version: run.version },
      },
    ])
    // The same plots, in any order, make the same version; it is kept once.
    const again = new CalibrationService(parent, store, surveysOf([...PLOTS].reverse()), fitHere, ADDRESS_KEY)
    expect((await again.start(HOLDER, {})).version).toBe(run.version)
    expect(store.versionsKept.size).toBe(1)
  })

  it('answers a slow fit as running, refuses a second one meanwhile, and finishes it', async () => {
    const { runner, release } = heldRunner()
    const { service } = setup(runner, { waitMs: 20 })
    const running = await service.start(HOLDER, { speciesCode: 'PSME' })
    expect(running).toMatchObject({ status: 'running', version: null, filter: { speciesCode: 'PSME' } })
    expect(running.stagesDone).toBe(1)
    const second = await service.start(HOLDER, {}).catch((error: unknown) => error)
    expect(second).toBeInstanceOf(ApiError)
    expect(second).toMatchObject({
      code: 'calibration_running',
      status: 409,
      details: { calibration: running.id },
    })
    // Another account's calibration is its own.
    expect((await service.start({ ...HOLDER, accountId: 'acct-2' }, {})).status).toBe('running')
    release()
    await service.settle()
    const done = await service.status(HOLDER.accountId, running.id)
    expect(done).toMatchObject({ status: 'succeeded', stagesDone: 6 })
    expect(done.finishedAt).toBeInstanceOf(Date)
    await expect(service.status('acct-2', running.id)).rejects.toMatchObject({ code: 'not_found' })
    await expect(service.status(HOLDER.accountId, 'nope')).rejects.toMatchObject({ code: 'not_found' })
  })

  it('lets a new calibration start when the running one lost its process', async () => {
    const { runner } = heldRunner()
    const { service, store } = setup(runner, { waitMs: 5, staleMs: 60_000 })
    const stuck = await service.start(HOLDER, {})
    const kept = store.runs.get(stuck.id)
    if (kept) kept.heartbeatAt = new Date(Date.now() - 120_000)
    const fresh = new CalibrationService(parent, store, surveysOf(PLOTS), fitHere, ADDRESS_KEY)
    expect((await fresh.start(HOLDER, {})).status).toBe('succeeded')
    expect(store.runs.get(stuck.id)).toMatchObject({ status: 'failed', error: { code: 'interrupted' } })
  })

  it('keeps nothing when the fit fails, and says so', async () => {
    const failing: FitRunner = async () => {
      throw new Error('out of memory')
    }
    const { service, store, errors } = setup(failing)
    await expect(service.start(HOLDER, {})).rejects.toThrow(/failed/)
    expect(store.versionsKept.size).toBe(0)
    expect([...store.runs.values()]).toMatchObject([{ status: 'failed', error: { code: 'internal_error' } }])
    expect(errors).toHaveLength(1)
    // The failure does not block the next one.
    const { service: next } = setup()
    expect((await next.start(HOLDER, {})).status).toBe('succeeded')
  })

  it('refuses a filter that keeps too few plots, before starting anything', async () => {
    const store = new MemoryModelVersionStore()
    const service = new CalibrationService(parent, store, surveysOf(PLOTS.slice(0, 9)), fitHere, ADDRESS_KEY)
    await expect(service.start(HOLDER, {})).rejects.toMatchObject({
      code: 'not_enough_surveys',
      details: undefined,
    })
    expect(store.runs.size).toBe(0)
  })
})
