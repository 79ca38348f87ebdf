import type { ResultOutcome } from '../domain/jobs/file-formats.ts'

/*
 * A chunk's results read back: each NDJSON line as renderChunk and renderFeatureChunk wrote it, reduced
 * to what a job's report sums. Reading the results themselves (rather than a summary kept beside them)
 * keeps the report equal to the file the owner downloads, and needs nothing more written per chunk.
 */

const number = (value: unknown): number | null => (typeof value === 'number' ? value : null)

/**
 * Each line of a chunk's NDJSON results, in order. A CSV job's line is written with its own columns
 * first and the results after, so an uploaded column of a result's name (`survival_1y`) holds the
 * result in the line.
 */
export function* resultOutcomes(ndjson: string): Generator<ResultOutcome> {
  let start = 0
  while (start < ndjson.length) {
    let end = ndjson.indexOf('\n', start)
    if (end === -1) end = ndjson.length
    const text = ndjson.slice(start, end)
    start = end + 1
    if (text.trim() === '') continue
    const line = JSON.parse(text) as Record<string, unknown>
    const meetsProbability = number(line.meets_probability)
    const confidence = number(line.confidence)
    yield {
      survival: [number(line.survival_1y), number(line.survival_3y), number(line.survival_5y)],
      errorCode: typeof line.error_code === 'string' && line.error_code !== '' ? line.error_code : null,
      stand: meetsProbability !== null && confidence !== null ? { meetsProbability, confidence } : null,
    }
  }
}
