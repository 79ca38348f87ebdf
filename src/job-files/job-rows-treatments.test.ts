import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TREATMENT_NAMES, TREATMENT_VALUES, type TreatmentsRequest } from '../domain/treatment-values.ts'
import { csvLayout, csvRow } from './job-rows.ts'

const DOMAIN: Record<(typeof TREATMENT_NAMES)[number], keyof TreatmentsRequest> = {
  vegetation_control: 'vegetationControl',
  animal_protection: 'animalProtection',
  stock_type: 'stockType',
  shade: 'shade',
}

describe('a CSV row’s treatment cells', () => {
  const header = ['latitude', 'longitude', 'species_code', 'planting_method', ...TREATMENT_NAMES]
  const layout = csvLayout(header)

  it('asks for each trimmed value, takes an empty cell as none named, and refuses any other text naming its column', () => {
    const cell = (name: (typeof TREATMENT_NAMES)[number]) =>
      fc.oneof(
        fc.constantFrom(...TREATMENT_VALUES[name], '', '  '),
        fc.constantFrom(...TREATMENT_VALUES[name]).map((value) => ` ${value} `),
        fc.string({ maxLength: 12 }),
      )
    fc.assert(
      fc.property(fc.tuple(...TREATMENT_NAMES.map(cell)), (cells) => {
        const row = csvRow(layout, 1, ['44.6', '-123.6', 'PSME', 'manual', ...cells])
        const bad = TREATMENT_NAMES.findIndex((name, i) => {
          const text = (cells[i] as string).trim()
          return text !== '' && !(TREATMENT_VALUES[name] as readonly string[]).includes(text)
        })
        if (bad !== -1) {
          expect(row.e?.code).toBe('invalid_request')
          expect(row.e?.message).toMatch(new RegExp(`^${TREATMENT_NAMES[bad]} must be one of `))
          return
        }
        expect(row.e).toBeUndefined()
        const expected: TreatmentsRequest = {}
        TREATMENT_NAMES.forEach((name, i) => {
          const text = (cells[i] as string).trim()
          if (text !== '') expected[DOMAIN[name]] = text
        })
        if (Object.keys(expected).length === 0) expect(row.q).not.toHaveProperty('treatments')
        else expect(row.q?.treatments).toEqual(expected)
      }),
    )
  })
})
