import type { AppliedTreatments } from '../domain/treatment-types.ts'
import type { JsonEncoder } from '../http-body/json.ts'
import type { HorizonPrediction, HorizonTreatment, TreatedFactor } from '../types.ts'
import { appliedTreatmentsJson } from './treatments-json.ts'

/*
 * A prediction's `treatments` block written straight to bytes, as prediction-writer.ts writes the rest
 * of the answer: byte for byte JSON.stringify(predictionTreatmentsJson(…)). What is the same for every
 * answer with the same treatments (their values, effects and sources) is encoded once; per answer only
 * the horizons' numbers are printed, with the rest of the answer's numbers.
 */

const bytesOf = (text: string): Uint8Array => Buffer.from(text)

/** `,"treatments":{…"effects":[…],"horizons":[` per combination and method (one frozen object each). */
const openings = new WeakMap<AppliedTreatments, Uint8Array>()

function opening(t: AppliedTreatments): Uint8Array {
  let bytes = openings.get(t)
  if (bytes === undefined) {
    bytes = bytesOf(`,"treatments":${JSON.stringify(appliedTreatmentsJson(t)).slice(0, -1)},"horizons":[`)
    openings.set(t, bytes)
  }
  return bytes
}

/** `{"horizon_years":…,"untreated_survival_probability":`, first and following. */
const horizonOpenings = new Map<number, [Uint8Array, Uint8Array]>()

function horizonOpening(horizonYears: number, first: boolean): Uint8Array {
  let pair = horizonOpenings.get(horizonYears)
  if (pair === undefined) {
    const text = `{"horizon_years":${JSON.stringify(horizonYears)},"untreated_survival_probability":`
    pair = [bytesOf(text), bytesOf(`,${text}`)]
    // Horizons are the model's few (1, 3, 5): nothing from a request reaches this key.
    horizonOpenings.set(horizonYears, pair)
  }
  return pair[first ? 0 : 1]
}

const EFFECT_SD = bytesOf(',"effect_sd":')
const NO_FACTORS = bytesOf(',"factors":[]}')
const UNTREATED_CONTRIBUTION = bytesOf(',"untreated_contribution":')
const BLOCK_END = bytesOf(']}')
const FACTOR_END = bytesOf('}')

/** `{"key":…,"factor":…,"contribution":` per model factor, opening the list or following another. */
const factorOpenings = new Map<string, { name: string; pair: [Uint8Array, Uint8Array] }>()

function factorOpening(f: TreatedFactor, first: boolean): Uint8Array {
  // Keyed by the factor's key alone (a key and name joined would make a string a factor); a model
  // naming the factor differently encodes its own.
  let entry = factorOpenings.get(f.key)
  if (entry === undefined || entry.name !== f.factor) {
    const text = `{"key":${JSON.stringify(f.key)},"factor":${JSON.stringify(f.factor)},"contribution":`
    entry = { name: f.factor, pair: [bytesOf(`,"factors":[${text}`), bytesOf(`,${text}`)] }
    // Keyed by the models' factor keys, a fixed few.
    factorOpenings.set(f.key, entry)
  }
  return entry.pair[first ? 0 : 1]
}

function treatmentOf(h: HorizonPrediction): HorizonTreatment {
  if (!h.treatment) throw new Error('a treated prediction has a horizon without its treatment')
  return h.treatment
}

/** The block's numbers, in the order `writeTreatments` writes them. */
export function pushTreatmentNumbers(pending: number[], horizons: readonly HorizonPrediction[]): void {
  for (const h of horizons) {
    const t = treatmentOf(h)
    pending.push(t.untreatedSurvivalProbability, t.effectSd)
    for (const f of t.factors) pending.push(f.contribution, f.untreatedContribution)
  }
}

/** `,"treatments":{…}`, its numbers taken in turn from those `pushTreatmentNumbers` gave the encoder. */
export function writeTreatments(
  out: JsonEncoder,
  applied: AppliedTreatments,
  horizons: readonly HorizonPrediction[],
): void {
  out.writeBytes(opening(applied))
  for (let i = 0; i < horizons.length; i++) {
    const h = horizons[i] as HorizonPrediction
    const t = treatmentOf(h)
    out.writeBytes(horizonOpening(h.horizonYears, i === 0))
    out.writeNumber()
    out.writeBytes(EFFECT_SD)
    out.writeNumber()
    if (t.factors.length === 0) {
      out.writeBytes(NO_FACTORS)
      continue
    }
    for (let k = 0; k < t.factors.length; k++) {
      const f = t.factors[k] as TreatedFactor
      out.writeBytes(factorOpening(f, k === 0))
      out.writeNumber()
      out.writeBytes(UNTREATED_CONTRIBUTION)
      out.writeNumber()
      out.writeBytes(FACTOR_END)
    }
    out.writeBytes(BLOCK_END)
  }
  out.writeBytes(BLOCK_END)
}
