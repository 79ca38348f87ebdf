/** What a failover reports: the first fallback of an outage, and the recovery. */
export interface FailoverEvents {
  onFallback(error: unknown): void
  onRecover(): void
}

/**
 * The state the Redis-backed counters share when they fail over to this process's memory (the daily
 * quota and the issuance limiter): whether they have fallen back, reported once per outage and once
 * per recovery, and the time Redis gets to answer a call before it counts as away.
 */
export class RedisFallback {
  private fallenBack = false

  constructor(
    private readonly timeoutMs: number,
    private readonly events: FailoverEvents,
  ) {}

  get active(): boolean {
    return this.fallenBack
  }

  fallBack(error: unknown): void {
    if (this.fallenBack) return
    this.fallenBack = true
    this.events.onFallback(error)
  }

  recovered(): void {
    if (!this.fallenBack) return
    this.fallenBack = false
    this.events.onRecover()
  }

  /** The call's answer, or a rejection once Redis has not answered within the timeout. */
  withTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      )
    })
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
  }
}
