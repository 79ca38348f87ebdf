import { normalQuadrature } from '../../stats/gauss-hermite.ts'
import { sigmoid } from '../../stats/logistic.ts'

/*
 * The treatment effects a calibration can estimate from its plots (docs/treatments.md, "Field data"),
 * and the one-effect step of the fit (./offset-fit.ts).
 *
 * A plot whose treatments applied effect k moves its logit by sᵢₖ Δₖ when the effect's share moves
 * from the prior's r₀ₖ to r₀ₖ + Δₖ: sᵢₖ = ∂logit pᵢ/∂r at the plot's age, kept with the plot when it
 * was predicted. An effect is estimable when some species × method holds both plots it acts on
 * (sᵢₖ > 0: treated, and its factor active there) and plots it does not (untreated, or its factor
 * inactive): the latter fix the group's offset, the former then measure the effect. An effect whose
 * plots are all in groups of treated plots only cannot be told from the offsets, and keeps its prior.
 */

/** A slope below this is the effect's factor inactive on the plot. */
export const ACTIVE_SLOPE = 1e-9

export interface EffectPrior {
  /** The share r the reference gives the effect, and its SD (src/domain/treatments.ts). */
  mean: number
  sd: number
}

/** One effect the fit estimates: its slope on every plot (0 where it does not act), and the plots it acts on. */
export interface EffectColumn {
  id: string
  slopes: Float64Array
  members: number[]
}

/** An effect some plots carry that the fit cannot estimate, and why. */
export interface UninformedEffect {
  id: string
  /** Plots it acts on (slope > 0). */
  plots: number
  reason: string
}

export interface EffectDesign {
  estimable: EffectColumn[]
  uninformed: UninformedEffect[]
}

/**
 * The effects the plots carry, split into the estimable and the rest (each with its reason), in
 * effect-id order. `slopesOf(i)` is plot i's slopes by effect id (null: no effect applied).
 */
export function effectDesign(
  count: number,
  slopesOf: (i: number) => Readonly<Record<string, number>> | null | undefined,
  groupOf: Int32Array,
  priors: ReadonlyMap<string, EffectPrior>,
): EffectDesign {
  const ids = new Set<string>()
  for (let i = 0; i < count; i++) for (const id of Object.keys(slopesOf(i) ?? {})) ids.add(id)
  const estimable: EffectColumn[] = []
  const uninformed: UninformedEffect[] = []
  for (const id of [...ids].sort()) {
    const slopes = new Float64Array(count)
    const members: number[] = []
    const acting = new Set<number>()
    for (let i = 0; i < count; i++) {
      const slope = slopesOf(i)?.[id] ?? 0
      if (slope > ACTIVE_SLOPE) {
        slopes[i] = slope
        members.push(i)
        acting.add(groupOf[i] as number)
      }
    }
    const mixed = new Set<number>()
    for (let i = 0; i < count; i++)
      if ((slopes[i] as number) === 0 && acting.has(groupOf[i] as number)) mixed.add(groupOf[i] as number)
    const reason = !priors.has(id)
      ? 'the treatments data in use no longer has this effect'
      : !((priors.get(id) as EffectPrior).sd > 0)
        ? 'the reference gives it no range: its prior leaves the data nothing to move'
        : members.length === 0
          ? 'its factor is inactive on every plot that had it'
          : mixed.size === 0
            ? 'no species × method has plots both with it and without it, so it cannot be told from the offsets'
            : null
    if (reason) uninformed.push({ id, plots: members.length, reason })
    else estimable.push({ id, slopes, members })
  }
  return { estimable, uninformed }
}

const POINTS = 20
const MAX_STEPS = 100
const MAX_STEP = 4

/**
 * Σ sᵢ nᵢ E[q] and Σ sᵢ² nᵢ E[q(1 − q)] over the members at Δ, q = expit(ηᵢ + sᵢΔ + σZ).
 */
function expected(
  members: readonly number[],
  slopes: Float64Array,
  planted: Float64Array,
  logits: (i: number) => number,
  delta: number,
  sd: number,
) {
  const { nodes, weights } = normalQuadrature(POINTS)
  let alive = 0
  let slope = 0
  for (const i of members) {
    const s = slopes[i] as number
    const eta = logits(i) + s * delta
    let mean = 0
    let spread = 0
    for (let k = 0; k < POINTS; k++) {
      const q = sigmoid(eta + sd * (nodes[k] as number))
      mean += (weights[k] as number) * q
      spread += (weights[k] as number) * q * (1 - q)
    }
    const n = planted[i] as number
    alive += s * n * mean
    slope += s * s * n * spread
  }
  return { alive, slope }
}

/**
 * The Δ of one effect with everything else held (`logits(i)`: plot i's logit without this effect's
 * move): Σ sᵢ aᵢ = Σ sᵢ nᵢ E[q], the offsets' equation with each plot weighted by its slope. When every
 * tree of the effect's plots lived (or died), aᵢ is taken as nᵢ (A + ½)/(N + 1), as an offset's
 * target is, so that Δ stays finite. Newton's method inside the bracket it finds, from `start`.
 */
export function solveEffect(
  effect: EffectColumn,
  planted: Float64Array,
  alive: Float64Array,
  logits: (i: number) => number,
  siteVariance: number,
  start: number,
): { delta: number; slope: number } {
  const sd = Math.sqrt(siteVariance)
  let trees = 0
  let survivors = 0
  for (const i of effect.members) {
    trees += planted[i] as number
    survivors += alive[i] as number
  }
  const extreme = survivors === 0 || survivors === trees
  let target = 0
  for (const i of effect.members) {
    const n = planted[i] as number
    const a = extreme ? (n * (survivors + 0.5)) / (trees + 1) : (alive[i] as number)
    target += (effect.slopes[i] as number) * a
  }
  let low = Number.NEGATIVE_INFINITY
  let high = Number.POSITIVE_INFINITY
  let delta = Number.isFinite(start) ? start : 0
  for (let step = 0; step < MAX_STEPS; step++) {
    const at = expected(effect.members, effect.slopes, planted, logits, delta, sd)
    const gap = target - at.alive
    if (gap > 0) low = delta
    else high = delta
    const newton = at.slope > 0 ? gap / at.slope : Math.sign(gap) * MAX_STEP
    const move = Math.max(-MAX_STEP, Math.min(MAX_STEP, newton))
    if (Math.abs(move) < 1e-12 * (1 + Math.abs(delta))) {
      delta += move
      break
    }
    const next = delta + move
    delta = next > low && next < high ? next : (low + high) / 2
  }
  return { delta, slope: expected(effect.members, effect.slopes, planted, logits, delta, sd).slope }
}
