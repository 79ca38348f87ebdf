/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Polls `check` every `intervalMs` until it returns true, for at most `timeoutMs`; returns whether it
 * ever did (assert on it). An exception from `check` ends the wait at once.
 */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 5000,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await sleep(intervalMs)
  }
  return check()
}

/** Fires `count` calls at once and waits for all of them. */
export function simultaneously<T>(count: number, call: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => call(index)))
}
