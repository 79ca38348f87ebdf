/*
 * What every `npm run score` mode starts with: where the API is and the key to it, from the
 * environment, and Ctrl-C handled as "stop cleanly, then quit at once".
 */

/** A line on stderr, where the scorer talks (stdout is for results). */
export const say = (line: string) => process.stderr.write(`${line}\n`)

/** SURVIVAL_API_KEY and SURVIVAL_API_URL (default http://localhost:8080); null, said why, without a key. */
export function apiFromEnvironment(): { apiKey: string; baseUrl: string } | null {
  const apiKey = process.env.SURVIVAL_API_KEY
  if (!apiKey) {
    say('score: set SURVIVAL_API_KEY to your API key')
    return null
  }
  return { apiKey, baseUrl: (process.env.SURVIVAL_API_URL || 'http://localhost:8080').replace(/\/+$/, '') }
}

/** How long a stop after the first Ctrl-C may take before the process ends regardless. */
const STOP_GRACE_MS = 5000

/**
 * The first Ctrl-C (or SIGTERM) aborts `signal`, so the run can stop cleanly; a second, or a stop that takes
 * longer than STOP_GRACE_MS, quits at once with `exitCode`, after `lastWords` (what a clean stop would
 * have said of the state kept). `release` removes the handlers.
 */
export function interruptible(
  exitCode: number,
  lastWords: () => void = () => {},
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController()
  let interrupts = 0
  const quit = () => {
    lastWords()
    process.exit(exitCode)
  }
  const onSignal = () => {
    interrupts += 1
    if (interrupts > 1) quit()
    say('\nStopping… (Ctrl-C again to quit at once)')
    controller.abort()
    // The state is saved as the run goes; should a connection the abort did not close (a download the
    // server has stalled) keep the process alive past the grace, it ends anyway, as a second Ctrl-C would.
    setTimeout(quit, STOP_GRACE_MS).unref()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    },
  }
}
