import { sigmoid } from '../stats/logistic.ts'
import type {
  FactorContribution,
  Horizon,
  HorizonPrediction,
  HorizonTreatment,
  TreatedFactor,
  TreatmentEffect,
  UncertaintyTerms,
} from '../types.ts'

/*
 * Establishment treatments in the model (docs/model-card.md → treatments). A treatment removes a share
 * r of the penalty of the factors it acts on: tubes of browse, vegetation control of competing
 * vegetation. The share is of hand planting's penalty at the same site, species and horizon, the
 * planting the reference's figures describe; so a treatment gains nothing where its factor is zero,
 * and more the heavier the factor weighs. Treatments on one factor combine as their remaining shares
 * multiply (the reference's rule: odds ratios multiply); another method gains what hand planting
 * gains, never more than its own whole penalty for the factor. The gain goes into the treated
 * factor's contribution, so baselineLogOdds + Σ contributions = logOdds still holds exactly.
 *
 * Each share is uncertain (the reference's range): r_k ~ N(reduction, reductionSd²), independent
 * between treatments. To first order the gain moves by Σ_k (r_k − reduction_k)·∂gain/∂r_k, a normal
 * shift of the logit shared by every planting with those treatments, as a planting-year effect is by
 * a stand: its SD is added to the planting-year term, so intervals and plans widen with it.
 */

export interface FactorLabel {
  key: string
  name: string
}

/** Effects arranged by factor, made once per set of effects. */
export interface CompiledTreatments {
  effects: readonly TreatmentEffect[]
  /** Per factor (model order): the indices of the effects acting on it. */
  actingOn: readonly (readonly number[])[]
  /** Per factor: the share of its penalty left, Π (1 − reduction) over the effects acting on it. */
  remaining: Float64Array
  /** Per factor: the treatments acting on it, by name (shared, frozen). */
  names: readonly (readonly string[])[]
  /** The factors some effect acts on, in model order. */
  treatedFactors: readonly number[]
  /**
   * Per factor, per effect in `actingOn`: Π (1 − reduction) over the other effects acting on it, the
   * factor's part in ∂gain/∂r of that effect (before hand planting's penalty).
   */
  othersLeft: readonly (readonly number[])[]
}

/** Per model's factor list (versions may order their factors differently), per set of effects. */
const compiledByModel = new WeakMap<
  readonly FactorLabel[],
  WeakMap<readonly TreatmentEffect[], CompiledTreatments>
>()

/**
 * The effects arranged by the model's factors (cached per model and effects array: the domain hands
 * out one frozen array per combination). An effect naming a factor the model lacks is a programming error.
 */
export function compileTreatments(
  effects: readonly TreatmentEffect[],
  factors: readonly FactorLabel[],
): CompiledTreatments {
  let compiledBySet = compiledByModel.get(factors)
  if (!compiledBySet) {
    compiledBySet = new WeakMap()
    compiledByModel.set(factors, compiledBySet)
  }
  const cached = compiledBySet.get(effects)
  if (cached) return cached
  const index = new Map(factors.map((factor, i) => [factor.key, i]))
  const acting: number[][] = factors.map(() => [])
  effects.forEach((effect, k) => {
    if (!(effect.reduction <= 1) || !(effect.reductionSd >= 0))
      throw new RangeError(`treatment ${effect.treatment}: reduction must be at most 1, its SD at least 0`)
    for (const key of effect.factorKeys) {
      const i = index.get(key)
      if (i === undefined) throw new RangeError(`treatment ${effect.treatment} acts on unknown factor ${key}`)
      acting[i]?.push(k)
    }
  })
  const remaining = Float64Array.from(acting, (ks) =>
    ks.reduce((left, k) => left * (1 - (effects[k] as TreatmentEffect).reduction), 1),
  )
  const share = (k: number) => (effects[k] as TreatmentEffect).reduction
  const compiled: CompiledTreatments = {
    effects,
    actingOn: acting,
    remaining,
    names: acting.map((ks) => Object.freeze(ks.map((k) => (effects[k] as TreatmentEffect).treatment))),
    treatedFactors: acting.flatMap((ks, i) => (ks.length > 0 ? [i] : [])),
    othersLeft: acting.map((ks) =>
      ks.map((k) => ks.reduce((left, j) => (j === k ? left : left * (1 - share(j))), 1)),
    ),
  }
  compiledBySet.set(effects, compiled)
  return compiled
}

