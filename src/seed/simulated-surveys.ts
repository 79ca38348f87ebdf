import { SPECIES } from '../domain/species.ts'
import { SURVEY_PLOTS_PER_CALL } from '../domain/surveys/survey-plot.ts'
import { survivalAtAge } from '../domain/surveys/survival-at-age.ts'
import { isInCoverage } from '../geo/coverage.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { isInNativeRange } from '../model/native-range.ts'
import {
  HORIZONS,
  PLANTING_METHODS,
  type PlantingMethod,
  type Site,
  type Species,
  type SurvivalModel,
} from '../types.ts'
import { generateSites } from './generate-sites.ts'
import { createRandom, type SurveyTruth, simulateSurvey, truthKey } from './survey-simulation.ts'

/**
 * Survey plots of the synthetic sites drawn from a stated truth (`npm run surveys:simulate`), for
 * anyone to try POST /v1/surveys and its report with data whose answer is known: each plot stands at a
 * synthetic site (its coordinates, so the API matches it to that site at 0 km), plants a species native
 * there by either method, and counts the trees alive by survey-simulation.ts from the model's survival
 * at the plot's age shifted by the stated offsets and effects. One plot at a time: a million plots
 * never sit in memory. The same seed and truth give the same plots, and the first n plots of a longer
 * run are the plots of a run of n.
 */

export const SIMULATED_PLOTS_MIN = 1
export const SIMULATED_PLOTS_MAX = 1_000_000
export const SIMULATED_PLOTS_DEFAULT = 1_000
export const SIMULATION_SEED_DEFAULT = 1
/** xoroshiro128+ is seeded from 32 bits; non-negative ones keep one seed per stream. */
export const SIMULATION_SEED_MAX = 2 ** 31 - 1

export const SIMULATED_PLANTING_YEARS: readonly number[] = [
  2015, 2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023,
]
/** No survey is dated after this day. */
export const SIMULATED_SURVEYS_UNTIL = '2026-06-30'
export const SIMULATED_AGE_YEARS = { min: 0.5, max: 8 } as const
export const SIMULATED_PLANTED = { min: 20, max: 200 } as const
/** The plots' own spread and the trees' clumping: noise of every simulated survey, stated in its summary. */
export const SIMULATED_PLOT_EFFECT_SD = 0.2
export const SIMULATED_CLUMPING = 0.03
export const SIMULATED_PROTOCOL = 'simulated'
/** The largest logit shift `--truth` takes (±5 moves survival 0.5 to 0.007 or 0.993). */
export const TRUTH_SHIFT_MAX = 5

/** What the simulated plots are drawn from, besides the model: logit shifts from its prediction. */
export interface StatedTruth {
  /** Keyed by `truthKey(species, method)`. */
  offsets: Readonly<Record<string, number>>
  /** Keyed by planting year. */
  plantingYearEffects: Readonly<Record<number, number>>
}

export const NO_SHIFT: StatedTruth = { offsets: {}, plantingYearEffects: {} }

export interface SimulationOptions {
  plots: number
  seed: number
  truth: StatedTruth
}

/** The synthetic sites a plot may stand at, the model and the species catalogue. */
export interface SimulationWorld {
  sites: readonly Site[]
  model: SurvivalModel
  species: readonly Species[]
}

/** One simulated plot: the fields of POST /v1/surveys, and the truth behind its counts. */
export interface SimulatedSurveyPlot {
  plotId: string
  latitude: number
  longitude: number
  speciesCode: string
  plantingMethod: PlantingMethod
  plantedOn: string
  surveyedOn: string
  planted: number
  alive: number
  protocol: string
  siteId: number
  ageYears: number
  /** The model's survival at the plot's age, as the API predicts it when the plot is stored. */
  predicted: number
  /** The plot's survival before the counts' clumping: the prediction shifted by the truth. */
  trueSurvival: number
}

/**
 * The synthetic sites (generate-sites.ts, the data set the store is seeded with) where a prediction
 * exists: inside coverage (each is then its own nearest data site) with every species and method scored.
 */
export function simulationWorld(species: readonly Species[] = SPECIES): SimulationWorld {
  return {
    sites: generateSites().filter((s) => isInCoverage(s.latitude, s.longitude)),
    model: loadSurvivalModel(species),
    species,
  }
}

const DAY_MS = 86_400_000
const DAYS_PER_YEAR = 365.25
/** survey-simulation.ts plants from 1 February over 90 days (days 0–89). */
const LAST_PLANTING_DAY = 89

/**
 * The oldest age a plot planted in `year` may be surveyed at and still be surveyed by
 * SIMULATED_SURVEYS_UNTIL, whatever its planting day: whole days, as the simulator rounds.
 */
function maxAgeYears(year: number): number {
  const latestPlanting = Date.UTC(year, 1, 1) + LAST_PLANTING_DAY * DAY_MS
  const days = Math.floor((Date.parse(SIMULATED_SURVEYS_UNTIL) - latestPlanting) / DAY_MS)
  return Math.min(SIMULATED_AGE_YEARS.max, days / DAYS_PER_YEAR)
}

