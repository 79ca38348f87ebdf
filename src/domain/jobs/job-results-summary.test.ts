import { describe, expect, it } from 'vitest'
import type { ResultOutcome } from './file-formats.ts'
import { JobResultsTally, SURVIVAL_BINS, survivalBin } from './job-results-summary.ts'

const row = (
  survival: [number | null, number | null, number | null],
  extra: Partial<ResultOutcome> = {},
): ResultOutcome => ({ survival, errorCode: null, stand: null, ...extra })

describe('a job’s results summed for its report', () => {
  it('puts each value in the bin whose lower edge it reaches; 1 in the last', () => {
    expect(SURVIVAL_BINS).toBe(10)
    expect([0, 0.0999, 0.1, 0.3, 0.30001, 0.7, 0.8999, 0.9, 0.95, 1].map(survivalBin)).toEqual([
      0, 0, 1, 3, 3, 7, 8, 9, 9, 9,
    ])
  })

  it('counts rows, failures by code and each horizon’s bins, mean and extremes, keeping only sums', () => {
    const tally = new JobResultsTally()
    tally.add(row([0.91, null, 0.42]))
    tally.add(row([0.85, 0.7, null]))
    tally.add(row([null, null, null], { errorCode: 'no_nearby_data' }))
    tally.add(row([null, null, null], { errorCode: 'invalid_species' }))
    tally.add(row([null, null, null], { errorCode: 'no_nearby_data' }))
    tally.add(row([0.1, 0.3, 0.3]))
    const summary = tally.summary()
    expect(summary.rows).toBe(6)
    expect(summary.failed).toBe(3)
    expect(summary.errors).toEqual([
      { code: 'no_nearby_data', rows: 2 },
      { code: 'invalid_species', rows: 1 },
    ])
    const [one, three, five] = summary.horizons
    expect(one).toMatchObject({ horizonYears: 1, rows: 3, lowest: 0.1, highest: 0.91 })
    expect(one?.mean).toBeCloseTo((0.91 + 0.85 + 0.1) / 3, 12)
    expect(one?.bins).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 1, 1])
    expect(three).toMatchObject({ horizonYears: 3, rows: 2, lowest: 0.3, highest: 0.7 })
    expect(three?.bins).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 0])
    expect(five).toMatchObject({ horizonYears: 5, rows: 2, mean: (0.42 + 0.3) / 2 })
    expect(summary.stands).toEqual({ planned: 0, meeting: 0, failing: 0 })
  })

  it('counts a stand as meeting its standard when the probability reaches its confidence', () => {
    const tally = new JobResultsTally()
    tally.add(row([null, null, null], { stand: { meetsProbability: 0.9, confidence: 0.9 } }))
    tally.add(row([null, null, null], { stand: { meetsProbability: 0.95, confidence: 0.8 } }))
    tally.add(row([null, null, null], { stand: { meetsProbability: 0.899, confidence: 0.9 } }))
    // A stand that failed is a failed row, not a stand failing the standard.
    tally.add(row([null, null, null], { errorCode: 'outside_coverage' }))
    expect(tally.summary().stands).toEqual({ planned: 3, meeting: 2, failing: 1 })
  })

  it('has no statistics for a horizon no row has', () => {
    const tally = new JobResultsTally()
    tally.add(row([0.5, null, null]))
    expect(tally.summary().horizons[1]).toMatchObject({ rows: 0, mean: null, lowest: null, highest: null })
  })
})