interface HorizonTerms {
  intercept: number
  scale: number
  baselineLogOdds: number
}

/** What the treated prediction of one site, species and method needs of the evaluator. */
export interface TreatedInputs {
  factors: readonly FactorLabel[]
  /** Each factor's severity at the (clamped) site for the species. */
  severities: ArrayLike<number>
  /** The method's weights, and hand planting's (the same array when the method is hand planting). */
  weights: Float64Array
  manualWeights: Float64Array
  /** The method's penalties at the reference site. */
  referencePenalties: Float64Array
  /** Per horizon: the method's intercept, scale and baseline, and hand planting's. */
  horizons: Readonly<Record<Horizon, HorizonTerms>>
  manualHorizons: Readonly<Record<Horizon, HorizonTerms>>
  uncertainty: UncertaintyTerms
}

/**
 * One horizon of a treated prediction. Its contributions are kept as numbers and built when first
 * read, and `topContributions(n)` builds only the first n: most answers show three factors of eleven.
 */
class TreatedHorizon implements HorizonPrediction {
  readonly survivalProbability: number
  #contributions: FactorContribution[] | undefined

  constructor(
    readonly horizonYears: Horizon,
    readonly baselineLogOdds: number,
    readonly logOdds: number,
    private readonly factors: readonly FactorLabel[],
    /** Per factor, in model order: the contribution with the treatments, and without (NaN: untouched). */
    private readonly values: readonly number[],
    private readonly untreated: readonly number[],
    readonly uncertainty: UncertaintyTerms,
    readonly treatment: HorizonTreatment,
  ) {
    this.survivalProbability = sigmoid(logOdds)
  }

  get contributions(): FactorContribution[] {
    this.#contributions ??= this.topContributions(this.factors.length)
    return this.#contributions
  }

