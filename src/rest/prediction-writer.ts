import type { ClimateDeltas, ClimateProjection } from '../domain/climate.ts'
import { errorEnvelope } from '../domain/errors.ts'
import type { BatchItemResult, Prediction } from '../domain/prediction-types.ts'
import { type EncodedJson, encodedText, JsonEncoder } from '../http-body/json.ts'
import type { CalibrationShift, FactorContribution, HorizonPrediction, ModelInfo, Species } from '../types.ts'
import { calibrationJson, climateProjectionJson, RISK_FACTORS_SHOWN } from './responses.ts'
import { pushTreatmentNumbers, writeTreatments } from './treatments-writer.ts'

/*
 * The /v1 prediction answer written straight to UTF-8 bytes, byte for byte what
 * JSON.stringify(predictionJson(p)) gives (property tests hold the two equal): the fixed pieces and the
 * names that repeat (region, species, method, factors, model, the batch's timestamp) are encoded once,
 * and the numbers of an answer are printed by one JSON.stringify and copied out of it. No object tree per
 * prediction, no string per piece, no string of the whole answer to flatten and encode again.
 */

const bytesOf = (text: string): Uint8Array => Buffer.from(text)
const quoted = (value: string): string => JSON.stringify(value)

const SITE_LATITUDE = '{"site":{"latitude":'
const ANSWER_OPENING = bytesOf(SITE_LATITUDE)
const ITEM_OPENING = bytesOf('{"index":')
const ITEM_ANSWER_OPENING = bytesOf(`,"prediction":${SITE_LATITUDE}`)
const LONGITUDE = bytesOf(',"longitude":')
const MATCHED_LATITUDE = bytesOf(',"matched_latitude":')
const MATCHED_LONGITUDE = bytesOf(',"matched_longitude":')
const MATCH_DISTANCE = bytesOf(',"match_distance_km":')
const NO_FACTORS = bytesOf(',"risk_factors":[]}')
const FACTORS_END = bytesOf('}]}')
const CLIMATE_PROJECTED = [
  bytesOf('{"annual_precip_mm":'),
  bytesOf(',"summer_water_deficit_mm":'),
  bytesOf(',"growing_season_frost_days":'),
  bytesOf(',"thermal_elevation_m":'),
]
const CLIMATE_END = bytesOf('}}')
const BATCH_START = bytesOf('{"results":[')
const COMMA = bytesOf(',')
const BATCH_END = bytesOf(']}')
const EMPTY_BATCH = bytesOf('{"results":[]}')

/** What is cached per name is bounded, as a name can come from anywhere. */
const NAMES_HELD = 10_000

function held<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key)
  if (value === undefined) {
    value = make()
    if (map.size < NAMES_HELD) map.set(key, value)
  }
  return value
}

/**
 * `,"region":…},"species_code":…,"species_common_name":…,"planting_method":…,"predictions":[`, per
 * species object, method and region: the names of an answer, one piece.
 */
const namesBySpecies = new WeakMap<Species, Map<string, Map<string, Uint8Array>>>()

function namesOf(p: Prediction): Uint8Array {
  let byMethod = namesBySpecies.get(p.species)
  if (byMethod === undefined) {
    byMethod = new Map()
    namesBySpecies.set(p.species, byMethod)
  }
  const byRegion = held(byMethod, p.plantingMethod, () => new Map<string, Uint8Array>())
  return held(byRegion, p.site.region, () =>
    bytesOf(
      `,"region":${quoted(p.site.region)}},"species_code":${quoted(p.species.code)},` +
        `"species_common_name":${quoted(p.species.commonName)},"planting_method":${quoted(p.plantingMethod)},` +
        '"predictions":[',
    ),
  )
}

/** `{"horizon_years":…,"survival_probability":`, first and following, per horizon. */
const horizonOpenings = new Map<number, [Uint8Array, Uint8Array]>()

