import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { SiteAttributeFields } from '../model/site-attribute-fields.ts'
import { projectFile } from '../project-files.ts'
import { FOREST_ZONES, type ForestZone, type Site } from '../types.ts'
import { apiError } from './errors.ts'

const CLIMATE_FILE = projectFile('data/climate_futures.json')

export const BASELINE_PERIOD = '1991_2020'

/** Said wherever the climate data surface: what the numbers are, and what they are not for. */
export const CLIMATE_DATA_NOTE =
  'Deltas are a rounded synthesis of published projections (Oregon Climate Assessments, UW Climate Impacts Group, ClimateNA-style water deficit), applied to synthetic sites; not for real planting decisions'
export const FUTURE_PERIODS = ['2011-2040', '2041-2070', '2071-2100'] as const
export const CLIMATE_PERIODS = [BASELINE_PERIOD, ...FUTURE_PERIODS] as const
export const EMISSION_SCENARIOS = ['ssp245', 'ssp370', 'ssp585'] as const
export type FuturePeriod = (typeof FUTURE_PERIODS)[number]
export type EmissionScenario = (typeof EMISSION_SCENARIOS)[number]

/** A climate as asked for: the identifiers of the Seedlot Selection Tool, checked here. */
export interface ClimateRequest {
  period?: string | null
  scenario?: string | null
}

/** A future climate: a period after the baseline under one emission scenario. */
export interface ClimateFuture {
  period: FuturePeriod
  scenario: EmissionScenario
}

/** Change of a site's climate against 1991–2020 (the reference's variables). */
export interface ClimateDeltas {
  /** Mean annual temperature, °C. */
  meanAnnualTemperatureC: number
  /** Mean summer daily maximum temperature, °C. */
  summerMaxTemperatureC: number
  /** Annual precipitation, percent of the site's. */
  annualPrecipitationPct: number
  /** Summer precipitation, percent. */
  summerPrecipitationPct: number
  /** Summer water deficit, mm added to the site's. */
  waterDeficitMm: number
}

/** The attributes of a site that a climate changes, as the model sees them under it. */
export interface ProjectedAttributes {
  annualPrecipMm: number
  summerWaterDeficitMm: number
  growingSeasonFrostDays: number
  /**
   * The elevation at which today's climate matches the site's future one: the species' thermal band
   * moves upslope as it warms, so the elevation-range check sees the site this much lower.
   */
  thermalElevationM: number
}

/** What a climate did to one site: the deltas applied there and the attributes that resulted. */
export interface ClimateProjection extends ClimateFuture {
  dataVersion: string
  deltas: ClimateDeltas
  projected: ProjectedAttributes
}

interface ReferenceDeltas {
  d_mat_c: number
  d_tmax_summer_c: number
  d_precip_annual_pct: number
  d_precip_summer_pct: number
  d_cmd_mm: number
}

interface ZoneAdjustment {
  add_c_to_temperatures: number
  cmd_multiplier: number
  add_pct_points_to_precip_annual: number
}

interface ClimateReference {
  description: string
  baseline_period: string
  identifiers: { periods: string[]; scenarios: string[]; note: string }
  variables: Record<string, string>
  west: { zones: string[]; deltas: Record<FuturePeriod, Record<EmissionScenario, ReferenceDeltas>> }
  zone_adjustments: Record<string, ZoneAdjustment | string>
  method: string[]
  modelling_suggestions: Record<string, string>
  anchors: { what: string; source: string }[]
}

/** Lapse rate of the standard atmosphere: 6.5 °C per km, so +1 °C is like standing ~154 m lower. */
const METRES_PER_DEGREE = 1000 / 6.5
/** Growing-season frost days fall by this share per °C of mean annual warming (an assumption). */
const FROST_DAYS_LOST_PER_DEGREE = 0.12

const NO_ADJUSTMENT: ZoneAdjustment = {
  add_c_to_temperatures: 0,
  cmd_multiplier: 1,
  add_pct_points_to_precip_annual: 0,
}

/**
 * The climate futures of the reference (data/climate_futures.json): the periods and emission
 * scenarios of the Seedlot Selection Tool, the change of site climate by zone, and how a site is
 * projected into one of them. Every delta is worked out once, at start.
 */
export class ClimateFutures {
  /** `climate-synthesis-` and the first 12 hex digits of the data file's SHA-256. */
  readonly dataVersion: string
  /** Period → scenario → zone: plain lookups, since a survival map projects every site. */
  private readonly deltasTable = {} as Record<
    FuturePeriod,
    Record<EmissionScenario, Record<ForestZone, ClimateDeltas>>
  >
  private view: ClimateCatalogueView | undefined

