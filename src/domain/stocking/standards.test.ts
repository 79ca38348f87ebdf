import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FOREST_ZONES, type ForestZone } from '../../types.ts'
import {
  crestSide,
  OREGON_HARDWOOD_SHARE_CAP,
  RULE_SET_IDS,
  SITE_CLASSES,
  STOCKING_STANDARDS,
  StockingStandards,
} from './standards.ts'

const WEST_ZONES: ForestZone[] = ['coast', 'westside_lowland', 'westside_cascades']
const EAST_ZONES: ForestZone[] = ['eastside_cascades', 'blue_mountains', 'okanogan_selkirk']
const longitude = fc.double({ min: -124.8, max: -116.9, noNaN: true })

describe('STOCKING_STANDARDS.defaultRuleSet', () => {
  it('gives an Oregon site Oregon’s rule, whatever its zone and side of the crest', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FOREST_ZONES), longitude, (zone, lon) => {
        expect(STOCKING_STANDARDS.defaultRuleSet('OR', { zone, longitude: lon })).toBe('or_fpa')
      }),
    )
  })

  it.each(WEST_ZONES)('gives a Washington %s site the west-side rule, at any longitude', (zone) => {
    for (const lon of [-124.5, -122, -121.3, -120, -117.5])
      expect(STOCKING_STANDARDS.defaultRuleSet('WA', { zone, longitude: lon })).toBe('wa_fpa_west')
  })

  it.each(EAST_ZONES)('gives a Washington %s site the east-side rule, at any longitude', (zone) => {
    for (const lon of [-124.5, -122, -121.3, -120, -117.5])
      expect(STOCKING_STANDARDS.defaultRuleSet('WA', { zone, longitude: lon })).toBe('wa_fpa_east')
  })

  it('splits Washington’s subalpine sites at 121.3° W', () => {
    const rule = (lon: number) =>
      STOCKING_STANDARDS.defaultRuleSet('WA', { zone: 'subalpine', longitude: lon })
    expect(rule(-123.7)).toBe('wa_fpa_west') // Olympics
    expect(rule(-121.76)).toBe('wa_fpa_west') // Mount Rainier
    expect(rule(-121.3001)).toBe('wa_fpa_west')
    expect(rule(-121.3)).toBe('wa_fpa_east')
    expect(rule(-120.7)).toBe('wa_fpa_east')
    expect(rule(-117.2)).toBe('wa_fpa_east')
  })

  it('never answers the other state’s rule', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FOREST_ZONES), longitude, (zone, lon) => {
        expect(STOCKING_STANDARDS.defaultRuleSet('WA', { zone, longitude: lon })).toMatch(
          /^wa_fpa_(west|east)$/,
        )
      }),
    )
  })
})

describe('crestSide', () => {
  it('places each zone on its side of the Cascade crest', () => {
    for (const zone of WEST_ZONES) expect(crestSide({ zone, longitude: -120 })).toBe('west')
    for (const zone of EAST_ZONES) expect(crestSide({ zone, longitude: -123 })).toBe('east')
    expect(crestSide({ zone: 'klamath', longitude: -123 })).toBe('west')
    expect(crestSide({ zone: 'subalpine', longitude: -122 })).toBe('west')
    expect(crestSide({ zone: 'subalpine', longitude: -121 })).toBe('east')
  })
})

describe('STOCKING_STANDARDS.rule', () => {
  it.each([
    ['I-III', 200, false],
    ['IV-V', 120, true],
    ['VI', 100, true],
  ] as const)('Oregon, site class %s: %i trees per acre, verify %s', (siteClass, tpa, verify) => {
    const rule = STOCKING_STANDARDS.rule('or_fpa', siteClass)
    expect(rule).toMatchObject({
      id: 'or_fpa',
      minimumTreesPerAcre: tpa,
      horizonYears: 5,
      siteClass,
      verify,
      hardwoodShareCap: 0.2,
    })
    expect(rule.status.startsWith('verify')).toBe(verify)
    expect(rule.citation).toContain('OAR 629-610-0020')
    expect(rule.sources.length).toBeGreaterThan(0)
  })

  it('Oregon’s hardwood cap is 20 %', () => {
    expect(OREGON_HARDWOOD_SHARE_CAP).toBe(0.2)
  })

  it.each([
    ['wa_fpa_west', 190, 'WAC 222-34-010'],
    ['wa_fpa_east', 150, 'WAC 222-34-020'],
  ] as const)(
    '%s: %i trees per acre after one growing season, whatever the site class',
    (id, tpa, citation) => {
      for (const siteClass of SITE_CLASSES) {
        const rule = STOCKING_STANDARDS.rule(id, siteClass)
        expect(rule).toMatchObject({
          id,
          minimumTreesPerAcre: tpa,
          horizonYears: 1,
          siteClass: null,
          verify: false,
          hardwoodShareCap: null,
        })
        expect(rule.citation).toContain(citation)
        expect(rule.sources.length).toBeGreaterThan(0)
      }
    },
  )

  it('says which rule sets depend on the site class: Oregon’s only', () => {
    expect(RULE_SET_IDS.filter((id) => STOCKING_STANDARDS.hasSiteClasses(id))).toEqual(['or_fpa'])
  })

  it('carries the reference’s caution that a plan is an illustration, not a compliance determination', () => {
    expect(STOCKING_STANDARDS.description).toContain('not a compliance determination')
  })

  it('refuses a reference that lacks a rule set, a site class or a minimum', () => {
    const reference = structuredClone(STOCKING_STANDARDS.reference)
    expect(
      () =>
        new StockingStandards({
          ...reference,
          rule_sets: reference.rule_sets.filter((set) => set.id !== 'wa_fpa_east'),
        }),
    ).toThrow(/wa_fpa_east/)

    const noClassVI = structuredClone(reference)
    const oregon = noClassVI.rule_sets.find((set) => set.id === 'or_fpa')
    if (!oregon?.minimum_free_to_grow_seedlings_tpa) throw new Error('the reference has no Oregon classes')
    oregon.minimum_free_to_grow_seedlings_tpa = oregon.minimum_free_to_grow_seedlings_tpa.filter(
      (row) => row.site_class !== 'VI',
    )
    expect(() => new StockingStandards(noClassVI).rule('or_fpa', 'VI')).toThrow(/site class VI/)

    const noMinimum = structuredClone(reference)
    const west = noMinimum.rule_sets.find((set) => set.id === 'wa_fpa_west')
    if (west) delete west.minimum_seedlings_tpa
    expect(() => new StockingStandards(noMinimum).rule('wa_fpa_west', 'I-III')).toThrow(/no minimum/)
  })
})
