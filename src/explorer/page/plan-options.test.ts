import { describe, expect, it } from 'vitest'
import type { StockingPlanInput } from './generated/operations.ts'
import { statusDetail } from './options-view.ts'
import { optionsInput } from './plan-options.ts'
import { treatmentsText, treatmentWords } from './plan-treatments.ts'

describe('the Options view’s input', () => {
  const plan: StockingPlanInput = {
    latitude: 44.2,
    longitude: -122.2,
    plantingMethod: 'MANUAL',
    speciesMix: [{ speciesCode: 'PSME', share: 1 }],
    treesPerAcre: 300,
    confidence: 0.8,
    siteClass: 'IV-V',
    treatments: { animalProtection: 'MESH_TUBES' },
    costs: { tubesPerTree: 2.9 },
    modelVersion: '0.2',
  }

  it('keeps the place, the mix, the confidence, the costs and the version; drops what the search weighs', () => {
    expect(optionsInput(plan)).toEqual({
      latitude: 44.2,
      longitude: -122.2,
      speciesMix: [{ speciesCode: 'PSME', share: 1 }],
      confidence: 0.8,
      costs: { tubesPerTree: 2.9 },
      modelVersion: '0.2',
    })
  })

  it('sends a stand without a point', () => {
    const stand = { type: 'Polygon', coordinates: [] }
    const input = optionsInput({ ...plan, latitude: undefined, longitude: undefined, stand, costs: null })
    expect(input).toEqual({
      stand,
      speciesMix: plan.speciesMix,
      confidence: 0.8,
      modelVersion: '0.2',
    })
  })
})

describe('treatments in words', () => {
  it('names each treatment with an effect, and none as no treatment', () => {
    expect(
      treatmentsText({
        vegetationControl: 'site_prep_release_1yr',
        animalProtection: 'mesh_tubes',
        shade: 'none',
      }),
    ).toBe('site prep + one release, mesh tubes')
    expect(treatmentsText({ vegetationControl: 'none', stockType: null })).toBe('no treatment')
    expect(treatmentWords('stock_type', 'container')).toBe('container')
    expect(treatmentWords('shade', null)).toBeNull()
  })
})

describe('what an option’s status rests on', () => {
  const part = {
    item: 'seedlings',
    speciesCode: 'PSME',
    unit: 'tree',
    unitCost: 0.9,
    quantity: 300,
    perAcre: 270,
    status: 'PUBLISHED' as const,
    priceYear: 2024,
  }
  const cost = { parts: [part] } as unknown as Parameters<typeof statusDetail>[0]['cost']

  it('names each cost part’s and each effect’s status, and an effect whose share the surveys gave', () => {
    expect(
      statusDetail({
        cost,
        treatmentEffects: [
          {
            treatment: 'vegetation_control',
            value: 'release_2yr',
            shareFrom: 'calibration',
            status: 'SYNTHESIS',
          },
          {
            treatment: 'animal_protection',
            value: 'mesh_tubes',
            shareFrom: 'reference',
            status: 'SYNTHESIS',
          },
        ],
      }),
    ).toBe(
      'seedlings PSME: published; release_2yr effect: synthesis, its share from your surveys; mesh_tubes effect: synthesis',
    )
  })
})
