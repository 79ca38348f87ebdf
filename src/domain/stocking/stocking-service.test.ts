import type { Polygon, Position } from 'geojson'
import { describe, expect, it } from 'vitest'
import {
  FakeSiteLookup,
  FOREST_POINTS,
  forestSite,
  NO_DATA_POINT,
  OUTSIDE_POINTS,
} from '../../../test/support/fakes.ts'
import { WASHINGTON_POINTS } from '../../../test/support/sites.ts'
import { loadSurvivalModel } from '../../model/index.ts'
import {
  type Coordinates,
  HORIZONS,
  type Horizon,
  type PlantingMethod,
  type Site,
  type SiteBox,
  type SitesInArea,
  type Species,
} from '../../types.ts'
import { CLIMATE_DATA_NOTE, CLIMATE_FUTURES } from '../climate.ts'
import { ApiError } from '../errors.ts'
import { TREES_PER_HECTARE_PER_ACRE } from '../input-rules.ts'
import { PredictionService } from '../prediction-service.ts'
import { siteClassOf } from '../site-class.ts'
import { findSpecies, SPECIES } from '../species.ts'
import { checkedStand } from './stand.ts'
import { STOCKING_STANDARDS } from './standards.ts'
import { meetsProbability, requiredDensity, survivalDistribution } from './stocking-math.ts'
import { StockingPlanService } from './stocking-service.ts'
import type { PlanPointSite, PlanStand, StockingPlan, StockingPlanRequest } from './stocking-types.ts'

const NOW = new Date('2026-11-24T12:00:00Z')
const model = loadSurvivalModel(SPECIES)

function species(code: string): Species {
  const found = findSpecies(code)
  if (!found) throw new Error(`${code} is missing from the catalogue`)
  return found
}

/** An Oregon Coast Range site (coast zone, site class I–III). */
const COAST_SITE = forestSite(FOREST_POINTS.coastRange, { zone: 'coast' })
/** A western Washington lowland site near Olympia. */
const WA_WEST_POINT = { latitude: 47.0, longitude: -123.0 }
const WA_WEST_SITE = forestSite(WA_WEST_POINT, {
  id: 47_001,
  state: 'WA',
  zone: 'westside_lowland',
  regionId: 'wa_west',
})
const WA_EAST_SITE = forestSite(WASHINGTON_POINTS.eastCascades, {
  id: 47_002,
  state: 'WA',
  zone: 'eastside_cascades',
  regionId: 'wa_east',
  annualPrecipMm: 700,
  summerWaterDeficitMm: 320,
})
/** Dry, shallow and frosty enough for site class IV–V (productivity 82). */
const POORER = { annualPrecipMm: 600, summerWaterDeficitMm: 300, soilDepthCm: 60, growingSeasonFrostDays: 5 }

const samePoint = (a: Coordinates, b: Coordinates) => a.latitude === b.latitude && a.longitude === b.longitude

/** SitesInArea over a list: the sites in the box, ordered by id, as the store answers; records the boxes. */
class FakeSitesInArea implements SitesInArea {
  readonly boxes: SiteBox[] = []
  constructor(private readonly sites: readonly Site[] = []) {}

  async within(box: SiteBox): Promise<Site[]> {
    this.boxes.push(box)
    return this.sites
      .filter(
        (s) =>
          s.longitude >= box.west &&
          s.longitude <= box.east &&
          s.latitude >= box.south &&
          s.latitude <= box.north,
      )
      .sort((a, b) => a.id - b.id)
  }
}

/** A planner whose nearest-site lookup answers `site` (null at NO_DATA_POINT) and whose area holds `sites`. */
function planner(options: { site?: Site | null; sites?: Site[] } = {}) {
  const site = options.site === undefined ? COAST_SITE : options.site
  const lookup = new FakeSiteLookup((point) =>
    site === null || samePoint(point, NO_DATA_POINT) ? null : { site, distanceKm: 1.2 },
  )
  const area = new FakeSitesInArea(options.sites ?? [])
  return { plans: new StockingPlanService(model, lookup, area, () => NOW), lookup, area }
}

const pointPlan: StockingPlanRequest = {
  ...FOREST_POINTS.coastRange,
  plantingMethod: 'manual',
  speciesMix: [{ speciesCode: 'PSME', share: 1 }],
  treesPerAcre: 300,
}

/** The ApiError a promise rejects with (fails the test if it resolves or rejects with anything else). */
async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