/** A probability the store keeps, as survey-service.ts clamps the prediction of a plot. */
function openUnit(p: number): number {
  return Math.min(1 - 1e-12, Math.max(1e-12, p))
}

export function simulatedPlotId(index: number): string {
  return `sim-${String(index).padStart(6, '0')}`
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T
}

/** `options.plots` plots, one at a time, numbered sim-000001 on. */
export function* simulatedSurveyPlots(
  options: SimulationOptions,
  world: SimulationWorld = simulationWorld(),
): Generator<SimulatedSurveyPlot> {
  const { plots, seed } = options
  if (!(Number.isInteger(plots) && plots >= 0))
    throw new RangeError(`plots must be a whole number, got ${plots}`)
  if (world.sites.length === 0) throw new RangeError('no site to put a plot on')
  const random = createRandom(seed)
  const truth: SurveyTruth = {
    offsets: options.truth.offsets,
    plantingYearEffects: options.truth.plantingYearEffects,
    plotEffectSd: SIMULATED_PLOT_EFFECT_SD,
    clumping: SIMULATED_CLUMPING,
  }
  const ageLimits = new Map(SIMULATED_PLANTING_YEARS.map((year) => [year, maxAgeYears(year)]))
  // The species a plot at each site may plant: those native there, or any when none is.
  const speciesAt: (readonly Species[] | undefined)[] = new Array(world.sites.length)
  for (let index = 1; index <= plots; index++) {
    const siteIndex = Math.floor(random() * world.sites.length)
    const site = world.sites[siteIndex] as Site
    let candidates = speciesAt[siteIndex]
    if (!candidates) {
      const native = world.species.filter((species) => isInNativeRange(species, site))
      candidates = native.length > 0 ? native : world.species
      speciesAt[siteIndex] = candidates
    }
    const species = pick(random, candidates)
    const plantingMethod = pick(random, PLANTING_METHODS)
    const year = pick(random, SIMULATED_PLANTING_YEARS)
    const horizons = world.model.predict(site, species, plantingMethod, HORIZONS)
    const at = (h: 1 | 3 | 5) => horizons.find((p) => p.horizonYears === h)?.survivalProbability ?? Number.NaN
    const survival = { 1: at(1), 3: at(3), 5: at(5) }
    const [plot] = simulateSurvey(
      random,
      {
        sites: [
          {
            speciesCode: species.code,
            plantingMethod,
            predictedAt: (age) => openUnit(survivalAtAge(survival, age)),
          },
        ],
        plotsPerSite: 1,
        planted: SIMULATED_PLANTED,
        plantingYears: [year],
        ageYears: { min: SIMULATED_AGE_YEARS.min, max: ageLimits.get(year) as number },
      },
      truth,
    )
    if (!plot) throw new Error('the simulator made no plot')
    yield {
      plotId: simulatedPlotId(index),
      latitude: site.latitude,
      longitude: site.longitude,
      speciesCode: species.code,
      plantingMethod,
      plantedOn: plot.plantedOn,
      surveyedOn: plot.surveyedOn,
      planted: plot.planted,
      alive: plot.alive,
      protocol: SIMULATED_PROTOCOL,
      siteId: site.id,
      ageYears: plot.ageYears,
      predicted: plot.predicted,
      trueSurvival: plot.trueSurvival,
    }
  }
}

/**
 * `--truth`: comma-separated `SPECIES:method=shift` (a species × method offset) and `YYYY=shift`
 * (the effect of a planting year), each a logit shift from the model; absent ones are 0.
 * Throws a RangeError saying what is wrong.
 */
export function parseTruth(text: string, species: readonly Species[] = SPECIES): StatedTruth {
  const offsets: Record<string, number> = {}
  const plantingYearEffects: Record<number, number> = {}
  const codes = species.map((s) => s.code)
  const years = SIMULATED_PLANTING_YEARS
  const entries = text.split(',').map((entry) => entry.trim())
  if (entries.every((entry) => entry === '')) throw new RangeError('is empty')
  for (const entry of entries) {
    const match = /^([^=]+)=(.*)$/.exec(entry)
    if (!match)
      throw new RangeError(`"${entry}" is not SPECIES:method=shift or YYYY=shift (e.g. PSME:manual=-0.5)`)
    const key = (match[1] as string).trim()
    const valueText = (match[2] as string).trim()
    const value = Number(valueText)
    if (valueText === '' || !Number.isFinite(value) || Math.abs(value) > TRUTH_SHIFT_MAX)
      throw new RangeError(
        `"${entry}": the shift must be a number from -${TRUTH_SHIFT_MAX} to ${TRUTH_SHIFT_MAX} (logit scale)`,
      )
    if (/^\d{4}$/.test(key)) {
      const year = Number(key)
      if (!years.includes(year))
        throw new RangeError(`"${entry}": plots are planted from ${years[0]} to ${years.at(-1)}`)
      if (year in plantingYearEffects) throw new RangeError(`"${key}" is given twice`)
      plantingYearEffects[year] = value
      continue
    }
    const [code = '', method = '', ...rest] = key.split(':')
    if (rest.length > 0 || !codes.includes(code) || !(PLANTING_METHODS as readonly string[]).includes(method))
      throw new RangeError(
        `"${key}" is not SPECIES:method with SPECIES one of ${codes.join(', ')} and method ${PLANTING_METHODS.join(' or ')}`,
      )
    const offsetKey = truthKey(code, method as PlantingMethod)
    if (offsetKey in offsets) throw new RangeError(`"${key}" is given twice`)
    offsets[offsetKey] = value
  }
  return { offsets, plantingYearEffects }
}

