import type { Position } from 'geojson'
import { describe, expect, it } from 'vitest'
import { apiErrorOf, refusedField } from '../../../test/support/api-errors.ts'
import { forestSite, OUTSIDE_POINTS } from '../../../test/support/fakes.ts'
import { polygon, rectangle } from '../../../test/support/geometry.ts'
import {
  COAST_SITE,
  logOddsAt,
  POORER,
  planner,
  pointPlan,
  round,
} from '../../../test/support/stocking-setup.ts'
import { model, species } from '../../../test/support/survival-model.ts'
import type { Site } from '../../types.ts'
import { siteClassOf } from '../site-class.ts'
import { checkedStand } from './stand.ts'
import { meetsProbability, survivalDistribution } from './stocking-math.ts'
import type { PlanStand, StockingPlanRequest } from './stocking-types.ts'

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
