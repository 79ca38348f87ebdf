import { describe, expect, it } from 'vitest'
import { apiError, invalidField } from '../domain/errors.ts'
import { messageInContractNames } from './contract-names.ts'

describe('messageInContractNames', () => {
  it('spells the fields a plan names in snake_case, in the field and in the reason', () => {
    expect(
      messageInContractNames(
        invalidField('speciesMix[1].speciesCode', 'repeats PSME; list each species once'),
      ),
    ).toBe('species_mix[1].species_code repeats PSME; list each species once')
    expect(
      messageInContractNames(invalidField('treesPerAcre', 'is required (or send treesPerHectare)')),
    ).toBe('trees_per_acre is required (or send trees_per_hectare)')
  })

  it('leaves names without capitals, codes and other errors as they are', () => {
    expect(messageInContractNames(invalidField('stand.coordinates[0]', 'encloses no area'))).toBe(
      'stand.coordinates[0] encloses no area',
    )
    expect(
      messageInContractNames(
        invalidField('siteClass', "applies only to Oregon's rule (or_fpa); wa_fpa_west has one standard"),
      ),
    ).toBe("site_class applies only to Oregon's rule (or_fpa); wa_fpa_west has one standard")
    const unknown = apiError('invalid_species', { code: 'PSMA' })
    expect(messageInContractNames(unknown)).toBe(unknown.message)
  })
})
