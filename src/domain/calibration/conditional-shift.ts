import { normalQuadrature } from '../../stats/gauss-hermite.ts'
import { sigmoid } from '../../stats/logistic.ts'
import type { PlotColumns } from '../surveys/plot-columns.ts'

/*
 * A group's logit offset when plots differ by more than their counts: each plot's true survival is
 * expit(logit pᵢ + δ + u), u a normal effect of variance σ² that its site and planting year add. The
 * survey report's shift solves Σ nᵢ expit(logit pᵢ + δ) = A: the offset of the average plot, which
 * such effects pull towards 0 (a 0.6 offset reads about 0.52 with σ² = 0.89). A calibrated version adds
 * its offset to every plot's logit, so it needs the offset of the plot itself: δ solving
 *   Σ nᵢ E[expit(logit pᵢ + δ + σZ)] = A,  Z standard normal,
 * each expectation by Gauss–Hermite quadrature. With σ = 0 it is the report's shift.
 */

/** Quadrature points: the logistic-normal mean to ~1e-9 for σ up to 2 (src/stats/gauss-hermite.test.ts). */
const POINTS = 20
const MAX_STEPS = 100
const MAX_STEP = 4

export interface ConditionalShift {
  shift: number
  /** Σ nᵢ E[q(1 − q)] at the shift: dA/dδ, which turns Var(A) into Var(δ̂). */
  slope: number
}

/** exp(σ xₖ) at each quadrature node, kept for the σ last asked for (a fit asks for one σ at a time). */
let scaledFor = Number.NaN
let scaled = new Float64Array(POINTS)
function scaledNodes(sd: number): Float64Array {
  if (sd !== scaledFor) {
    const { nodes } = normalQuadrature(POINTS)
    scaled = new Float64Array(POINTS)
    for (let k = 0; k < POINTS; k++) scaled[k] = Math.exp(sd * (nodes[k] as number))
    scaledFor = sd
  }
  return scaled
}

/** Beyond this |logit| the odds times a node's factor could overflow: each node by the stable sigmoid. */
const ODDS_LIMIT = 300

/**
 * Σ nᵢ E[q] and Σ nᵢ E[q(1 − q)] at offset δ, the expectation over the normal effect of SD σ. The odds
 * at node k are exp(ηᵢ) exp(σ xₖ): one exponential a plot rather than one a node.
 */
function expected({ planted, logits, length }: PlotColumns, shift: number, sd: number) {
  const { nodes, weights } = normalQuadrature(POINTS)
  const factors = scaledNodes(sd)
  let alive = 0
  let slope = 0
  for (let i = 0; i < length; i++) {
    const eta = (logits[i] as number) + shift
    let mean = 0
    let spread = 0
    if (Math.abs(eta) < ODDS_LIMIT) {
      const odds = Math.exp(eta)
      for (let k = 0; k < POINTS; k++) {
        const o = odds * (factors[k] as number)
        const d = 1 + o
        const q = o / d
        const w = weights[k] as number
        mean += w * q
        spread += (w * q) / d
      }
    } else {
      for (let k = 0; k < POINTS; k++) {
        const q = sigmoid(eta + sd * (nodes[k] as number))
        mean += (weights[k] as number) * q
        spread += (weights[k] as number) * q * (1 - q)
      }
    }
    const trees = planted[i] as number
    alive += trees * mean
    slope += trees * spread
  }
  return { alive, slope }
}

/**
 * The δ with Σ nᵢ E[expit(logit pᵢ + δ + σZ)] = target (`target`: the trees alive, or N p̃ when every
 * tree lived or died, as the report fits it), by Newton's method kept inside the bracket it finds,
 * from `start` (a fit that solves the same group again starts from its last answer).
 */
export function conditionalShift(
  plots: PlotColumns,
  target: number,
  effectVariance: number,
  start = 0,
): ConditionalShift {
  if (!(effectVariance >= 0)) throw new RangeError(`effect variance must be ≥ 0, got ${effectVariance}`)
  const sd = Math.sqrt(effectVariance)
  let low = Number.NEGATIVE_INFINITY
  let high = Number.POSITIVE_INFINITY
  let shift = Number.isFinite(start) ? start : 0
  for (let step = 0; step < MAX_STEPS; step++) {
    const { alive, slope } = expected(plots, shift, sd)
    const gap = target - alive
    if (gap > 0) low = shift
    else high = shift
    const newton = slope > 0 ? gap / slope : Math.sign(gap) * MAX_STEP
    const move = Math.max(-MAX_STEP, Math.min(MAX_STEP, newton))
    if (Math.abs(move) < 1e-12 * (1 + Math.abs(shift))) {
      shift += move
      break
    }
    const next = shift + move
    shift = next > low && next < high ? next : (low + high) / 2
  }
  return { shift, slope: expected(plots, shift, sd).slope }
}
