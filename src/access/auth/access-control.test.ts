import { describe, expect, it } from 'vitest'
import { FakeKeyDirectory } from '../../../test/support/fakes.ts'
import { ApiError } from '../../domain/errors.ts'
import { MemoryQuotaStore } from '../quota/memory-quota-store.ts'
import { QuotaGuard } from '../quota/quota-guard.ts'
import type { QuotaConsumption, QuotaStore } from '../quota/quota-store.ts'
import { AccessControl } from './access-control.ts'
import { Authenticator } from './authenticator.ts'

const NOON = new Date('2026-11-22T12:00:00Z')

/** A memory quota whose single counts wait until `release()`, so a test sees what ran meanwhile. */
function heldQuota() {
  const memory = new MemoryQuotaStore()
  const held: (() => void)[] = []
  const store: QuotaStore = {
    consume: (keyId, limit, now, count = 1) =>
      new Promise<QuotaConsumption>((resolve, reject) => {
        held.push(() => memory.consume(keyId, limit, now, count).then(resolve, reject))
      }),
    consumeEach: (keyId, limit, now, requests) => memory.consumeEach(keyId, limit, now, requests),
    close: () => memory.close(),
  }
  return {
    store,
    release: () => {
      for (const go of held.splice(0)) go()
    },
    waiting: () => held.length,
  }
}

function setUp(tier: 'spore' | 'hypha') {
  const directory = new FakeKeyDirectory()
  const { key } = directory.issue(tier)
  const quota = heldQuota()
  const access = new AccessControl(
    new Authenticator(directory, { keyCacheMs: 60_000 }),
    new QuotaGuard(quota.store, () => NOON),
  )
  return { access, key, quota }
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('AccessControl.admitAlongside', () => {
  it('starts the work while the request is counted, and answers with both', async () => {
    const { access, key, quota } = setUp('hypha')
    let started = 0
    const admitted = access.admitAlongside(key, undefined, async (caller) => {
      started += 1
      return `work for ${caller.tier.name}`
    })
    await settle()
    expect(started).toBe(1)
    expect(quota.waiting()).toBe(1)
    quota.release()
    const { admission, work } = await admitted
    expect(admission.quota.used).toBe(1)
    expect(await work).toBe('work for hypha')
  })

  it('answers a refusal, whatever the work did; that account is then counted before any work', async () => {
    const { access, key, quota } = setUp('spore')
    const limit = 100
    // Use up the day's quota.
    for (let i = 0; i < limit; i++) {
      const admitted = access.admit(key)
      await settle()
      quota.release()
      await admitted
    }
    let started = 0
    const refused = access.admitAlongside(key, undefined, async () => {
      started += 1
      throw new Error('the work failed too')
    })
    await settle()
    expect(started).toBe(1)
    quota.release()
    const error = await refused.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe('rate_limit_exceeded')

    const again = access.admitAlongside(key, undefined, async () => {
      started += 1
      return 'never'
    })
    await settle()
    expect(started).toBe(1)
    quota.release()
    await expect(again).rejects.toMatchObject({ code: 'rate_limit_exceeded' })
    expect(started).toBe(1)
  })

  it('reports the work’s own error once the request was counted', async () => {
    const { access, key, quota } = setUp('spore')
    const admitted = access.admitAlongside(key, undefined, async () => {
      throw new ApiError('invalid_request', 'latitude is required')
    })
    await settle()
    quota.release()
    const { admission, work } = await admitted
    expect(admission.quota.used).toBe(1)
    await expect(work).rejects.toMatchObject({ code: 'invalid_request' })
  })

  it('does no work for a key it cannot authenticate', async () => {
    const { access } = setUp('spore')
    let started = 0
    await expect(
      access.admitAlongside('tsp_live_00000000000000000000000000000000', undefined, async () => {
        started += 1
      }),
    ).rejects.toMatchObject({ code: 'invalid_api_key' })
    expect(started).toBe(0)
  })
})
