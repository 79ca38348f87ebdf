import { describe, expect, it } from 'vitest'
import type { UsageLedger } from '../../domain/ports/usage.ts'
import type { DailyUsage } from '../../types.ts'
import type { Caller } from '../caller.ts'
import { UsageRecorder } from './usage-recorder.ts'

const TIER = { name: 'mycel', dailyRequestLimit: 10_000, batchSizeLimit: 100 } as const
const caller = (keyId: string, accountId = keyId): Caller => ({
  keyId,
  accountId,
  tier: TIER,
  expiresAt: null,
})

/** A ledger in memory that can be made to fail, like a database that is away. */
class MemoryLedger implements UsageLedger {
  readonly days = new Map<string, number>()
  readonly lastUsed = new Map<string, Date>()
  failing = false

  async add(counts: readonly { accountId: string; day: string; requests: number }[]) {
    if (this.failing) throw new Error('database away')
    for (const c of counts)
      this.days.set(`${c.accountId}|${c.day}`, (this.days.get(`${c.accountId}|${c.day}`) ?? 0) + c.requests)
  }

  async touch(lastUsed: readonly { keyId: string; at: Date }[]) {
    if (this.failing) throw new Error('database away')
    for (const u of lastUsed) this.lastUsed.set(u.keyId, u.at)
  }

  async history(accountId: string, fromDay: string): Promise<DailyUsage[]> {
    return [...this.days]
      .filter(([slot]) => slot.startsWith(`${accountId}|`) && slot.slice(-10) >= fromDay)
      .map(([slot, requests]) => ({ day: slot.slice(-10), requests }))
  }
}

const MORNING = new Date('2026-11-22T08:00:00Z')
const NEXT_DAY = new Date('2026-11-23T00:00:01Z')

describe('UsageRecorder', () => {
  it('writes counts per account and UTC day, and each key’s latest use, in one flush', async () => {
    const ledger = new MemoryLedger()
    const recorder = new UsageRecorder(ledger, { flushMs: 60_000 })
    recorder.count(caller('key_a'), MORNING)
    recorder.count(caller('key_b', 'key_a'), new Date(MORNING.getTime() + 1000))
    recorder.count(caller('key_a'), NEXT_DAY)
    await recorder.flush()
    expect(Object.fromEntries(ledger.days)).toEqual({ 'key_a|2026-11-22': 2, 'key_a|2026-11-23': 1 })
    expect(ledger.lastUsed.get('key_a')).toEqual(NEXT_DAY)
    expect(ledger.lastUsed.get('key_b')).toEqual(new Date(MORNING.getTime() + 1000))
    await recorder.flush()
    expect(ledger.days.get('key_a|2026-11-22')).toBe(2)
  })

  it('loses nothing while the ledger is away: the counts wait for the next flush', async () => {
    const ledger = new MemoryLedger()
    const errors: unknown[] = []
    const recorder = new UsageRecorder(ledger, { flushMs: 60_000, onFlushError: (e) => errors.push(e) })
    recorder.count(caller('key_a'), MORNING)
    ledger.failing = true
    await recorder.flush()
    recorder.count(caller('key_a'), MORNING)
    expect(errors).toHaveLength(1)
    expect(recorder.lastUseOf('key_a')).toEqual(MORNING)
    ledger.failing = false
    await recorder.close()
    expect(ledger.days.get('key_a|2026-11-22')).toBe(2)
  })

  it('a history read during a flush waits for it: it never misses counts being written', async () => {
    const ledger = new MemoryLedger()
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const add = ledger.add.bind(ledger)
    ledger.add = async (counts) => {
      await held
      await add(counts)
    }
    const recorder = new UsageRecorder(ledger, { flushMs: 60_000 })
    for (let i = 0; i < 7; i++) recorder.count(caller('key_a'), MORNING)
    const flushing = recorder.flush()
    const reading = recorder.history('key_a', '2026-11-01')
    expect(recorder.lastUseOf('key_a')).toEqual(MORNING)
    release()
    await flushing
    expect(await reading).toEqual([{ day: '2026-11-22', requests: 7 }])
  })

  it('history adds what has not been flushed to what the ledger holds', async () => {
    const ledger = new MemoryLedger()
    const recorder = new UsageRecorder(ledger, { flushMs: 60_000 })
    recorder.count(caller('key_a'), MORNING)
    await recorder.flush()
    recorder.count(caller('key_a'), MORNING)
    recorder.count(caller('key_a'), NEXT_DAY)
    recorder.count(caller('key_other'), MORNING)
    expect(await recorder.history('key_a', '2026-11-01')).toEqual([
      { day: '2026-11-22', requests: 2 },
      { day: '2026-11-23', requests: 1 },
    ])
    expect(await recorder.history('key_a', '2026-11-23')).toEqual([{ day: '2026-11-23', requests: 1 }])
  })
})
