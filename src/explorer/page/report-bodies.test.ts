import { describe, expect, it } from 'vitest'
import { browserLanguage, compareReport, planReport, rankReport } from './report-bodies.ts'

/** The explorer's "Download PDF": a tab's GraphQL variables as the REST body of the same request. */

describe('report bodies', () => {
  it('a comparison: the contract’s names, treatments’ values as REST spells them, the version that answered', () => {
    expect(
      compareReport(
        {
          latitude: 44.2,
          longitude: -122.2,
          speciesCode: 'TSHE',
          horizons: [1, 5],
          climate: { period: '2041-2070', scenario: 'ssp245' },
          treatments: { vegetationControl: 'RELEASE_1YR', animalProtection: null },
          modelVersion: '0.1',
        },
        '0.2',
      ),
    ).toEqual({
      path: '/v1/predict/compare',
      body: {
        latitude: 44.2,
        longitude: -122.2,
        species_code: 'TSHE',
        horizons: [1, 5],
        climate: { period: '2041-2070', scenario: 'ssp245' },
        treatments: { vegetation_control: 'release_1yr' },
        model_version: '0.2',
      },
    })
  })

  it('a ranking: the method as REST spells it, no climate for today’s', () => {
    expect(
      rankReport(
        { latitude: 44, longitude: -121.6, plantingMethod: 'DRONE_SEEDED', horizon: 3, climate: null },
        '0.2',
      ),
    ).toEqual({
      path: '/v1/predict/rank',
      body: {
        latitude: 44,
        longitude: -121.6,
        planting_method: 'drone_seeded',
        horizon: 3,
        model_version: '0.2',
      },
    })
  })

  it('a plan of a stand: the stand as it was sent, every field set and nothing absent', () => {
    const stand = {
      type: 'Polygon',
      coordinates: [
        [
          [-123.6, 44.6],
          [-123.5, 44.6],
          [-123.5, 44.7],
          [-123.6, 44.6],
        ],
      ],
    }
    expect(
      planReport(
        {
          stand,
          plantingMethod: 'MANUAL',
          speciesMix: [
            { speciesCode: 'PSME', share: 0.6 },
            { speciesCode: 'TSHE', share: 0.4 },
          ],
          treesPerHectare: 900,
          confidence: 0.8,
          ruleSet: 'or_fpa',
          siteClass: 'IV-V',
          targetTreesPerAcre: 250,
          latitude: null,
        },
        '0.2',
      ),
    ).toEqual({
      path: '/v1/plans/stocking',
      body: {
        stand,
        planting_method: 'manual',
        species_mix: [
          { species_code: 'PSME', share: 0.6 },
          { species_code: 'TSHE', share: 0.4 },
        ],
        trees_per_hectare: 900,
        confidence: 0.8,
        rule_set: 'or_fpa',
        site_class: 'IV-V',
        target_trees_per_acre: 250,
        model_version: '0.2',
      },
    })
  })

  it('the browser’s first language, or English for none or a value that is not a tag', () => {
    expect(browserLanguage(['es-MX', 'en'], 'es-MX')).toBe('es-MX')
    expect(browserLanguage([], 'en-GB')).toBe('en-GB')
    expect(browserLanguage(undefined, undefined)).toBe('en')
    expect(browserLanguage(['not a tag'], 'x')).toBe('en')
  })
})
