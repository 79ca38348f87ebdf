import { sigmoid } from '../../stats/logistic.ts'
import { normalCdf, normalNodes } from '../../stats/normal.ts'
import type { UncertaintyTerms } from '../../types.ts'
import { TREES_PER_HECTARE_PER_ACRE } from '../input-rules.ts'

/*
 * The arithmetic of a stocking plan (docs/model-card.md → uncertainty): survivors of N planted trees per
 * acre, mixed over a planting-year effect Y shared by the stand and an effect S_j of each site in it,
 * with plot counts more variable than binomial (clumping). Integrals are averages over fixed nodes, so
 * the same plan always gives the same numbers.
 */

/** Nodes standing for the planting-year effect, and for each site's effect. */
const YEAR_NODES = 64
const SITE_NODES = 16
const NO_SITE_EFFECT = new Float64Array(1)

/** A species of the mix at one horizon: its share of the planted trees and its log-odds at each site. */
export interface MixMember {
  share: number
  /** false: counts toward the standard only up to the rule's cap (Oregon's hardwoods). */
  countsInFull: boolean
  /** The model's log-odds of survival at each site of the stand, in the same order for every member. */
  logOddsBySite: ArrayLike<number>
}

/** The stand's surviving share of planted trees at one horizon, per planting-year node. */
export interface SurvivalDistribution {
  /** The model's own answer: the share-weighted mean over the sites of each species' survival. */
  pointSurvival: number
  /** Expected surviving share, all species, given the year node. */
  total: Float64Array
  /** Expected surviving share of species that count in full. */
  full: Float64Array
  /** Expected surviving share of species that count up to a cap. */
  capped: Float64Array
  /** Variance of the surviving share that the site effects add, given the year node. */
  siteVariance: Float64Array
  /** The same for the share of species that count in full, and of those that count up to a cap. */
  fullSiteVariance: Float64Array
  cappedSiteVariance: Float64Array
  clumpingDispersion: number
}

const nodesBySd = new Map<string, Float64Array>()
function nodesFor(count: number, sd: number): Float64Array {
  const key = `${count}:${sd}`
  let nodes = nodesBySd.get(key)
  if (!nodes) {
    nodes = normalNodes(count, sd)
    nodesBySd.set(key, nodes)
  }
  return nodes
}

/** The distribution of a mix's surviving share over sites weighted equally, for one horizon. */
export function survivalDistribution(
  members: readonly MixMember[],
  terms: UncertaintyTerms,
): SurvivalDistribution {
  const siteCount = members[0]?.logOddsBySite.length ?? 0
  if (siteCount === 0) throw new RangeError('a plan needs at least one site and one species')
  const weight = 1 / siteCount
  // One site: its effect adds to the year's, so one combined effect is exact (and 16 times cheaper).
  const oneSite = siteCount === 1
  const years = nodesFor(
    YEAR_NODES,
    oneSite ? Math.hypot(terms.plantingYearSd, terms.siteSd) : terms.plantingYearSd,
  )
  const siteEffects = oneSite ? NO_SITE_EFFECT : nodesFor(SITE_NODES, terms.siteSd)
  const siteNodes = siteEffects.length
  // The six series share one block of memory: a typed array this size is allocated outside V8's heap,
  // so one allocation (and one to free) instead of six.
  const series = new Float64Array(6 * YEAR_NODES)
  const seriesAt = (k: number) => series.subarray(k * YEAR_NODES, (k + 1) * YEAR_NODES)
  const total = seriesAt(0)
  const full = seriesAt(1)
  const capped = seriesAt(2)
  const siteVariance = seriesAt(3)
  const fullSiteVariance = seriesAt(4)
  const cappedSiteVariance = seriesAt(5)

  let pointSurvival = 0
  for (const member of members) {
    for (let j = 0; j < siteCount; j++)
      pointSurvival += member.share * weight * sigmoid(member.logOddsBySite[j] as number)
  }

  for (let y = 0; y < YEAR_NODES; y++) {
    const yearEffect = years[y] as number
    let fullMean = 0
    let cappedMean = 0
    let variance = 0
    let fullVariance = 0
    let cappedVariance = 0
    for (let j = 0; j < siteCount; j++) {
      let fullSum = 0
      let cappedSum = 0
      let squares = 0
      let fullSquares = 0
      let cappedSquares = 0
      for (let s = 0; s < siteNodes; s++) {
        const shift = yearEffect + (siteEffects[s] as number)
        let fullShare = 0
        let cappedShare = 0
        for (const member of members) {
          const survival = member.share * sigmoid((member.logOddsBySite[j] as number) + shift)
          if (member.countsInFull) fullShare += survival
          else cappedShare += survival
        }
        fullSum += fullShare
        cappedSum += cappedShare
        squares += (fullShare + cappedShare) ** 2
        fullSquares += fullShare * fullShare
        cappedSquares += cappedShare * cappedShare
      }
      const siteFull = fullSum / siteNodes
      const siteCapped = cappedSum / siteNodes
      const siteMean = siteFull + siteCapped
      fullMean += weight * siteFull
      cappedMean += weight * siteCapped
      const weightSquared = weight * weight
      variance += weightSquared * Math.max(0, squares / siteNodes - siteMean * siteMean)
      fullVariance += weightSquared * Math.max(0, fullSquares / siteNodes - siteFull * siteFull)
      cappedVariance += weightSquared * Math.max(0, cappedSquares / siteNodes - siteCapped * siteCapped)
    }
    full[y] = fullMean
    capped[y] = cappedMean
    total[y] = fullMean + cappedMean
    siteVariance[y] = variance
    fullSiteVariance[y] = fullVariance
    cappedSiteVariance[y] = cappedVariance
  }
  return {
    pointSurvival,
    total,
    full,
    capped,
    siteVariance,
    fullSiteVariance,
    cappedSiteVariance,
    clumpingDispersion: terms.clumpingDispersion,
  }
}