function horizonOpening(horizonYears: number, first: boolean): Uint8Array {
  const openings = held(horizonOpenings, horizonYears, () => {
    const opening = `{"horizon_years":${JSON.stringify(horizonYears)},"survival_probability":`
    return [bytesOf(opening), bytesOf(`,${opening}`)]
  })
  return openings[first ? 0 : 1] as Uint8Array
}

/**
 * `…"factor":…,"impact":…,"magnitude":` per factor name and impact: the first of a horizon opens its list
 * (`,"risk_factors":[{`), the others close the one before (`},{`).
 */
const factorOpenings = new Map<string, Uint8Array[]>()

function factorOpening(f: FactorContribution, first: boolean): Uint8Array {
  const openings = held(factorOpenings, f.factor, () =>
    (['positive', 'negative'] as const).flatMap((impact) => {
      const opening = `{"factor":${quoted(f.factor)},"impact":${quoted(impact)},"magnitude":`
      return [bytesOf(`,"risk_factors":[${opening}`), bytesOf(`},${opening}`)]
    }),
  )
  return openings[(f.impact === 'positive' ? 0 : 2) + (first ? 0 : 1)] as Uint8Array
}

/**
 * `,"model":…` per model (one frozen object each: calibrated versions have their own), after the
 * predictions' closing `]` or not.
 */
const modelTexts = new WeakMap<ModelInfo, [Uint8Array, Uint8Array]>()

function modelText(model: ModelInfo, afterPredictions: boolean): Uint8Array {
  let pair = modelTexts.get(model)
  if (pair === undefined) {
    const { version, codename, series } = model
    const text = `,"model":${JSON.stringify({ version, codename, series })}`
    pair = [bytesOf(`]${text}`), bytesOf(text)]
    modelTexts.set(model, pair)
  }
  return pair[afterPredictions ? 0 : 1]
}

/**
 * `,"generated_at":…}` for the timestamp last written (the answers of one millisecond, a batch's items,
 * share it), closing a batch item after it or not: each encoded when first wanted.
 */
let lastStamp: { at: number; text: string; endings: (Uint8Array | undefined)[] } | undefined

function stampText(generatedAt: Date, inBatch: boolean): Uint8Array {
  const at = generatedAt.getTime()
  if (lastStamp?.at !== at)
    lastStamp = { at, text: `,"generated_at":${quoted(generatedAt.toISOString())}}`, endings: [] }
  const variant = inBatch ? 1 : 0
  let bytes = lastStamp.endings[variant]
  if (bytes === undefined) {
    bytes = bytesOf(inBatch ? `${lastStamp.text}}` : lastStamp.text)
    lastStamp.endings[variant] = bytes
  }
  return bytes
}

/** `,"calibration":{…}` per calibrated species × method (its shift object is made once per version). */
const calibrationTexts = new WeakMap<CalibrationShift, Uint8Array>()

function calibrationText(shift: CalibrationShift): Uint8Array {
  let text = calibrationTexts.get(shift)
  if (text === undefined) {
    text = bytesOf(`,"calibration":${JSON.stringify(calibrationJson(shift))}`)
    calibrationTexts.set(shift, text)
  }
  return text
}

const PREDICTIONS_END = bytesOf(']')

/** Everything of a climate block but the projected attributes, per future and zone (whose deltas object it is). */
const climateOpenings = new WeakMap<ClimateDeltas, Uint8Array>()

function climateOpening(c: ClimateProjection): Uint8Array {
  let opening = climateOpenings.get(c.deltas)
  if (opening === undefined) {
    const { projected: _projected, ...fixed } = climateProjectionJson(c)
    opening = bytesOf(`],"climate":${JSON.stringify(fixed).slice(0, -1)},"projected":`)
    climateOpenings.set(c.deltas, opening)
  }
  return opening
}

/**
 * The doubles of one answer, in the order they are written, printed by one JSON.stringify: String(x) per
 * double costs a runtime call and a number-string cache entry each, several times this.
 */
const pending: number[] = []

function printPending(): string {
  const numbers = JSON.stringify(pending)
  pending.length = 0
  return numbers
}

