import { describe, expect, it } from 'vitest'
import { apiErrorOf, refusedField } from '../../../test/support/api-errors.ts'
import { FOREST_POINTS, forestSite, NO_DATA_POINT, OUTSIDE_POINTS } from '../../../test/support/fakes.ts'
import { WASHINGTON_POINTS } from '../../../test/support/sites.ts'
import { logOddsAt, POORER, planner, pointPlan } from '../../../test/support/stocking-setup.ts'
import { model } from '../../../test/support/survival-model.ts'
import { siteClassOf } from '../site-class.ts'
import { meetsProbability, requiredDensity, survivalDistribution } from './stocking-math.ts'

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

describe('StockingPlanService.plan: the rule it judges by', () => {
  it('takes Oregon’s minimum from the site’s class, or from the class asked for, flagging the figures to verify', async () => {
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
})

describe('StockingPlanService.plan refusals', () => {
  const { plans, lookup } = planner()

  it('refuses a site class asked for when the location takes a Washington rule', async () => {
    // Washington's rule by default, at a Washington site.
    const inWashington = planner({ site: WA_WEST_SITE }).plans
    expect(await refusedField(inWashington.plan({ ...pointPlan, ...WA_WEST_POINT, siteClass: 'IV-V' }))).toBe(
      'siteClass',
    )
    // …while Oregon's takes it.
    expect(
      (await plans.plan({ ...pointPlan, ruleSet: 'or_fpa', siteClass: 'IV-V' })).rule.minimumTreesPerAcre,
    ).toBe(120)
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
