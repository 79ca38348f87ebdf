import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fieldsOfTreatments, overDefaults, treatmentsOfFields } from './treatment-fields.ts'
import { TREATMENT_NAMES, TREATMENT_VALUES, type TreatmentsRequest } from './treatment-values.ts'

const DOMAIN: Record<(typeof TREATMENT_NAMES)[number], keyof TreatmentsRequest> = {
  vegetation_control: 'vegetationControl',
  animal_protection: 'animalProtection',
  stock_type: 'stockType',
  shade: 'shade',
}

/** Any treatments object: each field a value, `none`, null or left out. */
const anyTreatments = fc.record(
  Object.fromEntries(
    TREATMENT_NAMES.map((name) => [DOMAIN[name], fc.constantFrom(...TREATMENT_VALUES[name], null)]),
  ) as Record<keyof TreatmentsRequest, fc.Arbitrary<string | null>>,
  { requiredKeys: [] },
)

describe('overDefaults', () => {
  it('takes, value by value, the row’s own where it names one and the default elsewhere', () => {
    fc.assert(
      fc.property(fc.option(anyTreatments), fc.option(anyTreatments), (own, defaults) => {
        const merged = overDefaults(own, defaults) ?? {}
        for (const field of Object.values(DOMAIN)) {
          const expected = own?.[field] ?? defaults?.[field] ?? null
          expect(merged[field] ?? null).toBe(expected)
        }
        if (!defaults) expect(overDefaults(own, defaults)).toBe(own ?? undefined)
      }),
    )
  })

  it('goes to the API names and back without loss, null and absent alike', () => {
    fc.assert(
      fc.property(anyTreatments, (request) => {
        const named = treatmentsOfFields(fieldsOfTreatments(request))
        const given = Object.fromEntries(Object.entries(request).filter(([, v]) => v != null))
        expect(named ?? {}).toEqual(given)
      }),
    )
  })
})
