/**
 * Waiting for the API's long-running work: a status resource read again and again until it settles
 * (`waitForJob`, `calibrate`), and the abortable sleep between reads (and between retries).
 */

export interface PollOptions<T> {
  signal?: AbortSignal
  /** Every status read while waiting, the final one included. */
  onProgress?: (status: T) => void
  /** The first wait between polls. */
  pollMs?: number
  /** Each wait is the one before times this (1: always `pollMs`), up to `maxPollMs`. */
  backoff?: number
  /** The longest wait between polls. */
  maxPollMs?: number
  /**
   * How long to wait for the work to settle, in ms: then the wait ends with a `TimeoutError`
   * (a DOMException naming the work). The work itself goes on on the server.
   */
  timeoutMs?: number
}

/** What one kind of work waits by default, and how it is named in a timeout. */
export interface PollPlan<T> {
  /** e.g. `job 3f…`, `calibration f3…`. */
  name: string
  /** Reads the status once (with the signal to abort it by). */
  read: (signal: AbortSignal | undefined) => Promise<T>
  settled: (status: T) => boolean
  defaults: { pollMs: number; backoff: number; maxPollMs: number }
}

/**
 * Reads the status until `settled` says it has settled, and returns that status; `current`, a status
 * already in hand (the answer that started the work), is reported and judged before the first wait.
 * The caller's abort rejects with its reason, `timeoutMs` with a TimeoutError; either stops the poll
 * in flight too.
 */
export async function pollUntilSettled<T>(
  plan: PollPlan<T>,
  options: PollOptions<T>,
  current?: T,
): Promise<T> {
  if (current !== undefined) {
    options.onProgress?.(current)
    if (plan.settled(current)) return current
  }
  const timeout = options.timeoutMs === undefined ? null : new AbortController()
  const signal = timeout
    ? options.signal
      ? AbortSignal.any([options.signal, timeout.signal])
      : timeout.signal
    : options.signal
  const timer =
    timeout &&
    setTimeout(() => {
      const message = `${plan.name} has not finished after ${options.timeoutMs} ms (it goes on)`
      timeout.abort(new DOMException(message, 'TimeoutError'))
    }, options.timeoutMs)
  const backoff = options.backoff ?? plan.defaults.backoff
  const maxPollMs = options.maxPollMs ?? plan.defaults.maxPollMs
  let wait = options.pollMs ?? plan.defaults.pollMs
  try {
    for (let first = current === undefined; ; first = false) {
      if (!first) {
        await sleep(wait, signal)
        wait = Math.max(wait, Math.min(wait * backoff, maxPollMs))
      }
      const status = await plan.read(signal)
      options.onProgress?.(status)
      if (plan.settled(status)) return status
    }
  } finally {
    if (timer) clearTimeout(timer)
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
