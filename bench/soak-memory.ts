/** The soak's judgement of a server's memory over a run: its peak, and whether it stayed flat. */
import { median } from './support.ts'

/** An RSS (or heap) reading, MB, taken `second` seconds into the run. */
export interface Sample {
  second: number
  mb: number
}

export const TARGET_RSS_MB = 256
/** Flat: after the warm-up, the second half's median RSS at most this share above the first half's. */
export const TARGET_GROWTH = 0.05

/** Least-squares slope of the samples, MB per minute. */
function slopePerMinute(samples: readonly Sample[]): number {
  const n = samples.length
  if (n < 2) return Number.NaN
  const meanX = samples.reduce((sum, s) => sum + s.second, 0) / n
  const meanY = samples.reduce((sum, s) => sum + s.mb, 0) / n
  let num = 0
  let den = 0
  for (const s of samples) {
    num += (s.second - meanX) * (s.mb - meanY)
    den += (s.second - meanX) ** 2
  }
  return (num / den) * 60
}

/**
 * The peak over the whole run (it must stay under TARGET_RSS_MB), and, after the warm-up (caches filling,
 * code being optimised), the medians of the two halves of what is left: a leak shows as a second half
 * above the first. Medians, so that one job's passing peak does not decide it.
 */
export function memoryVerdict(samples: readonly Sample[], warmupSeconds: number) {
  if (samples.length === 0) throw new Error('no memory samples')
  const peak = Math.max(...samples.map((s) => s.mb))
  const judged = samples.filter((s) => s.second >= warmupSeconds)
  if (judged.length < 2) throw new Error(`fewer than 2 memory samples after the first ${warmupSeconds} s`)
  const half = Math.floor(judged.length / 2)
  const first = median(judged.slice(0, half).map((s) => s.mb))
  const second = median(judged.slice(half).map((s) => s.mb))
  const growth = second / first - 1
  return {
    peakMb: peak,
    firstHalfMedianMb: first,
    secondHalfMedianMb: second,
    growth,
    slopeMbPerMinute: slopePerMinute(judged),
    peakPass: peak < TARGET_RSS_MB,
    flatPass: growth <= TARGET_GROWTH,
  }
}
