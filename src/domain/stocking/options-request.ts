import { PLANTING_METHODS, type PlantingMethod } from '../../types.ts'
import { resolvePlantingMethod } from '../catalogue.ts'
import { CLIMATE_FUTURES, type ClimateFuture, type ClimateRequest } from '../climate.ts'
import { invalidField } from '../errors.ts'
import { CONFIDENCE_MAX, CONFIDENCE_MIN, type StandInput } from '../input-rules.ts'
import type { AppliedTreatments } from '../treatment-types.ts'
import {
  TREATMENT_NAMES,
  TREATMENT_VALUES,
  type TreatmentName,
  type TreatmentsRequest,
} from '../treatment-values.ts'
import { TREATMENTS } from '../treatments.ts'
import { COSTS, type CostsRequest, type ResolvedCosts } from './costs.ts'
import { type CheckedShare, checkedMix, locationOf, type PlanLocation } from './plan-request.ts'
import { MAX_REQUIRED_TREES_PER_ACRE } from './stocking-math.ts'

/** Candidate mixes an options search may weigh at once. */
export const OPTIONS_MIXES_MAX = 10
/**
 * Candidates (mixes × methods × treatment combinations) one search may weigh: every method and every
 * combination of the treatments for one mix is 30 (24 by hand, 6 by drone).
 */
export const OPTIONS_CANDIDATES_MAX = 240
const DEFAULT_CONFIDENCE = 0.9

/** The treatment values an options search weighs, each list of one treatment's values; absent: the default. */
export interface TreatmentChoices {
  vegetationControl?: readonly string[] | null
  animalProtection?: readonly string[] | null
  stockType?: readonly string[] | null
  shade?: readonly string[] | null
}

const CHOICE_FIELD: Record<TreatmentName, keyof TreatmentChoices> = {
  vegetation_control: 'vegetationControl',
  animal_protection: 'animalProtection',
  stock_type: 'stockType',
  shade: 'shade',
}
const REQUEST_FIELD: Record<TreatmentName, keyof TreatmentsRequest> = CHOICE_FIELD

/** POST /v1/plans/options as asked for, the domain's names (the adapters map the contract's onto these). */
export interface PlantingOptionsRequest {
  latitude?: number | null
  longitude?: number | null
  stand?: StandInput | null
  /** One mix, or… */
  speciesMix?: readonly { speciesCode: string; share: number }[] | null
  /** …several candidate mixes (exactly one of the two). */
  speciesMixes?: readonly (readonly { speciesCode: string; share: number }[])[] | null
  confidence?: number | null
  /** The methods weighed; absent: both. */
  methods?: readonly string[] | null
  /** The treatment values weighed; absent: every value but a stock type (none named). */
  treatments?: TreatmentChoices | null
  costs?: CostsRequest | null
  /** The densest planting an option may ask for, trees (or pods) per acre; default 5,000. */
  maxTreesPerAcre?: number | null
  climate?: ClimateRequest | null
}

/** One way to plant: a mix, a method and the treatments (null: untreated). */
export interface Candidate {
  mixIndex: number
  mix: readonly CheckedShare[]
  method: PlantingMethod
  /** Every treatment's value (null where not named). */
  values: Readonly<Record<TreatmentName, string | null>>
  treatments: AppliedTreatments | null
  /** Its place in the search's order (mixes, then methods, then combinations): breaks ties. */
  order: number
}

export interface CheckedOptionsRequest {
  location: PlanLocation
  mixes: CheckedShare[][]
  methods: PlantingMethod[]
  climate: ClimateFuture | null
  candidates: Candidate[]
  confidence: number
  maxTreesPerAcre: number
  costs: ResolvedCosts
}

/**
 * Checks an options request before anything is looked up, and reports the first field that fails, in
 * this order: the location, the mixes, the methods, the climate, the treatments, the confidence, the
 * density ceiling, the costs, then the number of candidates they make.
 */
