import type { JobOwner } from '../../src/domain/jobs/job-service.ts'
import type { StreamedUpload } from '../../src/domain/streamed-upload.ts'
import type { TierName } from '../../src/types.ts'
import { TIERS } from './fakes.ts'
import { forestGrid } from './sites.ts'

/** The JobService tests' uploads: who sends them (an owner) and what they hold (CSV or NDJSON records). */

export function owner(tier: TierName = 'mycel', accountId = 'acct_a'): JobOwner {
  return { accountId, keyId: `key_${accountId}`, tier: TIERS[tier] }
}

export async function* stream<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item
}

/** The header of csvUpload. */
export const HEADER = ['plot', 'latitude', 'longitude', 'species_code', 'planting_method']

/** A CSV upload of `count` forest rows (plots p1…, their names with a multi-byte character), then `extra`. */
export function csvUpload(count: number, extra: string[][] = []): StreamedUpload {
  const rows = forestGrid(count).map((point, index) => [
    `p${index + 1} · Ñ`,
    String(point.latitude),
    String(point.longitude),
    'PSME',
    'manual',
  ])
  return { format: 'csv', records: stream([HEADER, ...rows, ...extra]) }
}

export function ndjsonUpload(lines: string[]): StreamedUpload {
  return { format: 'ndjson', records: stream(lines) }
}
