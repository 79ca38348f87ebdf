import type { UsageLedger } from '../../domain/ports/usage.ts'
import type { DailyUsage } from '../../types.ts'
import type { Caller } from '../caller.ts'
import { utcDay } from '../quota/day-window.ts'

export interface UsageRecorderOptions {
  /** How often counts and last-use times go to the ledger. */
  flushMs: number
  onFlushError?: (error: unknown) => void
}

/**
 * Counts admitted requests per account and day in memory and hands them to the ledger (PostgreSQL)
 * every `flushMs` and on close: off the hot path, and a key's last use written at most once per flush.
 * A flush that fails keeps its counts for the next one, so nothing is lost while the database is away.
 */
export class UsageRecorder {
  private counts = new Map<string, { accountId: string; day: string; requests: number }>()
  private lastUsed = new Map<string, Date>()
  /** Last uses being written: still this process's latest knowledge until the write is done. */
  private lastUsedInFlight = new Map<string, Date>()
  private timer: NodeJS.Timeout | undefined
  /** Flushes and history reads take turns, so a read never sees counts that are half written. */
  private turn: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly ledger: UsageLedger,
    private readonly options: UsageRecorderOptions,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.options.flushMs)
    this.timer.unref()
  }

  count(caller: Caller, at: Date, requests = 1): void {
    const day = utcDay(at)
    const slot = `${caller.accountId}|${day}`
    const entry = this.counts.get(slot)
    if (entry) entry.requests += requests
    else this.counts.set(slot, { accountId: caller.accountId, day, requests })
    this.lastUsed.set(caller.keyId, at)
  }

  /** The ledger's days from `fromDay` on plus what this process has not flushed yet. */
  history(accountId: string, fromDay: string): Promise<DailyUsage[]> {
    return this.inTurn(() => this.readHistory(accountId, fromDay))
  }

  private async readHistory(accountId: string, fromDay: string): Promise<DailyUsage[]> {
    const byDay = new Map((await this.ledger.history(accountId, fromDay)).map((d) => [d.day, d.requests]))
    for (const entry of this.counts.values()) {
      if (entry.accountId === accountId && entry.day >= fromDay)
        byDay.set(entry.day, (byDay.get(entry.day) ?? 0) + entry.requests)
    }
    return [...byDay].map(([day, requests]) => ({ day, requests })).sort((a, b) => a.day.localeCompare(b.day))
  }

  /** When this process last saw the key, if it has since the last flush. */
  lastUseOf(keyId: string): Date | null {
    return this.lastUsed.get(keyId) ?? this.lastUsedInFlight.get(keyId) ?? null
  }

  flush(): Promise<void> {
    return this.inTurn(() => this.flushOnce())
  }

  private inTurn<T>(task: () => Promise<T>): Promise<T> {
    const result = this.turn.then(task)
    this.turn = result.catch(() => {})
    return result
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.flush()
  }

  private async flushOnce(): Promise<void> {
    if (this.counts.size === 0 && this.lastUsed.size === 0) return
    const counts = [...this.counts.values()]
    const lastUsed = [...this.lastUsed].map(([keyId, at]) => ({ keyId, at }))
    this.lastUsedInFlight = this.lastUsed
    this.counts = new Map()
    this.lastUsed = new Map()
    try {
      await this.ledger.add(counts)
    } catch (error) {
      for (const entry of counts) this.restore(entry)
      for (const { keyId, at } of lastUsed) if (!this.lastUsed.has(keyId)) this.lastUsed.set(keyId, at)
      this.lastUsedInFlight = new Map()
      this.options.onFlushError?.(error)
      return
    }
    try {
      await this.ledger.touch(lastUsed)
    } catch (error) {
      for (const { keyId, at } of lastUsed) if (!this.lastUsed.has(keyId)) this.lastUsed.set(keyId, at)
      this.options.onFlushError?.(error)
    } finally {
      this.lastUsedInFlight = new Map()
    }
  }

  private restore(entry: { accountId: string; day: string; requests: number }): void {
    const slot = `${entry.accountId}|${entry.day}`
    const current = this.counts.get(slot)
    if (current) current.requests += entry.requests
    else this.counts.set(slot, { ...entry })
  }
}
