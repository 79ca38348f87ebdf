const DAY_MS = 86_400_000

let cachedDay = { start: 0, end: 0, name: '' }

/** The UTC day a request counts against, e.g. 2026-11-22 (named once per day, not per request). */
export function utcDay(now: Date): string {
  const time = now.getTime()
  if (time < cachedDay.start || time >= cachedDay.end) {
    const start = Math.floor(time / DAY_MS) * DAY_MS
    cachedDay = { start, end: start + DAY_MS, name: new Date(start).toISOString().slice(0, 10) }
  }
  return cachedDay.name
}

/** Next midnight UTC, when every daily counter resets. */
export function nextUtcMidnight(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS)
}

/** Whole seconds until the next midnight UTC, at least 1 (a Retry-After of 0 invites a retry storm). */
export function secondsUntilReset(now: Date): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000))
}
