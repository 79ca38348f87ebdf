import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { surveyFileFormats } from '../../survey-files/survey-upload-rows.ts'
import { ApiError } from '../errors.ts'
import { TREATMENT_NAMES, TREATMENT_VALUES, type TreatmentName } from '../treatment-values.ts'
import { TREATMENTS } from '../treatments.ts'
import { fieldOfRefusal } from './plot-predictions.ts'
import { readSurveyPlot } from './survey-plot-reader.ts'
import type { SurveyUploadItem } from './survey-upload-service.ts'

/**
 * A plot's `treatments` (docs/surveys.md): read by the same rule as a prediction's, shown as sent, and
 * refused for drone seeding as a prediction refuses it, naming the plot's field; CSV columns read as
 * the same object.
 */

const PLOT = {
  plot_id: 'p',
  latitude: 44.6,
  longitude: -123.6,
  species_code: 'PSME',
  planting_method: 'manual',
  planted_on: '2021-03-15',
  surveyed_on: '2024-03-15',
  planted: 40,
  alive: 30,
}

/** A value for each treatment: one of its own, null, absent, or a string it does not take. */
const treatmentValue = (name: TreatmentName) =>
  fc.oneof(
    fc.constantFrom(...TREATMENT_VALUES[name]),
    fc.constant(null),
    fc.constant(undefined),
    fc.string({ maxLength: 12 }),
  )

const treatments = fc.record(
  Object.fromEntries(TREATMENT_NAMES.map((name) => [name, treatmentValue(name)])) as Record<
    TreatmentName,
    fc.Arbitrary<string | null | undefined>
  >,
)

const allowed = (name: TreatmentName, value: unknown) =>
  value == null || (TREATMENT_VALUES[name] as readonly unknown[]).includes(value)

const defined = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))

describe('a survey plot’s treatments', () => {
  it('are read when every value is one the treatment takes, and refused naming the first that is not', () => {
    fc.assert(
      fc.property(treatments, fc.nat(999), (fields, index) => {
        const sent = defined(fields)
        const bad = TREATMENT_NAMES.find((name) => !allowed(name, fields[name]))
        let read: ReturnType<typeof readSurveyPlot> | undefined
        let error: unknown
        try {
          read = readSurveyPlot({ ...PLOT, treatments: sent }, index)
        } catch (caught) {
          error = caught
        }
        if (!bad) {
          const named = TREATMENT_NAMES.filter((name) => fields[name] != null)
          expect(read?.treatments ?? null).toEqual(named.length > 0 ? expect.any(Object) : null)
          return
        }
        expect(error).toBeInstanceOf(ApiError)
        const { code, details } = error as ApiError
        expect(code).toBe('invalid_request')
        expect(details).toMatchObject({
          index,
          field: `treatments.${bad}`,
          reason: `must be one of ${TREATMENT_VALUES[bad].join(', ')}`,
        })
      }),
    )
  })

  it('refuse unknown fields inside treatments', () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 20 })
          .filter((key) => !(TREATMENT_NAMES as string[]).includes(key)),
        (key) => {
          expect(() => readSurveyPlot({ ...PLOT, treatments: { [key]: 'none' } }, 0)).toThrow(ApiError)
        },
      ),
    )
  })

  it('for drone seeding: only vegetation control is taken, the rest refused as invalid_treatment naming treatments.<name>', () => {
    const valid = fc.record(
      Object.fromEntries(
        TREATMENT_NAMES.map((name) => [
          name,
          fc.option(fc.constantFrom(...TREATMENT_VALUES[name]), { nil: undefined }),
        ]),
      ) as Record<TreatmentName, fc.Arbitrary<string | undefined>>,
    )
    fc.assert(
      fc.property(valid, (fields) => {
        const plot = readSurveyPlot(
          { ...PLOT, planting_method: 'drone_seeded', treatments: defined(fields) },
          3,
        )
        const refused = TREATMENT_NAMES.find(
          (name) => name !== 'vegetation_control' && fields[name] != null && fields[name] !== 'none',
        )
        let error: unknown
        try {
          TREATMENTS.resolve(plot.treatments, 'drone_seeded')
        } catch (caught) {
          error = caught
        }
        if (!refused) expect(error).toBeUndefined()
        else {
          expect((error as ApiError).code).toBe('invalid_treatment')
          expect(fieldOfRefusal(error as ApiError)).toBe(`treatments.${refused}`)
        }
      }),
    )
  })

  it('read from CSV columns are the same object the JSON plot takes; empty cells name nothing', async () => {
    await fc.assert(
      fc.asyncProperty(treatments, async (fields) => {
        const cells = TREATMENT_NAMES.map((name) => (fields[name] == null ? '' : (fields[name] as string)))
        // A comma or quote would not survive this naive row; CSV quoting has its own tests.
        fc.pre(cells.every((cell) => !/[",\r\n]/.test(cell)))
        const header = [...Object.keys(PLOT), ...TREATMENT_NAMES]
        const row = [...Object.values(PLOT).map(String), ...cells]
        async function* records() {
          yield header
          yield row
        }
        const items: SurveyUploadItem[] = []
        for await (const item of surveyFileFormats.read({ format: 'csv', records: records() }))
          items.push(item)
        const [, item] = items
        const asJson = (() => {
          try {
            const trimmed = Object.fromEntries(
              TREATMENT_NAMES.map((name, i) => [name, cells[i]?.trim() || undefined]),
            )
            const named = defined(trimmed)
            return {
              plot: readSurveyPlot(
                { ...PLOT, ...(Object.keys(named).length ? { treatments: named } : {}) },
                1,
              ),
            }
          } catch (error) {
            return { error: (error as ApiError).details as { field: string } }
          }
        })()
        if (asJson.plot)
          expect(item && 'plot' in item ? item.plot.treatments : 'refused').toEqual(asJson.plot.treatments)
        else expect(item && 'refused' in item ? item.refused.field : 'read').toBe(asJson.error?.field)
      }),
    )
  })
})
