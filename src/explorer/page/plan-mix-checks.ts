/** The species mix's checks: the API's own rules, so a plan the page sends is not refused for them. */

/** Shares of a mix may miss 1 by this much, as the API allows (0.333 + 0.333 + 0.334 is a mix of thirds). */
export const SHARE_SUM_TOLERANCE = 0.001
export const SPECIES_MIX_MAX = 20

export interface MixRow {
  speciesCode: string
  /** NaN when the share field is empty or not a number. */
  share: number
}

/** What is wrong with a mix, and which rows (0-based) it is about. */
export interface MixProblem {
  message: string
  rows: number[]
  kind: 'share' | 'species' | 'sum'
}

export function shareSum(rows: readonly MixRow[]): number {
  return rows.reduce((sum, row) => sum + (Number.isFinite(row.share) ? row.share : 0), 0)
}

/** Two decimals, or three when two would hide the difference from 1 ("0.999"). */
export function formatShare(value: number): string {
  const two = value.toFixed(2)
  return Math.abs(Number(two) - value) > 1e-9 ? String(Number(value.toFixed(3))) : two
}

/**
 * The mix's first problem, or null: each share above 0 and at most 1, each species once, and the shares
 * summing to 1 (within the API's tolerance).
 */
export function mixProblem(
  rows: readonly MixRow[],
  speciesName: (code: string) => string,
): MixProblem | null {
  if (rows.length === 0) return { message: 'Add at least one species to the mix.', rows: [], kind: 'species' }
  for (const [i, row] of rows.entries())
    if (!(Number.isFinite(row.share) && row.share > 0 && row.share <= 1))
      return {
        message: `The share of species ${i + 1} (${speciesName(row.speciesCode)}) must be above 0 and at most 1.`,
        rows: [i],
        kind: 'share',
      }
  for (const [i, row] of rows.entries()) {
    const first = rows.findIndex((other) => other.speciesCode === row.speciesCode)
    if (first !== i)
      return {
        message: `${speciesName(row.speciesCode)} is in the mix twice (species ${first + 1} and ${i + 1}): list each species once.`,
        rows: [first, i],
        kind: 'species',
      }
  }
  const sum = shareSum(rows)
  if (Math.abs(sum - 1) > SHARE_SUM_TOLERANCE)
    return {
      message: `The shares of the species mix sum to ${formatShare(sum)}; they must sum to 1.`,
      rows: rows.map((_, i) => i),
      kind: 'sum',
    }
  return null
}
