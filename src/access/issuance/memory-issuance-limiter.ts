import type { IssuanceAdmission, IssuanceLimiter, IssuanceLimits } from '../../domain/ports/issuance.ts'

/** How long an issuance window lasts from its first count. */
export const ISSUANCE_WINDOW_SECONDS = 3600
const WINDOW_MS = ISSUANCE_WINDOW_SECONDS * 1000

/** Addresses remembered at most; past it the oldest windows are forgotten (the store's exact check still holds). */
const MAX_ADDRESSES = 100_000

interface Window {
  count: number
  endsAt: number
}

/** Whole seconds until a window ends, at least 1 (a Retry-After of 0 invites a retry storm). */
export function secondsLeft(endsAt: number, now: number): number {
  return Math.max(1, Math.ceil((endsAt - now) / 1000))
}

/**
 * The issuance counters in this process's memory, with the Redis limiter's rules: for a single process
 * without Redis, and for every process while Redis is away. Windows all last an hour, so the map's
 * insertion order is the order they end in: the ended ones are always at its front.
 */
export class MemoryIssuanceLimiter implements IssuanceLimiter {
  private readonly addresses = new Map<string, Window>()
  private overall: Window | null = null

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly maxAddresses = MAX_ADDRESSES,
  ) {}

  async admit(addressHash: string, limits: IssuanceLimits): Promise<IssuanceAdmission> {
    const now = this.clock()
    this.forgetEnded(now)
    const overall = this.live(this.overall, now)
    if (overall && overall.count >= limits.perHour)
      return { admitted: false, scope: 'global', retryAfterSeconds: secondsLeft(overall.endsAt, now) }
    let window = this.live(this.addresses.get(addressHash), now)
    if (window && window.count >= limits.perAddressPerHour)
      return { admitted: false, scope: 'address', retryAfterSeconds: secondsLeft(window.endsAt, now) }
    if (!window) {
      window = { count: 0, endsAt: now + WINDOW_MS }
      this.addresses.delete(addressHash)
      while (this.addresses.size >= this.maxAddresses) this.forgetOldest()
      this.addresses.set(addressHash, window)
    }
    window.count += 1
    return { admitted: true }
  }

  async issued(): Promise<void> {
    const now = this.clock()
    const overall = this.live(this.overall, now) ?? { count: 0, endsAt: now + WINDOW_MS }
    overall.count += 1
    this.overall = overall
  }

  private live(window: Window | null | undefined, now: number): Window | null {
    return window && window.endsAt > now ? window : null
  }

  private forgetEnded(now: number): void {
    for (const [address, window] of this.addresses) {
      if (window.endsAt > now) return
      this.addresses.delete(address)
    }
  }

  private forgetOldest(): void {
    const oldest = this.addresses.keys().next()
    if (!oldest.done) this.addresses.delete(oldest.value)
  }

  /** Addresses with a window now (for tests of the bound). */
  get size(): number {
    return this.addresses.size
  }

  async close(): Promise<void> {
    this.addresses.clear()
    this.overall = null
  }
}