/** One answer; in a batch, as the `prediction` of the item opened before it, which it closes. */
function writePrediction(out: JsonEncoder, p: Prediction, inBatch: boolean): void {
  const s = p.site
  pending.push(s.latitude, s.longitude, s.matchedLatitude, s.matchedLongitude, s.matchDistanceKm)
  const shown: FactorContribution[][] = new Array(p.predictions.length)
  for (let h = 0; h < p.predictions.length; h++) {
    const horizon = p.predictions[h] as HorizonPrediction
    const factors = horizon.topContributions(RISK_FACTORS_SHOWN)
    shown[h] = factors
    pending.push(horizon.survivalProbability)
    for (let i = 0; i < factors.length; i++) pending.push((factors[i] as FactorContribution).magnitude)
  }
  const projected = p.climate?.projected
  if (projected)
    pending.push(
      projected.annualPrecipMm,
      projected.summerWaterDeficitMm,
      projected.growingSeasonFrostDays,
      projected.thermalElevationM,
    )
  if (p.treatments) pushTreatmentNumbers(pending, p.predictions)
  out.useNumbers(printPending())
  out.writeBytes(inBatch ? ITEM_ANSWER_OPENING : ANSWER_OPENING)
  out.writeNumber()
  out.writeBytes(LONGITUDE)
  out.writeNumber()
  out.writeBytes(MATCHED_LATITUDE)
  out.writeNumber()
  out.writeBytes(MATCHED_LONGITUDE)
  out.writeNumber()
  out.writeBytes(MATCH_DISTANCE)
  out.writeNumber()
  out.writeBytes(namesOf(p))
  for (let h = 0; h < shown.length; h++) {
    out.writeBytes(horizonOpening((p.predictions[h] as HorizonPrediction).horizonYears, h === 0))
    out.writeNumber()
    const factors = shown[h] as FactorContribution[]
    for (let i = 0; i < factors.length; i++) {
      out.writeBytes(factorOpening(factors[i] as FactorContribution, i === 0))
      out.writeNumber()
    }
    out.writeBytes(factors.length ? FACTORS_END : NO_FACTORS)
  }
  if (p.climate) {
    out.writeBytes(climateOpening(p.climate))
    for (const opening of CLIMATE_PROJECTED) {
      out.writeBytes(opening)
      out.writeNumber()
    }
    out.writeBytes(CLIMATE_END)
  }
  const shift = p.predictions[0]?.calibration
  if (shift) {
    if (!p.climate) out.writeBytes(PREDICTIONS_END)
    out.writeBytes(calibrationText(shift))
  }
  if (p.treatments) {
    if (!p.climate && !shift) out.writeBytes(PREDICTIONS_END)
    writeTreatments(out, p.treatments, p.predictions)
  }
  out.writeBytes(modelText(p.model, !p.climate && !shift && !p.treatments))
  out.writeBytes(stampText(p.generatedAt, inBatch))
}

/** The /v1/predict answer as text. */
export function predictionText(p: Prediction): string {
  return encodedText((out) => writePrediction(out, p, false))
}

function writeBatchItem(out: JsonEncoder, item: BatchItemResult): void {
  if (!item.ok) {
    out.write(JSON.stringify({ index: item.index, error: errorEnvelope(item.error).error }))
    return
  }
  out.writeBytes(ITEM_OPENING)
  out.writeCount(item.index)
  writePrediction(out, item.prediction, true)
}

/**
 * `{"results":[…]}`, each item written as it comes from the domain, so a 500-site batch never holds 500
 * predictions' worth of objects, nor one string of them all.
 */
export function batchResultsJson(results: Iterable<BatchItemResult>): EncodedJson {
  const out = new JsonEncoder()
  let first = true
  for (const result of results) {
    out.writeBytes(first ? BATCH_START : COMMA)
    writeBatchItem(out, result)
    first = false
  }
  out.writeBytes(first ? EMPTY_BATCH : BATCH_END)
  return out.finish()
}