async function refusedField(promise: Promise<unknown>): Promise<string> {
  const error = await apiErrorOf(promise)
  expect(error.code).toBe('invalid_request')
  expect(error.status).toBe(400)
  return (error.details as { field: string }).field
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals

/** The model's log-odds of one species at the sites, at one horizon. */
function logOddsAt(sites: readonly Site[], code: string, method: PlantingMethod, horizon: Horizon): number[] {
  return sites.map(
    (site) =>
      model.predict(site, species(code), method, [horizon]).find((p) => p.horizonYears === horizon)
        ?.logOdds as number,
  )
}

function rectangle(west: number, south: number, east: number, north: number): Position[] {
  return [
    [west, south],
    [east, south],
    [east, north],
    [west, north],
    [west, south],
  ]
}
const polygon = (...rings: Position[][]): Polygon => ({ type: 'Polygon', coordinates: rings })

describe('StockingPlanService.plan at a point', () => {
  it('plans at an Oregon coast site: Oregon’s rule for its class, three horizons, the fifth year judged', async () => {
    const { plans, lookup } = planner()
    const plan = await plans.plan(pointPlan)

    expect(lookup.oneCalls).toHaveLength(1)
    expect(lookup.oneCalls[0]).toMatchObject(FOREST_POINTS.coastRange)
    expect(siteClassOf(COAST_SITE)).toBe('I-III')
    expect(plan.rule).toMatchObject({
      id: 'or_fpa',
      minimumTreesPerAcre: 200,
      targetTreesPerAcre: 200,
      customTarget: false,
      horizonYears: 5,
      siteClass: 'I-III',
      verify: false,
      hardwoodShareCap: 0.2,
    })
    expect(plan.location).toEqual<PlanPointSite>({
      kind: 'point',
      latitude: 44.6,
      longitude: -123.6,
      siteId: COAST_SITE.id,
      matchedLatitude: COAST_SITE.latitude,
      matchedLongitude: COAST_SITE.longitude,
      matchDistanceKm: 1.2,
      zone: 'coast',
      state: 'OR',
      siteClass: 'I-III',
    })
    expect(plan.planted).toEqual({ treesPerAcre: 300, treesPerHectare: 741.3 })
    expect(plan.confidence).toBe(0.9)
    expect(plan.plantingMethod).toBe('manual')
    expect(plan.climate).toBeNull()
    expect(plan.model).toEqual({ version: model.version, codename: model.codename, series: model.series })
    expect(plan.generatedAt).toBe(NOW)

    expect(plan.horizons.map((h) => h.horizonYears)).toEqual([1, 3, 5])
    for (const h of plan.horizons) {
      expect(h.expectedTreesPerAcre).toBe(round(300 * h.survivalProbability, 1))
      expect(h.lower).toBeLessThanOrEqual(h.expectedTreesPerAcre)
      expect(h.upper).toBeGreaterThanOrEqual(h.expectedTreesPerAcre)
      expect(h.upper).toBeLessThanOrEqual(300)
      expect(h.bySpecies).toHaveLength(1)
      expect(h.bySpecies[0]).toMatchObject({ share: 1, plantedTreesPerAcre: 300, countsInFull: true })
      expect(h.bySpecies[0]?.species.code).toBe('PSME')
    }
    const [one, three, five] = plan.horizons.map((h) => h.survivalProbability) as number[]
    expect(one).toBeGreaterThan(three as number)
    expect(three).toBeGreaterThan(five as number)

    expect(plan.meetsStandard.horizonYears).toBe(5)
    expect(plan.meetsStandard.probability).toBeGreaterThan(0)
    expect(plan.meetsStandard.probability).toBeLessThanOrEqual(1)
    expect(plan.meetsStandard.atConfidence).toBe(plan.meetsStandard.probability >= 0.9)

    const required = plan.required.treesPerAcre as number
    expect(Number.isInteger(required)).toBe(true)
    expect(required).toBeGreaterThan(200)
    expect(plan.required.treesPerHectare).toBe(Math.ceil(required * TREES_PER_HECTARE_PER_ACRE))
    expect(plan.required.overplantingFactor).toBe(round(required / 200, 3))

    expect(plan.notes[0]).toBe(STOCKING_STANDARDS.description)
    expect(plan.notes.some((n) => n.startsWith('Survival only'))).toBe(true)
    expect(plan.notes.some((n) => n.includes('Verra VM0047'))).toBe(true)
    expect(plan.notes.some((n) => n.includes('verify it'))).toBe(false)
  })

  it('works its numbers out with the stocking arithmetic over the model’s log-odds and uncertainty', async () => {
    const { plans } = planner()
    const plan = await plans.plan({ ...pointPlan, treesPerAcre: 260, confidence: 0.8 })
    const d = survivalDistribution(
      [{ share: 1, countsInFull: true, logOddsBySite: logOddsAt([COAST_SITE], 'PSME', 'manual', 5) }],
      model.uncertainty,
    )
    expect(plan.meetsStandard.probability).toBe(meetsProbability(d, 260, 200, 40))
    expect(plan.required.treesPerAcre).toBe(requiredDensity(d, 200, 40, 0.8))
    const five = plan.horizons[2]
    const ninety = plan.ninetyPercentHalfWidthShare as number
    expect(ninety).toBeGreaterThan(0)
    // At confidence 0.9 the fifth year's interval is the 90 % one the carbon figure is half of.
    const at90 = await plans.plan({ ...pointPlan, treesPerAcre: 260 })
    const h = at90.horizons[2] as (typeof at90.horizons)[number]
    expect(at90.ninetyPercentHalfWidthShare).toBe(round((h.upper - h.lower) / 2 / h.expectedTreesPerAcre, 4))
    expect(at90.ninetyPercentHalfWidthShare).toBe(ninety)
    expect(five?.survivalProbability).toBe(h.survivalProbability)
  })

  it.each([
    ['PSME', 'manual'],
    ['PSME', 'drone_seeded'],
    ['THPL', 'manual'],
    ['ALRU', 'drone_seeded'],
  ] as const)(
    'gives one species at a point exactly /v1/predict’s survival (%s, %s)',
    async (code, method) => {
      const { plans, lookup } = planner()
      const predictions = new PredictionService(model, lookup, () => NOW)
      const plan = await plans.plan({
        ...pointPlan,
        plantingMethod: method,
        speciesMix: [{ speciesCode: code, share: 1 }],
      })
      const prediction = await predictions.predict({
        ...FOREST_POINTS.coastRange,
        speciesCode: code,
        plantingMethod: method,
      })
      expect(plan.horizons).toHaveLength(prediction.predictions.length)
      plan.horizons.forEach((h, i) => {
        const predicted = prediction.predictions[i]
        expect(h.horizonYears).toBe(predicted?.horizonYears)
        expect(h.survivalProbability).toBe(predicted?.survivalProbability)
        expect(h.bySpecies[0]?.survivalProbability).toBe(predicted?.survivalProbability)
      })
    },
  )

  it('gives the same as /v1/predict under a future climate too', async () => {
    const { plans, lookup } = planner()
    const climate = { period: '2071-2100', scenario: 'ssp585' }
    const predictions = new PredictionService(model, lookup, () => NOW)
    const plan = await plans.plan({ ...pointPlan, climate })
    const prediction = await predictions.predict({
      ...FOREST_POINTS.coastRange,
      speciesCode: 'PSME',
      plantingMethod: 'manual',
      climate,
    })
    expect(plan.horizons.map((h) => h.survivalProbability)).toEqual(
      prediction.predictions.map((p) => p.survivalProbability),
    )
  })

  it('asks more trees of drone seeding than of hand planting at the same site', async () => {
    const { plans } = planner()
    const manual = await plans.plan(pointPlan)
    const drone = await plans.plan({ ...pointPlan, plantingMethod: 'drone_seeded' })
    expect(drone.plantingMethod).toBe('drone_seeded')
    expect(drone.horizons[2]?.survivalProbability).toBeLessThan(
      manual.horizons[2]?.survivalProbability as number,
    )
    expect(manual.required.treesPerAcre).not.toBeNull()
    expect(drone.required.treesPerAcre ?? Number.POSITIVE_INFINITY).toBeGreaterThan(
      manual.required.treesPerAcre as number,
    )
    expect(drone.meetsStandard.probability).toBeLessThan(manual.meetsStandard.probability)
  })

  it('gives a higher probability of meeting the standard the more trees are planted', async () => {
    const { plans } = planner()
    const probabilities: number[] = []
    for (const treesPerAcre of [200, 215, 230, 250, 280])
      probabilities.push((await plans.plan({ ...pointPlan, treesPerAcre })).meetsStandard.probability)
    for (let i = 1; i < probabilities.length; i++)
      expect(probabilities[i]).toBeGreaterThan(probabilities[i - 1] as number)
    // …while the density it would take does not depend on what was planted.
    const required = new Set<number | null>()
    for (const treesPerAcre of [150, 300, 1000])
      required.add((await plans.plan({ ...pointPlan, treesPerAcre })).required.treesPerAcre)
    expect(required.size).toBe(1)
  })

  it('asks more trees for a higher confidence; 0.9 is the default', async () => {
    const { plans } = planner()
    const required: number[] = []
    for (const confidence of [0.5, 0.8, 0.9, 0.95, 0.99])
      required.push((await plans.plan({ ...pointPlan, confidence })).required.treesPerAcre as number)
    for (let i = 1; i < required.length; i++) expect(required[i]).toBeGreaterThan(required[i - 1] as number)
    const byDefault = await plans.plan({ ...pointPlan, confidence: null })
    expect(byDefault.confidence).toBe(0.9)
    expect(byDefault.required.treesPerAcre).toBe(required[2])
    // A wider confidence widens each horizon's interval.
    const narrow = await plans.plan({ ...pointPlan, confidence: 0.6 })
    const wide = await plans.plan({ ...pointPlan, confidence: 0.95 })
    for (const i of [0, 1, 2]) {
      expect(wide.horizons[i]?.lower).toBeLessThanOrEqual(narrow.horizons[i]?.lower as number)
      expect(wide.horizons[i]?.upper).toBeGreaterThanOrEqual(narrow.horizons[i]?.upper as number)
    }
  })

  it('takes the density per hectare as well', async () => {
    const { plans } = planner()
    const perHectare = await plans.plan({ ...pointPlan, treesPerAcre: null, treesPerHectare: 741.3 })
    const perAcre = await plans.plan(pointPlan)
    expect(perHectare.planted).toEqual({ treesPerAcre: 300, treesPerHectare: 741.3 })
    expect(perHectare.meetsStandard.probability).toBeCloseTo(perAcre.meetsStandard.probability, 9)
    expect(perHectare.required).toEqual(perAcre.required)
  })

  it('uses a custom target and flags it; the rule’s minimum and horizon stay', async () => {
    const { plans } = planner()
    const standard = await plans.plan(pointPlan)
    const custom = await plans.plan({ ...pointPlan, targetTreesPerAcre: 260 })
    expect(custom.rule).toMatchObject({
      minimumTreesPerAcre: 200,
      targetTreesPerAcre: 260,
      customTarget: true,
      horizonYears: 5,
    })
    expect(custom.meetsStandard.probability).toBeLessThan(standard.meetsStandard.probability)
    const required = custom.required.treesPerAcre as number
    expect(required).toBeGreaterThan(standard.required.treesPerAcre as number)
    expect(custom.required.overplantingFactor).toBe(round(required / 260, 3))
    const d = survivalDistribution(
      [{ share: 1, countsInFull: true, logOddsBySite: logOddsAt([COAST_SITE], 'PSME', 'manual', 5) }],
      model.uncertainty,
    )
    expect(custom.meetsStandard.probability).toBe(meetsProbability(d, 300, 260, 0.2 * 260))
  })

  it('takes Oregon’s minimum from the site’s class, or from site_class, flagging the figures to verify', async () => {
    const poorer = forestSite(FOREST_POINTS.coastRange, { zone: 'coast', ...POORER })
    expect(siteClassOf(poorer)).toBe('IV-V')
    const atPoorer = await planner({ site: poorer }).plans.plan(pointPlan)
    expect(atPoorer.rule).toMatchObject({ siteClass: 'IV-V', minimumTreesPerAcre: 120, verify: true })
    expect(atPoorer.location).toMatchObject({ siteClass: 'IV-V' })
    expect(
      atPoorer.notes.some(
        (n) => n.includes('120 trees per acre for site class IV-V') && n.includes('verify'),
      ),
    ).toBe(true)

    const asked = await planner().plans.plan({ ...pointPlan, siteClass: 'VI' })
    expect(asked.rule).toMatchObject({
      siteClass: 'VI',
      minimumTreesPerAcre: 100,
      targetTreesPerAcre: 100,
      verify: true,
    })
    expect(asked.location).toMatchObject({ siteClass: 'I-III' }) // the site's own class is still reported
    expect(asked.required.treesPerAcre as number).toBeLessThan(
      (await planner().plans.plan(pointPlan)).required.treesPerAcre as number,
    )
  })

  it('counts Oregon’s hardwoods up to 20 % of the standard, and says so', async () => {
    const { plans } = planner()
    const plan = await plans.plan({
      ...pointPlan,
      speciesMix: [
        { speciesCode: 'PSME', share: 0.7 },
        { speciesCode: 'ALRU', share: 0.3 },
      ],
    })
    for (const h of plan.horizons) {
      expect(h.bySpecies.map((s) => [s.species.code, s.countsInFull])).toEqual([
        ['PSME', true],
        ['ALRU', false],
      ])
      expect(h.bySpecies.map((s) => s.plantedTreesPerAcre)).toEqual([210, 90])
      expect(h.survivalProbability).toBeCloseTo(
        0.7 * (h.bySpecies[0]?.survivalProbability as number) +
          0.3 * (h.bySpecies[1]?.survivalProbability as number),
        14,
      )
    }
    const note = plan.notes.find((n) => n.startsWith('Hardwoods count toward the standard'))
    expect(note).toContain('at most 20 %')
    expect(note).toContain('(40 trees per acre)')
    // A conifer-only plan has no such note.
    expect((await plans.plan(pointPlan)).notes.some((n) => n.startsWith('Hardwoods'))).toBe(false)
  })

  it('finds no density for hardwoods alone under Oregon’s cap, and says so', async () => {
    const { plans } = planner()
    const plan = await plans.plan({
      ...pointPlan,
      speciesMix: [{ speciesCode: 'ALRU', share: 1 }],
      treesPerAcre: 5000,
    })
    expect(plan.required).toEqual({ treesPerAcre: null, treesPerHectare: null, overplantingFactor: null })
    expect(plan.meetsStandard.probability).toBeLessThan(1e-6)
    expect(plan.meetsStandard.atConfidence).toBe(false)
    expect(plan.notes.some((n) => n.startsWith('No density up to 5000 trees per acre meets 200'))).toBe(true)
  })

  it('plans at a western Washington site by the west-side rule, judged after one year, all species in full', async () => {
    const { plans } = planner({ site: WA_WEST_SITE })
    const plan = await plans.plan({
      ...pointPlan,
      ...WA_WEST_POINT,
      speciesMix: [
        { speciesCode: 'PSME', share: 0.7 },
        { speciesCode: 'ALRU', share: 0.3 },
      ],
    })
    expect(plan.rule).toMatchObject({
      id: 'wa_fpa_west',
      minimumTreesPerAcre: 190,
      targetTreesPerAcre: 190,
      horizonYears: 1,
      siteClass: null,
      verify: false,
      hardwoodShareCap: null,
    })
    expect(plan.meetsStandard.horizonYears).toBe(1)
    expect(plan.location).toMatchObject({ kind: 'point', state: 'WA', zone: 'westside_lowland' })
    expect(plan.horizons[0]?.bySpecies.map((s) => s.countsInFull)).toEqual([true, true])
    expect(plan.notes.some((n) => n.startsWith('Hardwoods'))).toBe(false)
    const members = [
      { share: 0.7, countsInFull: true, logOddsBySite: logOddsAt([WA_WEST_SITE], 'PSME', 'manual', 1) },
      { share: 0.3, countsInFull: true, logOddsBySite: logOddsAt([WA_WEST_SITE], 'ALRU', 'manual', 1) },
    ]
    const d = survivalDistribution(members, model.uncertainty)
    expect(plan.meetsStandard.probability).toBe(meetsProbability(d, 300, 190, null))
    expect(plan.required.treesPerAcre).toBe(requiredDensity(d, 190, null, 0.9))
  })

  it('plans at an eastern Washington site by the east-side rule', async () => {
    const { plans } = planner({ site: WA_EAST_SITE })
    const plan = await plans.plan({ ...pointPlan, ...WASHINGTON_POINTS.eastCascades })
    expect(plan.rule).toMatchObject({ id: 'wa_fpa_east', minimumTreesPerAcre: 150, horizonYears: 1 })
  })

  it('takes a rule set asked for over the location’s', async () => {
    const { plans } = planner()
    const plan = await plans.plan({ ...pointPlan, ruleSet: 'wa_fpa_east' })
    expect(plan.rule).toMatchObject({ id: 'wa_fpa_east', minimumTreesPerAcre: 150, horizonYears: 1 })
    expect(plan.location).toMatchObject({ state: 'OR' })
  })

  it('projects the site into a future climate, which changes the numbers and adds the data’s caveat', async () => {
    const { plans } = planner()
    const today = await plans.plan(pointPlan)
    const future = await plans.plan({ ...pointPlan, climate: { period: '2071-2100', scenario: 'ssp585' } })
    expect(future.climate).toEqual({
      period: '2071-2100',
      scenario: 'ssp585',
      dataVersion: CLIMATE_FUTURES.dataVersion,
    })
    expect(future.horizons.map((h) => h.survivalProbability)).not.toEqual(
      today.horizons.map((h) => h.survivalProbability),
    )
    expect(future.meetsStandard.probability).not.toBe(today.meetsStandard.probability)
    expect(future.notes).toContain(CLIMATE_DATA_NOTE)
    expect(today.notes).not.toContain(CLIMATE_DATA_NOTE)
    // The baseline period alone is today's climate.
    const baseline = await plans.plan({ ...pointPlan, climate: { period: '1991_2020' } })
    expect(baseline.climate).toBeNull()
    expect(baseline.meetsStandard.probability).toBe(today.meetsStandard.probability)
  })

  it('scales shares within the tolerance to sum to exactly 1', async () => {
    const { plans } = planner()
    const plan = await plans.plan({
      ...pointPlan,
      speciesMix: [
        { speciesCode: 'PSME', share: 0.3335 },
        { speciesCode: 'THPL', share: 0.3335 },
        { speciesCode: 'TSHE', share: 0.3335 },
      ],
    })
    const shares = plan.horizons[0]?.bySpecies.map((s) => s.share) as number[]
    for (const share of shares) expect(share).toBeCloseTo(1 / 3, 12)
  })

  it('is deterministic: the same request gives the same plan', async () => {
    const request: StockingPlanRequest = {
      ...pointPlan,
      speciesMix: [
        { speciesCode: 'PSME', share: 0.6 },
        { speciesCode: 'THPL', share: 0.25 },
        { speciesCode: 'ALRU', share: 0.15 },
      ],
      confidence: 0.85,
      climate: { period: '2041-2070', scenario: 'ssp245' },
    }
    const first = await planner().plans.plan(request)
    const second = await planner().plans.plan(request)
    expect(second).toEqual(first)
  })
})

describe('StockingPlanService.plan over a stand', () => {
  // A triangle in the Coast Range: its bounding box holds sites on both sides of the diagonal.
  const W = -123.7
  const S = 44.5
  const E = -123.6
  const N = 44.6
  const TRIANGLE = polygon([
    [W, S],
    [E, S],
    [W, N],
    [W, S],
  ])
  const inside = [
    forestSite({ latitude: 44.51, longitude: -123.69 }, { id: 11, zone: 'coast', summerWaterDeficitMm: 100 }),
    forestSite({ latitude: 44.52, longitude: -123.66 }, { id: 12, zone: 'coast', summerWaterDeficitMm: 220 }),
    forestSite(
      { latitude: 44.54, longitude: -123.68 },
      { id: 13, zone: 'westside_lowland', soilDepthCm: 50 },
    ),
  ]
  const outsideTriangle = [
    forestSite({ latitude: 44.58, longitude: -123.61 }, { id: 14, zone: 'coast', summerWaterDeficitMm: 600 }),
    forestSite({ latitude: 44.575, longitude: -123.62 }, { id: 15, zone: 'coast' }),
  ]
  const standPlan = (stand: StockingPlanRequest['stand']): StockingPlanRequest => ({
    stand,
    plantingMethod: 'manual',
    speciesMix: [{ speciesCode: 'PSME', share: 1 }],
    treesPerAcre: 300,
  })

  it('evaluates the stand at the data sites inside it, and only those', async () => {
    const { plans, lookup, area } = planner({ sites: [...outsideTriangle, ...inside] })
    const plan = await plans.plan(standPlan(TRIANGLE))
    const checked = checkedStand(TRIANGLE)

    expect(area.boxes).toEqual([{ west: W, south: S, east: E, north: N }])
    expect(lookup.calls).toBe(0)
    const where = plan.location as PlanStand
    expect(where.kind).toBe('stand')
    expect(where.sitesInside).toBe(3)
    expect(where.nearestSiteUsed).toBe(false)
    expect(where.nearestSiteDistanceKm).toBeNull()
    expect(where.sites.map((s) => s.siteId)).toEqual([11, 12, 13])
    expect(where.sites[2]).toEqual({
      siteId: 13,
      latitude: inside[2]?.latitude,
      longitude: -123.68,
      zone: 'westside_lowland',
      siteClass: siteClassOf(inside[2] as Site),
    })
    expect(where.areaHa).toBe(round(checked.areaHa, 2))
    expect(where.centroid.latitude).toBeCloseTo((2 * S + N) / 3, 5)
    expect(where.centroid.longitude).toBeCloseTo((2 * W + E) / 3, 5)
    expect(where.state).toBe('OR')

    // The survival is the mean over those three sites, each weighing the same.
    for (const h of plan.horizons) {
      const mean =
        inside.reduce(
          (sum, site) =>
            sum +
            (model.predict(site, species('PSME'), 'manual', [h.horizonYears])[0]
              ?.survivalProbability as number),
          0,
        ) / inside.length
      expect(h.survivalProbability).toBeCloseTo(mean, 12)
    }
    const d = survivalDistribution(
      [{ share: 1, countsInFull: true, logOddsBySite: logOddsAt(inside, 'PSME', 'manual', 5) }],
      model.uncertainty,
    )
    expect(plan.meetsStandard.probability).toBe(meetsProbability(d, 300, 200, 40))
    expect(plan.notes.some((n) => n.startsWith('No data site lies inside'))).toBe(false)
  })

  it('takes a Feature and a MultiPolygon like the geometry', async () => {
    const { plans } = planner({ sites: [...outsideTriangle, ...inside] })
    const direct = await plans.plan(standPlan(TRIANGLE))
    const asFeature = await plans.plan(standPlan({ type: 'Feature', geometry: TRIANGLE }))
    expect(asFeature.meetsStandard).toEqual(direct.meetsStandard)
    expect(asFeature.location).toEqual(direct.location)
    // A MultiPolygon with a second part around site 14 (forestSite puts it at 44.59, -123.61) brings it in.
    const multi = await plans.plan(
      standPlan({
        type: 'MultiPolygon',
        coordinates: [TRIANGLE.coordinates, [rectangle(-123.615, 44.585, -123.605, 44.595)]],
      }),
    )
    expect((multi.location as PlanStand).sites.map((s) => s.siteId)).toEqual([11, 12, 13, 14])
  })

  it('does not use a site in a hole of the stand', async () => {
    const { plans } = planner({ sites: inside })
    const hole = rectangle(-123.695, 44.515, -123.685, 44.525).reverse() // around site 11 (44.52, -123.69)
    const plan = await plans.plan(standPlan(polygon(TRIANGLE.coordinates[0] as Position[], hole)))
    expect((plan.location as PlanStand).sites.map((s) => s.siteId)).toEqual([12, 13])
  })

  it('falls back on the site nearest the stand’s centre when none lies inside, and says so', async () => {
    const { plans, lookup } = planner({ sites: outsideTriangle })
    const plan = await plans.plan(standPlan(TRIANGLE))
    const centroid = checkedStand(TRIANGLE).centroid
    expect(lookup.oneCalls).toEqual([centroid])
    const where = plan.location as PlanStand
    expect(where.sitesInside).toBe(0)
    expect(where.nearestSiteUsed).toBe(true)
    expect(where.nearestSiteDistanceKm).toBe(1.2)
    expect(where.sites.map((s) => s.siteId)).toEqual([COAST_SITE.id])
    expect(plan.notes).toContain(
      'No data site lies inside the stand: the nearest one, 1.2 km from its centre, stands for it',
    )
    // The same numbers as a point plan at that site.
    const point = await plans.plan(pointPlan)
    expect(plan.meetsStandard).toEqual(point.meetsStandard)
    expect(plan.horizons).toEqual(point.horizons)
  })

  it('is outside_coverage when no site lies inside and its centre is outside Oregon and Washington', async () => {
    const { plans, lookup } = planner()
    const { latitude, longitude } = OUTSIDE_POINTS.boise
    const error = await apiErrorOf(
      plans.plan(
        standPlan(polygon(rectangle(longitude - 0.01, latitude - 0.01, longitude + 0.01, latitude + 0.01))),
      ),
    )
    expect(error.code).toBe('outside_coverage')
    expect(lookup.calls).toBe(0)
  })

  it('is no_nearby_data when no site lies inside or near', async () => {
    const { plans } = planner({ site: null })
    const error = await apiErrorOf(plans.plan(standPlan(TRIANGLE)))
    expect(error.code).toBe('no_nearby_data')
  })

  it('takes the class most of its sites have (ties: the more demanding standard)', async () => {
    const poorer = (id: number, latitude: number) =>
      forestSite({ latitude, longitude: -123.69 }, { id, zone: 'coast', ...POORER })
    const rich = forestSite({ latitude: 44.51, longitude: -123.68 }, { id: 30, zone: 'coast' })
    const mostlyPoor = await planner({ sites: [rich, poorer(31, 44.52), poorer(32, 44.53)] }).plans.plan(
      standPlan(TRIANGLE),
    )
    expect((mostlyPoor.location as PlanStand).siteClass).toBe('IV-V')
    expect(mostlyPoor.rule).toMatchObject({ siteClass: 'IV-V', minimumTreesPerAcre: 120 })
    const tie = await planner({ sites: [rich, poorer(31, 44.52)] }).plans.plan(standPlan(TRIANGLE))
    expect((tie.location as PlanStand).siteClass).toBe('I-III')
    expect(tie.rule.minimumTreesPerAcre).toBe(200)
  })

  // The side of the crest comes from most of a stand's sites (docs/stocking-plans.md), not its first by
  // id: here site 21 is east of the crest and sites 22 and 23 west of it, so the west's rule (190).
  it('takes Washington’s side of the crest from most of a stand’s sites', async () => {
    const sites = [
      forestSite({ latitude: 47.26, longitude: -121.25 }, { id: 21, state: 'WA', zone: 'eastside_cascades' }),
      forestSite({ latitude: 47.24, longitude: -121.35 }, { id: 22, state: 'WA', zone: 'westside_cascades' }),
      forestSite({ latitude: 47.27, longitude: -121.38 }, { id: 23, state: 'WA', zone: 'westside_cascades' }),
    ]
    const { plans } = planner({ sites })
    const plan = await plans.plan(standPlan(polygon(rectangle(-121.4, 47.2, -121.2, 47.3))))
    expect((plan.location as PlanStand).sitesInside).toBe(3)
    expect((plan.location as PlanStand).state).toBe('WA')
    expect(plan.rule.id).toBe('wa_fpa_west')
  })

  it('lists at most 100 of its sites, counting them all, and says so', async () => {
    const many = Array.from({ length: 120 }, (_, i) =>
      forestSite(
        { latitude: 44.505 + (i % 12) * 0.003, longitude: -123.695 + Math.floor(i / 12) * 0.002 },
        { id: 1000 + i, zone: 'coast' },
      ),
    )
    const { plans } = planner({ sites: many })
    const plan = await plans.plan(standPlan(TRIANGLE))
    const where = plan.location as PlanStand
    const contained = many.filter((s) => checkedStand(TRIANGLE).contains(s))
    expect(contained.length).toBeGreaterThan(100)
    expect(where.sitesInside).toBe(contained.length)
    expect(where.sites).toHaveLength(100)
    expect(where.sites.map((s) => s.siteId)).toEqual(contained.slice(0, 100).map((s) => s.id))
    expect(plan.notes).toContain(
      `The stand holds ${contained.length} data sites; the first 100 by id are listed`,
    )
  })

  it('refuses a bad ring with the path of the offence', async () => {
    const { plans, area } = planner({ sites: inside })
    const open = {
      type: 'Polygon' as const,
      coordinates: [(TRIANGLE.coordinates[0] as Position[]).slice(0, -1).concat([[W, 44.55]])],
    }
    expect(await refusedField(plans.plan(standPlan(open)))).toBe('stand.coordinates[0]')
    expect(await refusedField(plans.plan(standPlan({ type: 'Feature', geometry: open })))).toBe(
      'stand.geometry.coordinates[0]',
    )
    expect(area.boxes).toEqual([])
  })
})

describe('StockingPlanService.plan refusals', () => {
  const { plans, lookup } = planner()

  it('refuses both a point and a stand, and neither', async () => {
    const stand = polygon(rectangle(-123.7, 44.5, -123.6, 44.6))
    expect(await refusedField(plans.plan({ ...pointPlan, stand }))).toBe('stand')
    expect(await refusedField(plans.plan({ ...pointPlan, longitude: null, stand }))).toBe('stand')
    expect(await refusedField(plans.plan({ ...pointPlan, latitude: null, longitude: null }))).toBe('latitude')
    expect(await refusedField(plans.plan({ ...pointPlan, longitude: undefined }))).toBe('longitude')
  })

  it('refuses shares that do not sum to 1, a repeated species, and an empty or oversized mix', async () => {
    const mix = (...items: [string, number][]) => ({
      ...pointPlan,
      speciesMix: items.map(([speciesCode, share]) => ({ speciesCode, share })),
    })
    expect(await refusedField(plans.plan(mix(['PSME', 0.5], ['THPL', 0.4])))).toBe('species_mix')
    expect(await refusedField(plans.plan(mix(['PSME', 0.7], ['THPL', 0.4])))).toBe('species_mix')
    expect(await refusedField(plans.plan(mix(['PSME', 0.5], ['PSME', 0.5])))).toBe(
      'species_mix[1].species_code',
    )
    expect(await refusedField(plans.plan(mix(['THPL', 0.4], ['PSME', 0.3], ['THPL', 0.3])))).toBe(
      'species_mix[2].species_code',
    )
    expect(await refusedField(plans.plan(mix()))).toBe('species_mix')
    const error = await apiErrorOf(
      plans.plan(mix(...SPECIES.map((s) => [s.code, 1 / 21] as [string, number]), ['PSME', 1 / 21])),
    )
    expect(error.details).toMatchObject({ field: 'species_mix', reason: 'may hold at most 20 species' })
  })

  it('refuses an unknown species and an unknown planting method with their own codes', async () => {
    const unknownSpecies = await apiErrorOf(
      plans.plan({ ...pointPlan, speciesMix: [{ speciesCode: 'PSMA', share: 1 }] }),
    )
    expect(unknownSpecies.code).toBe('invalid_species')
    expect(unknownSpecies.status).toBe(422)
    expect(unknownSpecies.details).toMatchObject({ closest_code: 'PSME' })
    const unknownMethod = await apiErrorOf(plans.plan({ ...pointPlan, plantingMethod: 'helicopter' }))
    expect(unknownMethod.code).toBe('invalid_method')
    expect(unknownMethod.status).toBe(422)
  })

  it('refuses both densities, and neither', async () => {
    expect(await refusedField(plans.plan({ ...pointPlan, treesPerHectare: 741 }))).toBe('trees_per_hectare')
    expect(await refusedField(plans.plan({ ...pointPlan, treesPerAcre: null }))).toBe('trees_per_acre')
  })

  it('refuses an unknown rule set, an unknown site class, and a site class with a Washington rule', async () => {
    expect(await refusedField(plans.plan({ ...pointPlan, ruleSet: 'ca_fpa' }))).toBe('rule_set')
    expect(await refusedField(plans.plan({ ...pointPlan, siteClass: 'VII' }))).toBe('site_class')
    expect(await refusedField(plans.plan({ ...pointPlan, ruleSet: 'wa_fpa_west', siteClass: 'I-III' }))).toBe(
      'site_class',
    )
    // Washington's rule by default, at a Washington site.
    const inWashington = planner({ site: WA_WEST_SITE }).plans
    expect(await refusedField(inWashington.plan({ ...pointPlan, ...WA_WEST_POINT, siteClass: 'IV-V' }))).toBe(
      'site_class',
    )
    // …while Oregon's takes it.
    expect(
      (await plans.plan({ ...pointPlan, ruleSet: 'or_fpa', siteClass: 'IV-V' })).rule.minimumTreesPerAcre,
    ).toBe(120)
  })

  it.each([0.3, 0.49, 0.995, 1, Number.NaN])('refuses confidence %s', async (confidence) => {
    const error = await apiErrorOf(plans.plan({ ...pointPlan, confidence }))
    expect(error.details).toEqual({ field: 'confidence', reason: 'must be from 0.5 to 0.99' })
  })

  it('takes the confidence bounds themselves', async () => {
    expect((await plans.plan({ ...pointPlan, confidence: 0.5 })).confidence).toBe(0.5)
    expect((await plans.plan({ ...pointPlan, confidence: 0.99 })).confidence).toBe(0.99)
  })

  it('refuses an unknown climate with invalid_climate', async () => {
    const error = await apiErrorOf(
      plans.plan({ ...pointPlan, climate: { period: '2041-2070', scenario: 'rcp85' } }),
    )
    expect(error.code).toBe('invalid_climate')
    expect(error.status).toBe(422)
  })

  it('refuses a point outside Oregon and Washington before looking for a site', async () => {
    const before = lookup.calls
    for (const point of Object.values(OUTSIDE_POINTS)) {
      const error = await apiErrorOf(plans.plan({ ...pointPlan, ...point }))
      expect(error.code).toBe('outside_coverage')
    }
    expect(lookup.calls).toBe(before)
  })

  it('says no_nearby_data when no site lies within the radius of the point', async () => {
    const error = await apiErrorOf(plans.plan({ ...pointPlan, ...NO_DATA_POINT }))
    expect(error.code).toBe('no_nearby_data')
    expect(error.status).toBe(422)
  })

  it('checks the request before it looks anything up', async () => {
    const fresh = planner()
    for (const bad of [
      { ...pointPlan, speciesMix: [{ speciesCode: 'NOPE', share: 1 }] },
      { ...pointPlan, plantingMethod: 'catapult' },
      { ...pointPlan, treesPerAcre: null },
      { ...pointPlan, ruleSet: 'xx' },
      { ...pointPlan, confidence: 2 },
    ])
      await apiErrorOf(fresh.plans.plan(bad))
    expect(fresh.lookup.calls).toBe(0)
    expect(fresh.area.boxes).toEqual([])
  })
})

describe('StockingPlan shape', () => {
  it('answers every horizon the model has', async () => {
    const plan: StockingPlan = await planner().plans.plan(pointPlan)
    expect(plan.horizons.map((h) => h.horizonYears)).toEqual([...HORIZONS])
  })
})