export function checkedOptionsRequest(request: PlantingOptionsRequest): CheckedOptionsRequest {
  const location = locationOf(request)
  const mixes = checkedMixes(request)
  const methods = checkedMethods(request.methods)
  const climate = CLIMATE_FUTURES.resolve(request.climate)
  const combinations = treatmentCombinations(request.treatments)
  const confidence = request.confidence ?? DEFAULT_CONFIDENCE
  if (!(confidence >= CONFIDENCE_MIN && confidence <= CONFIDENCE_MAX))
    throw invalidField('confidence', `must be from ${CONFIDENCE_MIN} to ${CONFIDENCE_MAX}`)
  const maxTreesPerAcre = request.maxTreesPerAcre ?? MAX_REQUIRED_TREES_PER_ACRE
  if (
    !(
      Number.isInteger(maxTreesPerAcre) &&
      maxTreesPerAcre >= 1 &&
      maxTreesPerAcre <= MAX_REQUIRED_TREES_PER_ACRE
    )
  )
    throw invalidField('maxTreesPerAcre', `must be a whole number from 1 to ${MAX_REQUIRED_TREES_PER_ACRE}`)
  const costs = COSTS.resolve(request.costs)

  // Each method takes the combinations it can (drone seeding: vegetation control alone).
  const byMethod = methods.map((method) => ({
    method,
    combinations: combinations.flatMap((values) => {
      const treatments = applicable(values, method)
      return treatments === undefined ? [] : [{ values, treatments }]
    }),
  }))
  const perMix = byMethod.reduce((sum, m) => sum + m.combinations.length, 0)
  if (perMix === 0) {
    // Only when every combination holds a treatment the one method weighed cannot take: say which.
    TREATMENTS.resolve(
      treatmentsRequest(combinations[0] as Record<TreatmentName, string | null>),
      methods[0] as PlantingMethod,
    )
    throw invalidField('treatments', 'no combination weighed applies to the methods weighed')
  }
  const count = mixes.length * perMix
  if (count > OPTIONS_CANDIDATES_MAX)
    throw invalidField(
      'treatments',
      `make ${count} candidates (${mixes.length} mixes × ${byMethod.map((m) => `${m.combinations.length} ${m.method}`).join(' + ')} combinations); at most ${OPTIONS_CANDIDATES_MAX}: weigh fewer mixes, methods or treatment values`,
    )
  const candidates: Candidate[] = []
  mixes.forEach((mix, mixIndex) => {
    for (const { method, combinations: applicableCombinations } of byMethod) {
      for (const { values, treatments } of applicableCombinations)
        candidates.push({ mixIndex, mix, method, values, treatments, order: candidates.length })
    }
  })
  return { location, mixes, methods, climate, candidates, confidence, maxTreesPerAcre, costs }
}

function checkedMixes(request: PlantingOptionsRequest): CheckedShare[][] {
  if (request.speciesMix != null && request.speciesMixes != null)
    throw invalidField('speciesMixes', 'is given with speciesMix; send one or the other')
  if (request.speciesMix != null) return [checkedMix(request.speciesMix)]
  if (request.speciesMixes == null) throw invalidField('speciesMix', 'is required (or send speciesMixes)')
  const mixes = request.speciesMixes
  if (mixes.length === 0) throw invalidField('speciesMixes', 'must hold at least one mix')
  if (mixes.length > OPTIONS_MIXES_MAX)
    throw invalidField('speciesMixes', `may hold at most ${OPTIONS_MIXES_MAX} mixes`)
  return mixes.map((mix, i) => checkedMix(mix, `speciesMixes[${i}]`))
}

function checkedMethods(methods: readonly string[] | null | undefined): PlantingMethod[] {
  if (methods == null) return [...PLANTING_METHODS]
  if (methods.length === 0) throw invalidField('methods', 'must hold at least one method')
  const checked = methods.map((method) => resolvePlantingMethod(method))
  checked.forEach((method, i) => {
    if (checked.indexOf(method) !== i)
      throw invalidField(`methods[${i}]`, `repeats ${method}; list each method once`)
  })
  // Weighed in the catalogue's order, whatever the order asked: the answer does not depend on it.
  return PLANTING_METHODS.filter((method) => checked.includes(method))
}

/** Every combination of the values weighed, each treatment's values in the order the API lists them. */
function treatmentCombinations(
  choices: TreatmentChoices | null | undefined,
): Record<TreatmentName, string | null>[] {
  const lists = TREATMENT_NAMES.map((name) => {
    const asked = choices?.[CHOICE_FIELD[name]]
    const all = TREATMENT_VALUES[name] as readonly string[]
    if (asked == null) return name === 'stock_type' ? [null] : [...all]
    if (asked.length === 0) throw invalidField(`treatments.${name}`, 'must hold at least one value')
    asked.forEach((value, i) => {
      if (!all.includes(value))
        throw invalidField(`treatments.${name}[${i}]`, `must be one of ${all.join(', ')}`)
      if (asked.indexOf(value) !== i)
        throw invalidField(`treatments.${name}[${i}]`, `repeats ${value}; list each value once`)
    })
    return all.filter((value) => asked.includes(value))
  })
  let combinations: Record<TreatmentName, string | null>[] = [{} as Record<TreatmentName, string | null>]
  TREATMENT_NAMES.forEach((name, k) => {
    const values = lists[k] as (string | null)[]
    combinations = combinations.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })))
  })
  return combinations
}

function treatmentsRequest(values: Record<TreatmentName, string | null>): TreatmentsRequest {
  const request: TreatmentsRequest = {}
  for (const name of TREATMENT_NAMES) request[REQUEST_FIELD[name]] = values[name]
  return request
}

/** A combination resolved for a method: null when it changes nothing, undefined when the method cannot take it. */
function applicable(
  values: Record<TreatmentName, string | null>,
  method: PlantingMethod,
): AppliedTreatments | null | undefined {
  try {
    return TREATMENTS.resolve(treatmentsRequest(values), method)
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'invalid_treatment') return undefined
    throw error
  }
}