/** SD of a per-acre count of survivors of `planted` trees given a year node. */
function countSd(distribution: SurvivalDistribution, planted: number, y: number): number {
  const share = distribution.total[y] as number
  return Math.sqrt(
    planted * planted * (distribution.siteVariance[y] as number) +
      distribution.clumpingDispersion * planted * share * (1 - share),
  )
}

/** P(count ≥ threshold) for a count near-normal with this mean and SD (continuity-corrected). */
function probabilityAtLeast(threshold: number, mean: number, sd: number): number {
  if (sd === 0) return mean >= threshold - 0.5 ? 1 : 0
  return 1 - normalCdf((threshold - 0.5 - mean) / sd)
}

/** Mean and variance of a per-acre count of survivors of a part of the mix, given a year node. */
function partCount(
  planted: number,
  share: number,
  siteVariance: number,
  dispersion: number,
): { mean: number; variance: number } {
  return {
    mean: planted * share,
    variance: planted * planted * siteVariance + dispersion * planted * share * (1 - share),
  }
}

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI)

/**
 * Mean and variance of min(X, cap) for X normal: hardwoods beyond the cap do not count, so the
 * countable part stops growing there (smoothly, so the probability still rises with the density).
 */
function censoredAt(
  cap: number,
  mean: number,
  variance: number,
): { mean: number; variance: number; belowCap: number } {
  if (variance <= 0) return { mean: Math.min(mean, cap), variance: 0, belowCap: mean < cap ? 1 : 0 }
  const sd = Math.sqrt(variance)
  const a = (cap - mean) / sd
  const below = normalCdf(a)
  const density = INV_SQRT_2PI * Math.exp(-0.5 * a * a)
  // E[min(X, c)] = m − s·φ(a) + (c − m)(1 − Φ(a)); E[min(X, c)²] from the truncated normal below c.
  const censoredMean = mean - sd * density + (cap - mean) * (1 - below)
  const secondMoment =
    (mean * mean + variance) * below - sd * (cap + mean) * density + cap * cap * (1 - below)
  return {
    mean: censoredMean,
    variance: Math.max(0, secondMoment - censoredMean * censoredMean),
    belowCap: below,
  }
}

/**
 * The probability that the countable survivors per acre reach `target` when `planted` are planted:
 * species that count in full, plus capped ones up to `cap` trees per acre (null: no cap).
 */
