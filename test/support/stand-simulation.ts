import type { MixMember } from '../../src/domain/stocking/stocking-math.ts'
import { sigmoid } from '../../src/stats/logistic.ts'
import type { UncertaintyTerms } from '../../src/types.ts'
import { TERMS } from './stocking-mixes.ts'

// A simulation of the stated model, independent of the code under test (src/domain/stocking/
// stocking-math.ts): seeded draws of a stand's survivors.

/** sfc32 (Chris Doty-Humphrey's small fast counter), seeded; uniform doubles in (0, 1) with 53 bits. */
function uniformSource(seed: number): () => number {
  let a = 0x9e3779b9
  let b = 0x243f6a88
  let c = 0xb7e15162
  let d = seed >>> 0
  const next32 = () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return t >>> 0
  }
  for (let i = 0; i < 24; i++) next32()
  return () => {
    for (;;) {
      const u = ((next32() >>> 5) * 67_108_864 + (next32() >>> 6)) / 9_007_199_254_740_992
      if (u > 0) return u
    }
  }
}

/** Standard normal by Box–Muller (one of the pair; simple, exact). */
function standardNormal(u: () => number): number {
  return Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())
}

/** Gamma(shape, 1) by Marsaglia and Tsang (2000), with the boost for shapes below 1. */
function gammaVariate(u: () => number, shape: number): number {
  if (shape < 1) return gammaVariate(u, shape + 1) * u() ** (1 / shape)
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x: number
    let v: number
    do {
      x = standardNormal(u)
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    const w = u()
    if (w < 1 - 0.0331 * x ** 4) return d * v
    if (Math.log(w) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
  }
}

function betaVariate(u: () => number, a: number, b: number): number {
  const x = gammaVariate(u, a)
  return x / (x + gammaVariate(u, b))
}

function binomialVariate(u: () => number, n: number, p: number): number {
  let k = 0
  for (let i = 0; i < n; i++) if (u() < p) k++
  return k
}

export interface Outcomes {
  /** Survivors per acre, every species. */
  total: Int32Array
  /** Survivors that count toward the standard: in-full species, plus capped ones up to the cap. */
  countable: Int32Array
}

/**
 * Outcomes of planting `planted` trees per acre under the stated model: a year effect Y ~ N(0, year sd)
 * shared by the stand; a site effect S_j ~ N(0, site sd) for each site; per-tree survival of species k
 * at site j sigmoid(logOdds_jk + Y + S_j); sites weigh equally; the count of survivors is beta-binomial
 * with mean p (the stand's share- and site-weighted survival) and variance planted·p(1−p)·dispersion
 * (intra-class correlation (dispersion − 1)/(planted − 1)). Survivors belong to capped species with
 * probability (their expected survivors) / (all expected survivors). `effectSdBySite`: the error of a
 * treatment's effect, one standard normal z for the stand shifting site j's log-odds by z · sd_j.
 */
export function simulate(
  members: readonly MixMember[],
  planted: number,
  options: {
    draws: number
    seed: number
    cap?: number | null
    terms?: UncertaintyTerms
    effectSdBySite?: ArrayLike<number>
  },
): Outcomes {
  const terms = options.terms ?? TERMS
  const cap = options.cap ?? null
  const u = uniformSource(options.seed)
  const sites = (members[0] as MixMember).logOddsBySite.length
  const rho = (terms.clumpingDispersion - 1) / (planted - 1)
  const total = new Int32Array(options.draws)
  const countable = new Int32Array(options.draws)
  for (let i = 0; i < options.draws; i++) {
    const year = terms.plantingYearSd * standardNormal(u)
    const effect = options.effectSdBySite ? standardNormal(u) : 0
    let p = 0
    let pCapped = 0
    for (let j = 0; j < sites; j++) {
      const site = terms.siteSd * standardNormal(u) + effect * (options.effectSdBySite?.[j] ?? 0)
      for (const m of members) {
        const survival = (m.share * sigmoid((m.logOddsBySite[j] as number) + year + site)) / sites
        p += survival
        if (!m.countsInFull) pCapped += survival
      }
    }
    const q = rho > 0 ? betaVariate(u, p * (1 / rho - 1), (1 - p) * (1 / rho - 1)) : p
    const survivors = binomialVariate(u, planted, q)
    const capped = pCapped > 0 ? binomialVariate(u, survivors, pCapped / p) : 0
    total[i] = survivors
    countable[i] = survivors - capped + (cap === null ? capped : Math.min(capped, cap))
  }
  return { total, countable }
}

export const shareOf = (values: Int32Array, test: (x: number) => boolean) => {
  let hits = 0
  for (const x of values) if (test(x)) hits++
  return hits / values.length
}

export const DRAWS = 4000
