/** The soak's settings, read from the environment and refused when they make no sense. */

/** A whole number of at least 1 from env[name], or `fallback` when it is unset or empty. */
export function positiveSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  const value = raw === undefined || raw === '' ? fallback : Number(raw)
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive whole number, not ${JSON.stringify(raw)}`)
  return value
}

/**
 * BENCH_SOAK_LANES: the ids of the lanes to run, comma-separated (unset or empty: all of them), to see
 * what one kind of traffic does alone. An id that names no lane is refused with the list of lanes, before
 * anything is set up.
 */
export function chosenLaneIds<Id extends string>(ids: readonly Id[], setting: string | undefined): Id[] {
  const wanted = setting
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean)
  if (!wanted?.length) return [...ids]
  const unknown = wanted.filter((id) => !(ids as readonly string[]).includes(id))
  if (unknown.length)
    throw new Error(`BENCH_SOAK_LANES: no lane ${unknown.join(', ')} (lanes: ${ids.join(', ')})`)
  return ids.filter((id) => wanted.includes(id))
}