export function meetsProbability(
  distribution: SurvivalDistribution,
  planted: number,
  target: number,
  cap: number | null,
): number {
  let sum = 0
  const nodes = distribution.total.length
  const dispersion = distribution.clumpingDispersion
  // No switch to the uncapped formula when the cap cannot bind (fewer capped trees planted than it):
  // the censored normal stays within about a point of it there, and a switch would make the
  // probability fall where the density crosses the cap.
  for (let y = 0; y < nodes; y++) {
    if (cap === null) {
      const all = partCount(
        planted,
        distribution.total[y] as number,
        distribution.siteVariance[y] as number,
        dispersion,
      )
      sum += probabilityAtLeast(target, all.mean, Math.sqrt(all.variance))
      continue
    }
    const full = partCount(
      planted,
      distribution.full[y] as number,
      distribution.fullSiteVariance[y] as number,
      dispersion,
    )
    const capped = partCount(
      planted,
      distribution.capped[y] as number,
      distribution.cappedSiteVariance[y] as number,
      dispersion,
    )
    const countable = censoredAt(cap, capped.mean, capped.variance)
    // The parts share each site's effect and split one plot's survivors: their covariance is what the
    // whole count's variance holds beyond theirs. Past the cap the capped part no longer moves with it.
    const all = partCount(
      planted,
      distribution.total[y] as number,
      distribution.siteVariance[y] as number,
      dispersion,
    )
    const covariance = ((all.variance - full.variance - capped.variance) / 2) * countable.belowCap
    sum += probabilityAtLeast(
      target,
      full.mean + countable.mean,
      Math.sqrt(Math.max(0, full.variance + countable.variance + 2 * covariance)),
    )
  }
  return sum / nodes
}

/** P(survivors per acre ≤ x), all species counted. */
function survivorsCdf(distribution: SurvivalDistribution, planted: number, x: number): number {
  let sum = 0
  const nodes = distribution.total.length
  for (let y = 0; y < nodes; y++) {
    const mean = planted * (distribution.total[y] as number)
    const sd = countSd(distribution, planted, y)
    sum += sd === 0 ? (x + 0.5 >= mean ? 1 : 0) : normalCdf((x + 0.5 - mean) / sd)
  }
  return sum / nodes
}

/**
 * The smallest whole count of survivors per acre, 0…planted, at which the CDF reaches p: a bracket
 * narrowed by interpolation (Illinois false position), which needs a few CDF evaluations where a
 * bisection needs log2(planted).
 */
function survivorsQuantile(distribution: SurvivalDistribution, planted: number, p: number): number {
  let low = 0
  let high = Math.max(0, Math.ceil(planted))
  let lowGap = survivorsCdf(distribution, planted, low) - p
  if (lowGap >= 0) return low
  let highGap = survivorsCdf(distribution, planted, high) - p
  let side = 0
  for (let step = 0; high - low > 1; step++) {
    const interpolated = Math.round(low + (lowGap / (lowGap - highGap)) * (high - low))
    // Past a few steps, halve the bracket: a bound on the worst case, whatever the CDF's shape.
    const middle = step >= 6 ? (low + high) >>> 1 : Math.min(high - 1, Math.max(low + 1, interpolated))
    const gap = survivorsCdf(distribution, planted, middle) - p
    if (gap >= 0) {
      high = middle
      highGap = gap
      // Illinois: when the same end moves twice, halve the other's weight so the bracket closes.
      if (side === 1) lowGap /= 2
      side = 1
    } else {
      low = middle
      lowGap = gap
      if (side === -1) highGap /= 2
      side = -1
    }
  }
  return high
}

/** The central interval of survivors per acre holding `level` of the outcomes. */
export function survivorsInterval(
  distribution: SurvivalDistribution,
  planted: number,
  level: number,
): { lower: number; upper: number } {
  return {
    lower: survivorsQuantile(distribution, planted, (1 - level) / 2),
    upper: survivorsQuantile(distribution, planted, (1 + level) / 2),
  }
}

/** The densest plan a plan will propose, trees per acre (a 3 × 3 ft grid is 4,840). */
export const MAX_REQUIRED_TREES_PER_ACRE = 5000

/**
 * The smallest whole number of trees per acre whose probability of meeting the target is at least
 * `confidence`; null when not even `max` (MAX_REQUIRED_TREES_PER_ACRE) would. The probability rises
 * with the density (proved in the tests), so a bisection finds it.
 */
export function requiredDensity(
  distribution: SurvivalDistribution,
  target: number,
  cap: number | null,
  confidence: number,
  max = MAX_REQUIRED_TREES_PER_ACRE,
): number | null {
  const meets = (planted: number) => meetsProbability(distribution, planted, target, cap) >= confidence
  if (!meets(max)) return null
  let low = 0
  let high = max
  while (high - low > 1) {
    const middle = (low + high) >>> 1
    if (meets(middle)) high = middle
    else low = middle
  }
  return high
}

/** `value` to `decimals` places, as a plan reports its figures. */
export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals
  return Math.round(value * factor) / factor
}

/** Trees per hectare of a density per acre, to 1 decimal, as a plan reports its horizons' counts. */
export function perHectare(treesPerAcre: number): number {
  return round(treesPerAcre * TREES_PER_HECTARE_PER_ACRE, 1)
}
