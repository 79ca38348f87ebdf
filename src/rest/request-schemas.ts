import { z } from 'zod'
import { ApiError } from '../domain/errors.ts'

/**
 * Shapes of the /v1 request bodies. Only types, presence and ranges are checked here; species codes
 * and planting methods are the domain's to judge (invalid_species / invalid_method, 422).
 */
const latitude = z
  .number({ error: 'must be a number' })
  .min(-90, 'must be from -90 to 90')
  .max(90, 'must be from -90 to 90')
const longitude = z
  .number({ error: 'must be a number' })
  .min(-180, 'must be from -180 to 180')
  .max(180, 'must be from -180 to 180')
const horizons = z
  .array(z.number({ error: 'must be a number' }).int('must be 1, 3 or 5'), {
    error: 'must be an array of 1, 3 and 5',
  })
  .min(1, 'must hold at least one of 1, 3, 5')
  .max(10, 'must hold at most 10 entries')
  .refine((values) => values.every((h) => h === 1 || h === 3 || h === 5), 'may only contain 1, 3 and 5')
const code = z.string({ error: 'must be a string' }).max(100, 'is too long')

export const PredictBody = z.strictObject({
  latitude,
  longitude,
  species_code: code,
  planting_method: code,
  horizons: horizons.optional(),
})

export const CompareBody = z.strictObject({
  latitude,
  longitude,
  species_code: code,
  horizons: horizons.optional(),
})

export const BatchBody = z.strictObject({
  sites: z
    .array(PredictBody, { error: 'must be an array of predict bodies' })
    .min(1, 'must hold at least one site'),
})

export const SpeciesQuery = z.strictObject({
  group: z.enum(['conifer', 'hardwood'], { error: 'must be conifer or hardwood' }).optional(),
  search: z.string().max(100, 'is too long').optional(),
  zone: z.string().max(40, 'is too long').optional(),
})

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, part) =>
      typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part),
    '',
  )
}

/** Parses input against a schema, or throws invalid_request naming the first offending field. */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, what = 'request body'): T {
  const result = schema.safeParse(input, { reportInput: true })
  if (result.success) return result.data
  const issue = result.error.issues[0]
  if (!issue) throw new ApiError('invalid_request', `The ${what} is invalid`)
  if (issue.path.length === 0 && issue.code !== 'unrecognized_keys') {
    throw new ApiError('invalid_request', `The ${what} must be a JSON object`, {
      field: '(root)',
      reason: issue.message,
    })
  }
  const field =
    issue.code === 'unrecognized_keys'
      ? fieldPath([...issue.path, issue.keys[0] ?? ''])
      : fieldPath(issue.path)
  const reason =
    issue.code === 'unrecognized_keys'
      ? 'is not a recognized field'
      : issue.code === 'invalid_type' && issue.input === undefined
        ? 'is required'
        : issue.message
  throw new ApiError('invalid_request', `${field} ${reason}`, { field, reason })
}