const signed = (value: number) => (value > 0 ? `+${value}` : `${value}`)

/** The truth in one line, for the summary: `--truth`'s own syntax and the noise of every plot. */
export function describeTruth(truth: StatedTruth): string {
  const offsets = Object.entries(truth.offsets)
    .map(([key, value]) => `${key.replace('/', ':')}=${signed(value)}`)
    .join(',')
  const years = Object.entries(truth.plantingYearEffects)
    .map(([year, value]) => `${year}=${signed(value)}`)
    .join(',')
  return [
    `offsets ${offsets || 'none'}`,
    `planting-year effects ${years || 'none'}`,
    `plot effect SD ${SIMULATED_PLOT_EFFECT_SD}`,
    `clumping ρ ${SIMULATED_CLUMPING}`,
  ].join('; ')
}

export const SURVEY_FILE_FORMATS = ['csv', 'ndjson', 'json'] as const
export type SurveyFileFormat = (typeof SURVEY_FILE_FORMATS)[number]

/** The most plots `json` writes: one POST /v1/surveys body. */
export const JSON_PLOTS_MAX = SURVEY_PLOTS_PER_CALL

/** The format a file name's extension says (`.csv`, `.ndjson`, `.json`); null for any other. */
export function surveyFileFormatOf(path: string): SurveyFileFormat | null {
  const extension = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase()
  return (SURVEY_FILE_FORMATS as readonly string[]).includes(extension ?? '')
    ? (extension as SurveyFileFormat)
    : null
}

/** The columns of a CSV file, the fields of a plot of POST /v1/surveys (docs/surveys.md). */
export const SURVEY_FILE_COLUMNS = [
  'plot_id',
  'latitude',
  'longitude',
  'species_code',
  'planting_method',
  'planted_on',
  'surveyed_on',
  'planted',
  'alive',
  'protocol',
] as const

/** A plot under the contract's names, in the columns' order. */
export function surveyPlotRecord(
  plot: SimulatedSurveyPlot,
): Record<(typeof SURVEY_FILE_COLUMNS)[number], string | number> {
  return {
    plot_id: plot.plotId,
    latitude: plot.latitude,
    longitude: plot.longitude,
    species_code: plot.speciesCode,
    planting_method: plot.plantingMethod,
    planted_on: plot.plantedOn,
    surveyed_on: plot.surveyedOn,
    planted: plot.planted,
    alive: plot.alive,
    protocol: plot.protocol,
  }
}

/** One CSV line: no field of a simulated plot holds a comma, a quote or a line break. */
function csvLine(plot: SimulatedSurveyPlot): string {
  return `${plot.plotId},${plot.latitude},${plot.longitude},${plot.speciesCode},${plot.plantingMethod},${plot.plantedOn},${plot.surveyedOn},${plot.planted},${plot.alive},${plot.protocol}\n`
}

/** Plots per chunk of text handed to the writer (about 50 kB of CSV). */
const PLOTS_PER_CHUNK = 500

/**
 * The file's text in chunks as the plots come: CSV with a header line, NDJSON one plot a line, or JSON
 * `{"plots": [...]}`, one plot a line, the body of POST /v1/surveys.
 */
export function* surveyFileChunks(
  plots: Iterable<SimulatedSurveyPlot>,
  format: SurveyFileFormat,
): Generator<string> {
  let chunk =
    format === 'csv' ? `${SURVEY_FILE_COLUMNS.join(',')}\n` : format === 'json' ? '{"plots":[\n' : ''
  let inChunk = 0
  let first = true
  for (const plot of plots) {
    if (format === 'csv') chunk += csvLine(plot)
    else if (format === 'ndjson') chunk += `${JSON.stringify(surveyPlotRecord(plot))}\n`
    else chunk += `${first ? '' : ',\n'}${JSON.stringify(surveyPlotRecord(plot))}`
    first = false
    if (++inChunk === PLOTS_PER_CHUNK) {
      yield chunk
      chunk = ''
      inChunk = 0
    }
  }
  if (format === 'json') chunk += '\n]}\n'
  if (chunk !== '') yield chunk
}
