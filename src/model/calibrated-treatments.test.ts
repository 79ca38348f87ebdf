import { describe, expect, it } from 'vitest'
import { TEST_POPULATION } from '../../test/support/model/population.ts'
import { SPECIES } from '../domain/species.ts'
import { TREATMENTS } from '../domain/treatments.ts'
import type { PlantingMethod, SiteAttributes } from '../types.ts'
import { type CalibratedGroup, calibratedModel } from './calibrated-model.ts'
import { loadSurvivalModel } from './loader.ts'

/** A calibrated version applies the treatment shares its surveys informed, in place of the reference's. */
const parent = loadSurvivalModel(SPECIES)
const METHODS: PlantingMethod[] = ['manual', 'drone_seeded']
const groups: CalibratedGroup[] = SPECIES.flatMap((species) =>
  METHODS.map((plantingMethod) => ({
    speciesCode: species.code,
    plantingMethod,
    offset: 0,
    interval: [-0.1, 0.1] as [number, number],
    level: 0.9,
    variance: 0,
    plots: 0,
    trees: 0,
  })),
)
const terms = parent.uncertainty
const psme = SPECIES.find((s) => s.code === 'PSME') as (typeof SPECIES)[number]
const release = TREATMENTS.resolve({ vegetationControl: 'release_2yr' }, 'manual')
if (!release) throw new Error('release_2yr has no effect')
const effect = release.modelEffects[0] as (typeof release.modelEffects)[number]

describe('a calibrated version’s treatment shares', () => {
  const plain = calibratedModel(parent, { version: '0.2+cal.00000001', uncertainty: terms, groups })
  const informed = calibratedModel(parent, {
    version: '0.2+cal.00000002',
    uncertainty: terms,
    groups,
    treatmentShares: new Map([
      [
        `${effect.treatment}=${effect.value}`,
        { reduction: 0.9, reductionSd: 0.01, reductionRange: [0.88, 0.92] },
      ],
    ]),
  })
  // A site where the effect's factor weighs: the treatment gains something there.
  const site = TEST_POPULATION.find((s) => {
    const [treated] = parent.predict(s, psme, 'manual', [5], release.modelEffects)
    return (treated?.treatment?.effectSlopes[0] ?? 0) > 0.2
  }) as SiteAttributes

  it('without shares, a treated prediction is the parent’s; with them, the informed share is applied', () => {
    const [base] = parent.predict(site, psme, 'manual', [5], release.modelEffects)
    const [same] = plain.predict(site, psme, 'manual', [5], release.modelEffects)
    const [moved] = informed.predict(site, psme, 'manual', [5], release.modelEffects)
    expect(same?.logOdds).toBe(base?.logOdds)
    const slope = base?.treatment?.effectSlopes[0] as number
    // The gain is linear in the share while it is below the factor's whole penalty.
    expect(moved?.logOdds).toBeCloseTo((base?.logOdds as number) + slope * (0.9 - effect.reduction), 10)
    expect(moved?.treatment?.effectSd).toBeLessThan(base?.treatment?.effectSd as number)
  })

  it('leaves untreated predictions exactly as the version without shares gives them', () => {
    for (const s of TEST_POPULATION.slice(0, 20))
      expect(informed.predict(s, psme, 'manual')).toEqual(plain.predict(s, psme, 'manual'))
  })
})
