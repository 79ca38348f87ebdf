import { describe, expect, it } from 'vitest'
import type { InformedShare } from '../types.ts'
import { asAppliedBy } from './treatment-shares.ts'
import { TREATMENTS } from './treatments.ts'

const applied = TREATMENTS.resolve(
  { vegetationControl: 'release_2yr', animalProtection: 'mesh_tubes' },
  'manual',
)
if (!applied) throw new Error('release_2yr and mesh_tubes have effects')

const informed: ReadonlyMap<string, InformedShare> = new Map([
  ['vegetation_control=release_2yr', { reduction: 0.7, reductionSd: 0.05, reductionRange: [0.62, 0.78] }],
])

describe('treatments as a version applies them', () => {
  it('are the resolved ones for a version without informed shares, and none stays none', () => {
    expect(asAppliedBy({}, applied)).toBe(applied)
    expect(asAppliedBy({ treatmentShares: new Map() }, applied)).toBe(applied)
    expect(asAppliedBy({ treatmentShares: informed }, null)).toBeNull()
  })

  it('describe an informed effect by the posterior, keep the reference figure, and leave the others', () => {
    const described = asAppliedBy({ treatmentShares: informed }, applied)
    const [release, tubes] = described.effects
    expect(release).toMatchObject({
      shareFrom: 'calibration',
      reduction: 0.7,
      reductionSd: 0.05,
      reductionRange: [0.62, 0.78],
      figure: applied.effects[0]?.figure,
      status: applied.effects[0]?.status,
    })
    expect(tubes).toBe(applied.effects[1])
    expect(tubes?.shareFrom).toBe('reference')
    // The model's own effects are not the description's business: the calibrated model applies them.
    expect(described.modelEffects).toBe(applied.modelEffects)
    // One frozen description per version and combination.
    expect(asAppliedBy({ treatmentShares: informed }, applied)).toBe(described)
    expect(Object.isFrozen(described)).toBe(true)
  })
})