  topContributions(count: number): FactorContribution[] {
    if (this.#contributions) return this.#contributions.slice(0, Math.max(0, count))
    const order = rankedIndices(this.values, this.factors)
    const list = new Array<FactorContribution>(Math.min(Math.max(0, count), order.length))
    for (let r = 0; r < list.length; r++) {
      const i = order[r] as number
      const untreated = this.untreated[i] as number
      list[r] = contributionOf(
        this.factors[i] as FactorLabel,
        this.values[i] as number,
        Number.isNaN(untreated) ? undefined : untreated,
      )
    }
    return list
  }
}

/**
 * Factor indices by |value| descending, ties by key: the order byMagnitudeThenKey gives (insertion
 * sort). Plain arrays here and below: a few short typed arrays per request cost more to make than they save.
 */
function rankedIndices(values: readonly number[], factors: readonly FactorLabel[]): number[] {
  const order = new Array<number>(values.length)
  for (let i = 0; i < values.length; i++) {
    const magnitude = Math.abs(values[i] as number)
    const key = (factors[i] as FactorLabel).key
    let at = i
    while (at > 0) {
      const before = order[at - 1] as number
      const other = Math.abs(values[before] as number)
      if (other > magnitude || (other === magnitude && (factors[before] as FactorLabel).key < key)) break
      order[at] = before
      at--
    }
    order[at] = i
  }
  return order
}

function contributionOf(label: FactorLabel, raw: number, untreated?: number): FactorContribution {
  const contribution = raw === 0 ? 0 : raw
  const out: FactorContribution = {
    key: label.key,
    factor: label.name,
    contribution,
    impact: contribution >= 0 ? 'positive' : 'negative',
    magnitude: Math.abs(contribution),
  }
  if (untreated !== undefined) out.untreatedContribution = untreated === 0 ? 0 : untreated
  return out
}

/**
 * The predictions at `horizons` of one site, species and method with the compiled treatments applied.
 * What does not change with the horizon (each factor's weighted severity, its untreated penalty against
 * the reference) is worked out once; a horizon only scales it.
 */
export function treatedPredictions(
  inputs: TreatedInputs,
  compiled: CompiledTreatments,
  horizons: readonly Horizon[],
): HorizonPrediction[] {
  const { factors, severities, weights, manualWeights, referencePenalties } = inputs
  const n = factors.length
  const weighted = new Array<number>(n)
  const againstReference = new Array<number>(n)
  let penaltyTotal = 0
  for (let i = 0; i < n; i++) {
    const w = (weights[i] as number) * (severities[i] as number)
    weighted[i] = w
    againstReference[i] = -w - (referencePenalties[i] as number)
    penaltyTotal -= w
  }
  const { treatedFactors, actingOn, othersLeft, remaining, names, effects } = compiled
  const predictions = new Array<HorizonPrediction>(horizons.length)
  for (let at = 0; at < horizons.length; at++) {
    const h = horizons[at] as Horizon
    const { intercept, scale, baselineLogOdds } = inputs.horizons[h]
    const manualScale = inputs.manualHorizons[h].scale
    const untreatedLogOdds = intercept + scale * penaltyTotal
    const values = new Array<number>(n)
    const untreatedValues = new Array<number>(n).fill(Number.NaN)
    for (let i = 0; i < n; i++) values[i] = scale * (againstReference[i] as number)
    const treated: TreatedFactor[] = []
    // ∂gain/∂r_k, for the SD of the gain.
    const slopes = new Array<number>(effects.length).fill(0)
    let gainTotal = 0
    for (let t = 0; t < treatedFactors.length; t++) {
      const i = treatedFactors[t] as number
      // Penalties as magnitudes on the logit scale at this horizon: the method's and hand planting's.
      const own = scale * (weighted[i] as number)
      const manual = manualScale * (manualWeights[i] as number) * (severities[i] as number)
      const wanted = (1 - (remaining[i] as number)) * manual
      const gain = Math.min(own, wanted)
      if (wanted <= own) {
        const acting = actingOn[i] as readonly number[]
        const left = othersLeft[i] as readonly number[]
        for (let a = 0; a < acting.length; a++) {
          const k = acting[a] as number
          slopes[k] = (slopes[k] as number) + manual * (left[a] as number)
        }
      }
      // A factor that is no risk here (or an effect with no share) is left as it was, and unlisted.
      if (gain === 0) continue
      gainTotal += gain
      const untreated = values[i] as number
      const treatedValue = untreated + gain
      values[i] = treatedValue
      untreatedValues[i] = untreated
      const label = factors[i] as FactorLabel
      treated.push({
        key: label.key,
        factor: label.name,
        contribution: treatedValue === 0 ? 0 : treatedValue,
        untreatedContribution: untreated === 0 ? 0 : untreated,
        treatments: names[i] as readonly string[],
      })
    }
    let variance = 0
    for (let k = 0; k < effects.length; k++) {
      variance += ((effects[k] as TreatmentEffect).reductionSd * (slopes[k] as number)) ** 2
    }
    const effectSd = Math.sqrt(variance)
    const base = inputs.uncertainty
    const uncertainty: UncertaintyTerms =
      effectSd === 0 ? base : { ...base, plantingYearSd: Math.hypot(base.plantingYearSd, effectSd) }
    predictions[at] = new TreatedHorizon(
      h,
      baselineLogOdds,
      untreatedLogOdds + gainTotal,
      factors,
      values,
      untreatedValues,
      uncertainty,
      {
        untreatedLogOdds,
        untreatedSurvivalProbability: sigmoid(untreatedLogOdds),
        effectSd,
        untreatedUncertainty: base,
        factors: treated,
        effectSlopes: slopes,
      },
    )
  }
  return predictions
}
