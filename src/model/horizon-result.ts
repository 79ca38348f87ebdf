import type { FactorContribution, Horizon, HorizonPrediction, UncertaintyTerms } from '../types.ts'

export interface ExplainedFactor {
  key: string
  name: string
}

/**
 * One prediction's factors ranked once for all its horizons: a horizon scales every deviation from the
 * reference by the same factor, so the order by magnitude (ties by key) is the same at every horizon.
 */
export interface RankedDeviations {
  /** Factors in rank order. */
  factors: ExplainedFactor[]
  /** Each ranked factor's penalty minus the reference site's, before the horizon's scale. */
  deviations: number[]
}

/**
 * One horizon's answer. Its contributions are built when first read, and `topContributions(n)` builds
 * only the first n: most answers show three factors of eleven.
 */
export class HorizonResult implements HorizonPrediction {
  #contributions: FactorContribution[] | undefined

  constructor(
    readonly horizonYears: Horizon,
    readonly survivalProbability: number,
    readonly baselineLogOdds: number,
    readonly logOdds: number,
    private readonly ranked: RankedDeviations,
    private readonly scale: number,
    readonly uncertainty: UncertaintyTerms,
  ) {}

  get contributions(): FactorContribution[] {
    this.#contributions ??= this.topContributions(this.ranked.factors.length)
    return this.#contributions
  }

  topContributions(count: number): FactorContribution[] {
    if (this.#contributions) return this.#contributions.slice(0, count)
    const { factors, deviations } = this.ranked
    let end = Math.min(Math.max(0, count), factors.length)
    // Scaling can round different magnitudes to one: a run of equal ones crossing the cut is put in key
    // order before cutting, as a full sort would.
    while (end > 0 && end < factors.length && this.magnitudeAt(end) === this.magnitudeAt(end - 1)) end++
    const list = new Array<FactorContribution>(end)
    for (let r = 0; r < end; r++) {
      list[r] = contributionOf(factors[r] as ExplainedFactor, this.scale * (deviations[r] as number))
    }
    if (!isRanked(list)) list.sort(byMagnitudeThenKey)
    if (end > count) list.length = count
    return list
  }

  private magnitudeAt(rank: number): number {
    return Math.abs(this.scale * (this.ranked.deviations[rank] as number))
  }
}

function contributionOf(factor: ExplainedFactor, rawContribution: number): FactorContribution {
  // Normalise −0 so a factor that matches the reference serialises as 0 and reads as 'positive'.
  const contribution = rawContribution === 0 ? 0 : rawContribution
  return {
    key: factor.key,
    factor: factor.name,
    contribution,
    impact: contribution >= 0 ? 'positive' : 'negative',
    magnitude: Math.abs(contribution),
  }
}

function isRanked(contributions: readonly FactorContribution[]): boolean {
  for (let i = 1; i < contributions.length; i++) {
    if (
      byMagnitudeThenKey(contributions[i - 1] as FactorContribution, contributions[i] as FactorContribution) >
      0
    )
      return false
  }
  return true
}

export function byMagnitudeThenKey(a: FactorContribution, b: FactorContribution): number {
  return b.magnitude - a.magnitude || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
}
