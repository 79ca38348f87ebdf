import { z } from 'zod'
import { invalidField } from '../domain/errors.ts'
import { parseInput } from '../domain/input-rules.ts'
import { TREATMENT_FIELDS, treatmentsOfFields } from '../domain/treatment-fields.ts'
import { TREATMENT_NAMES, type TreatmentsRequest } from '../domain/treatment-values.ts'

const TreatmentsQuery = z.strictObject(TREATMENT_FIELDS)

/**
 * The treatments a query string names (`vegetation_control=release_2yr&…`), taken out of it so the
 * rest reads as before; undefined when it names none. A bad value, or one given twice, is
 * invalid_request naming the parameter.
 */
export function takeTreatments(params: URLSearchParams): TreatmentsRequest | undefined {
  const named: Record<string, string> = {}
  for (const name of TREATMENT_NAMES) {
    const values = params.getAll(name)
    if (values.length > 1) throw invalidField(name, 'must be given once', 'query string')
    if (values.length === 1) named[name] = values[0] as string
    params.delete(name)
  }
  return treatmentsOfFields(parseInput(TreatmentsQuery, named, 'query string'))
}