  constructor(
    private readonly reference: ClimateReference,
    fileText: string,
  ) {
    this.dataVersion = `climate-synthesis-${createHash('sha256').update(fileText).digest('hex').slice(0, 12)}`
    for (const period of FUTURE_PERIODS) {
      this.deltasTable[period] = {} as Record<EmissionScenario, Record<ForestZone, ClimateDeltas>>
      for (const scenario of EMISSION_SCENARIOS) {
        const byZone = {} as Record<ForestZone, ClimateDeltas>
        this.deltasTable[period][scenario] = byZone
        const west = reference.west.deltas[period]?.[scenario]
        if (!west) throw new Error(`climate_futures.json has no deltas for ${period} ${scenario}`)
        for (const zone of FOREST_ZONES) {
          const adjustment = reference.west.zones.includes(zone)
            ? NO_ADJUSTMENT
            : (reference.zone_adjustments[zone] as ZoneAdjustment | undefined)
          if (!adjustment) throw new Error(`climate_futures.json has no adjustment for zone ${zone}`)
          byZone[zone] = adjusted(west, adjustment)
        }
      }
    }
  }

  static load(): ClimateFutures {
    const text = readFileSync(CLIMATE_FILE, 'utf8')
    return new ClimateFutures(JSON.parse(text) as ClimateReference, text)
  }

  /**
   * The future a request names, or null for today's climate (no climate, or the baseline period
   * alone). Unknown identifiers, a future period without a scenario, or the baseline with one are
   * `invalid_climate`.
   */
  resolve(request: ClimateRequest | null | undefined): ClimateFuture | null {
    if (!request) return null
    const { period, scenario } = request
    if ((period === undefined || period === null) && (scenario === undefined || scenario === null))
      return null
    if (period === BASELINE_PERIOD && (scenario === undefined || scenario === null)) return null
    const knownPeriod = (FUTURE_PERIODS as readonly unknown[]).includes(period)
    const knownScenario = (EMISSION_SCENARIOS as readonly unknown[]).includes(scenario)
    if (knownPeriod && knownScenario)
      return { period: period as FuturePeriod, scenario: scenario as EmissionScenario }
    throw invalidClimate(request, this.problem(request))
  }

  private problem(request: ClimateRequest): string {
    const { period, scenario } = request
    if (period === undefined || period === null) return 'period is required with a scenario'
    if (period === BASELINE_PERIOD) return `the baseline period ${BASELINE_PERIOD} takes no scenario`
    if (!(FUTURE_PERIODS as readonly unknown[]).includes(period))
      return `period ${JSON.stringify(period)} is not one of the periods`
    if (scenario === undefined || scenario === null) return `the future period ${period} needs a scenario`
    return `scenario ${JSON.stringify(scenario)} is not one of the scenarios`
  }

  /** The periods, scenarios and deltas by zone, with the data's version and sources. */
  describe(): ClimateCatalogueView {
    this.view ??= {
      baselinePeriod: BASELINE_PERIOD,
      periods: CLIMATE_PERIODS,
      scenarios: EMISSION_SCENARIOS.map((id) => ({ id, name: SCENARIO_NAMES[id] })),
      deltas: FUTURE_PERIODS.flatMap((period) =>
        EMISSION_SCENARIOS.flatMap((scenario) =>
          FOREST_ZONES.map((zone) => ({
            period,
            scenario,
            zone,
            ...this.deltasAt({ period, scenario }, zone),
          })),
        ),
      ),
      dataVersion: this.dataVersion,
      description: this.reference.description,
      method: this.reference.method,
      sources: this.reference.anchors,
    }
    return this.view
  }

  /** The deltas of a future at a zone, after the zone's adjustment. */
  deltasAt(future: ClimateFuture, zone: ForestZone): ClimateDeltas {
    return this.deltasTable[future.period][future.scenario][zone]
  }

  /**
   * The site as the model sees it under a future climate (see docs/model-card.md → climate): annual
   * precipitation scaled, summer water deficit added, growing-season frost days reduced, and the
   * elevation lowered by the warming's worth of lapse rate for the species' thermal band. Everything
   * else is the site as it is.
   */
  project(site: Site, future: ClimateFuture): { site: Site; projection: ClimateProjection } {
    const deltas = this.deltasAt(future, site.zone)
    const projected = projectedAttributes(site, deltas)
    return {
      site: new ProjectedSite().set(site, projected),
      projection: {
        period: future.period,
        scenario: future.scenario,
        dataVersion: this.dataVersion,
        deltas,
        projected,
      },
    }
  }

  /**
   * The projected site alone, written into `into` (a new one by default): a survival map projects every
   * site, one at a time, into one object it reuses, and shows no projection.
   */
  projectSite(site: Site, future: ClimateFuture, into = new ProjectedSite()): Site {
    return into.set(site, projectedAttributes(site, this.deltasAt(future, site.zone)))
  }
}

