import { describe, expect, it } from 'vitest'
import { planFieldOf } from './plan-error-fields.ts'

describe('the input an API error is about', () => {
  it('reads GraphQL and REST field paths', () => {
    expect(planFieldOf('input.speciesMix')).toBe('mix')
    expect(planFieldOf('species_mix[1].species_code')).toBe('mix')
    expect(planFieldOf('input.stand.coordinates[0]')).toBe('stand')
    expect(planFieldOf('input.treesPerHectare')).toBe('density')
    expect(planFieldOf('input.confidence')).toBe('confidence')
    expect(planFieldOf('input.siteClass')).toBe('siteClass')
    expect(planFieldOf('input.somethingElse')).toBeNull()
    expect(planFieldOf(undefined)).toBeNull()
  })
})