/** Rounded before the model sees them, so the attributes an answer shows are the ones evaluated. */
function projectedAttributes(site: Site, deltas: ClimateDeltas): ProjectedAttributes {
  const warming = deltas.meanAnnualTemperatureC
  return {
    annualPrecipMm: Math.round(site.annualPrecipMm * (1 + deltas.annualPrecipitationPct / 100) * 10) / 10,
    summerWaterDeficitMm:
      Math.round(Math.max(0, site.summerWaterDeficitMm + deltas.waterDeficitMm) * 10) / 10,
    growingSeasonFrostDays:
      Math.round(site.growingSeasonFrostDays * Math.max(0, 1 - FROST_DAYS_LOST_PER_DEGREE * warming) * 100) /
      100,
    thermalElevationM: Math.round((site.elevationM - METRES_PER_DEGREE * warming) * 10) / 10,
  }
}

/**
 * A site under a future climate. A class of its own, not a literal of the Site shape: the projected
 * attributes are fractions where a stored site's are often whole numbers, and an object of the stored
 * sites' shape holding a fraction would change that shape's field layout, which V8 then migrates site
 * by site (every site a survival map holds, on its first call under a climate).
 */
export class ProjectedSite extends SiteAttributeFields implements Site {
  id = 0
  latitude = Number.NaN
  longitude = Number.NaN
  regionId = ''

  /** This object becomes `site` with the projected attributes; returns itself. */
  set(site: Site, projected: ProjectedAttributes): this {
    this.id = site.id
    this.latitude = site.latitude
    this.longitude = site.longitude
    this.regionId = site.regionId
    this.zone = site.zone
    this.state = site.state
    this.elevationM = projected.thermalElevationM
    this.slopeDeg = site.slopeDeg
    this.aspectDeg = site.aspectDeg
    this.heatLoadIndex = site.heatLoadIndex
    this.soilDepthCm = site.soilDepthCm
    this.rockFractionPct = site.rockFractionPct
    this.vegetationCoverPct = site.vegetationCoverPct
    this.annualPrecipMm = projected.annualPrecipMm
    this.summerWaterDeficitMm = projected.summerWaterDeficitMm
    this.growingSeasonFrostDays = projected.growingSeasonFrostDays
    this.browsePressureIndex = site.browsePressureIndex
    return this
  }
}

/** The west's deltas after a zone's adjustment, rounded as the reference rounds (no float residue). */
function adjusted(west: ReferenceDeltas, adjustment: ZoneAdjustment): ClimateDeltas {
  return {
    meanAnnualTemperatureC: round(west.d_mat_c + adjustment.add_c_to_temperatures, 2),
    summerMaxTemperatureC: round(west.d_tmax_summer_c + adjustment.add_c_to_temperatures, 2),
    annualPrecipitationPct: round(west.d_precip_annual_pct + adjustment.add_pct_points_to_precip_annual, 2),
    summerPrecipitationPct: round(west.d_precip_summer_pct, 2),
    waterDeficitMm: round(west.d_cmd_mm * adjustment.cmd_multiplier, 1),
  }
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals
  return Math.round(value * factor) / factor
}

function invalidClimate(request: ClimateRequest, reason: string) {
  return apiError(
    'invalid_climate',
    { reason },
    {
      details: {
        period: request.period ?? null,
        scenario: request.scenario ?? null,
        allowed_periods: CLIMATE_PERIODS,
        allowed_scenarios: EMISSION_SCENARIOS,
        suggestion: 'GET /v1/climate lists the periods, the scenarios and their deltas by zone',
      },
    },
  )
}

/** One row of the deltas table: a future at a zone. */
export interface ZoneDeltas extends ClimateFuture, ClimateDeltas {
  zone: ForestZone
}

/** What `GET /v1/climate` and GraphQL `climateScenarios` list. */
export interface ClimateCatalogueView {
  baselinePeriod: typeof BASELINE_PERIOD
  periods: readonly string[]
  scenarios: readonly { id: EmissionScenario; name: string }[]
  /** Every future at every zone, after the zone adjustment: periods, then scenarios, then zones. */
  deltas: readonly ZoneDeltas[]
  dataVersion: string
  /** The reference's own account of what the values are: a rounded synthesis, not for real planting decisions. */
  description: string
  method: readonly string[]
  sources: readonly { what: string; source: string }[]
}

const SCENARIO_NAMES: Record<EmissionScenario, string> = {
  ssp245: 'SSP2-4.5',
  ssp370: 'SSP3-7.0',
  ssp585: 'SSP5-8.5',
}

/** The reference's climate futures, read once. */
export const CLIMATE_FUTURES = ClimateFutures.load()
