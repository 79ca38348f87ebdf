import { z } from 'zod'
import { HORIZONS, type Horizon, SPECIES_GROUPS } from '../types.ts'
import { invalidField } from './errors.ts'
import { ANIMAL_PROTECTION, SHADE, STOCK_TYPES, VEGETATION_CONTROL } from './treatment-values.ts'

/**
 * The rule of every input field, once: REST builds its snake_case bodies from these, GraphQL validates
 * its camelCase inputs with the same schemas (Pothos zod plugin). Only types, presence and ranges are
 * judged here; whether a species code or planting method exists is the catalogue's question
 * (invalid_species / invalid_method, 422).
 */
export const latitude = z
  .number({ error: 'must be a number' })
  .min(-90, 'must be from -90 to 90')
  .max(90, 'must be from -90 to 90')

export const longitude = z
  .number({ error: 'must be a number' })
  .min(-180, 'must be from -180 to 180')
  .max(180, 'must be from -180 to 180')

/** Any of 1, 3 and 5 (repeats allowed, at most 10 entries); absent means all three. */
export const horizons = z
  .array(z.number({ error: 'must be a number' }).int('must be 1, 3 or 5'), {
    error: 'must be an array of 1, 3 and 5',
  })
  .min(1, 'must hold at least one of 1, 3, 5')
  .max(10, 'must hold at most 10 entries')
  .refine(
    (values): values is Horizon[] => values.every((h) => (HORIZONS as readonly number[]).includes(h)),
    'may only contain 1, 3 and 5',
  )

/** One horizon: 1, 3 or 5 (species ranking, survival map). */
export const horizon = z
  .number({ error: 'must be a number' })
  .int('must be 1, 3 or 5')
  .refine((value): value is Horizon => (HORIZONS as readonly number[]).includes(value), 'must be 1, 3 or 5')

/** Survival map cells: at least 10 km across (finer cells are single sites), at most 200 km. */
export const CELL_KM_MIN = 10
export const CELL_KM_MAX = 200
export const cellKm = z
  .number({ error: 'must be a number' })
  .min(CELL_KM_MIN, `must be from ${CELL_KM_MIN} to ${CELL_KM_MAX}`)
  .max(CELL_KM_MAX, `must be from ${CELL_KM_MIN} to ${CELL_KM_MAX}`)

/**
 * A future climate (the Seedlot Selection Tool's identifiers): period and scenario as sent; whether
 * they name a known future is the climate catalogue's question (invalid_climate, 422).
 */
export const climate = z.strictObject(
  {
    period: z.string({ error: 'must be a string' }).max(40, 'is too long').nullish(),
    scenario: z.string({ error: 'must be a string' }).max(40, 'is too long').nullish(),
  },
  { error: 'must be an object {period, scenario}' },
)

/** One treatment's value (docs/treatments.md): one of a fixed list, named in the error. */
function treatmentValue<const T extends readonly [string, ...string[]]>(values: T) {
  const rule = `must be one of ${values.join(', ')}`
  return z.enum(values, { error: rule })
}
export const vegetationControl = treatmentValue(VEGETATION_CONTROL)
export const animalProtection = treatmentValue(ANIMAL_PROTECTION)
export const stockType = treatmentValue(STOCK_TYPES)
export const shade = treatmentValue(SHADE)

/** A species code or planting method as sent; the catalogue decides whether it names one. */
export const catalogueCode = z.string({ error: 'must be a string' }).max(100, 'is too long')

/** A model version string as the API takes it: at most this long. */
export const MODEL_VERSION_MAX_LENGTH = 64

/** A model version to answer with (GET /v1/models); one the account cannot use is invalid_model_version. */
export const modelVersion = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(MODEL_VERSION_MAX_LENGTH, `must be at most ${MODEL_VERSION_MAX_LENGTH} characters`)

/** A batch: at least one site; the tier's batch size is checked against the caller later. */
export function batchOf<T extends z.ZodType>(item: T) {
  return z.array(item, { error: 'must be an array of sites' }).min(1, 'must hold at least one site')
}

export const speciesGroup = z.enum(SPECIES_GROUPS, { error: 'must be conifer or hardwood' })
export const speciesSearch = z.string({ error: 'must be a string' }).max(100, 'is too long')
export const forestZone = z.string({ error: 'must be a string' }).max(40, 'is too long')

/** `sites[3].latitude` style path of an input field. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, part) =>
      typeof part === 'number' || /^\d+$/.test(String(part))
        ? `${out}[${String(part)}]`
        : out
          ? `${out}.${String(part)}`
          : String(part),
    '',
  )
}

/**
 * The invalid_request error for the first issue zod found, with `details` = `{field, reason}`.
 * `subject` names what was parsed ("request body", "query string") for a wrong root.
 */
export function inputError(error: z.ZodError, subject = 'request body') {
  const issue = error.issues[0]
  if (!issue) return invalidField('(root)', 'is invalid', subject)
  if (issue.path.length === 0 && issue.code !== 'unrecognized_keys') {
    return invalidField('(root)', issue.message, subject)
  }
  const path = issue.path
  const field = fieldPath(issue.code === 'unrecognized_keys' ? [...path, issue.keys[0] ?? ''] : path)
  const reason =
    issue.code === 'unrecognized_keys'
      ? 'is not a recognized field'
      : issue.code === 'invalid_type' && issue.input === undefined
        ? 'is required'
        : issue.message
  return invalidField(field, reason, subject)
}

/** How many risk factors a horizon shows when asked (GraphQL `riskFactors(limit)`). */
export const riskFactorLimit = z.object({ limit: z.number().int().min(1).max(50) })

/** Parses input against a schema, or throws invalid_request naming the first offending field. */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, subject = 'request body'): T {
  const result = schema.safeParse(input, { reportInput: true })
  if (result.success) return result.data
  throw inputError(result.error, subject)
}

/** A contact address for a self-service key (stored for contact, never logged). */
export const email = z.email({ error: 'must be an email address' }).max(254, 'must be at most 254 characters')

export const keyName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')

/** How long a rolled key keeps working: at most a day when the holder rolls it. */
export const graceSeconds = z
  .number({ error: 'must be a number' })
  .int('must be a whole number of seconds')
  .min(0, 'must be from 0 to 86400')
  .max(86_400, 'must be from 0 to 86400')

/** Events on one page of an account's audit log: 1 to 100. */
export const AUDIT_PAGE_MAX = 100
const AUDIT_PAGE_RULE = `must be a whole number from 1 to ${AUDIT_PAGE_MAX}`
export const auditPageSize = z
  .number({ error: AUDIT_PAGE_RULE })
  .int(AUDIT_PAGE_RULE)
  .min(1, AUDIT_PAGE_RULE)
  .max(AUDIT_PAGE_MAX, AUDIT_PAGE_RULE)

/** An audit page's cursor as sent; whether it is one the log handed out is the audit service's question. */
export const auditCursor = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(200, 'is too long')

/** [longitude, latitude] (RFC 7946 order), with an optional altitude that is ignored. */
const position = z
  .array(z.number({ error: 'must be a number' }), { error: 'must be a position [longitude, latitude]' })
  .min(2, 'must be a position [longitude, latitude]')
  .max(3, 'must be a position [longitude, latitude] (with at most an altitude)')
  .superRefine((values, context) => {
    const [lon = 0, lat = 0] = values
    if (lon < -180 || lon > 180)
      context.addIssue({ code: 'custom', message: 'has a longitude outside -180 to 180' })
    else if (lat < -90 || lat > 90)
      context.addIssue({ code: 'custom', message: 'has a latitude outside -90 to 90' })
  })
const ring = z.array(position, { error: 'must be a linear ring (an array of positions)' })
const polygonCoordinates = z
  .array(ring, { error: 'must be an array of linear rings' })
  .min(1, 'must hold an exterior ring')

/**
 * A stand: a GeoJSON Polygon or MultiPolygon geometry, or a Feature holding one (RFC 7946; foreign members
 * allowed). Only the shape is judged here; rings, self-intersections and size are the plan's checks.
 */
const polygonGeometry = z.object({ type: z.literal('Polygon'), coordinates: polygonCoordinates })
const multiPolygonGeometry = z.object({
  type: z.literal('MultiPolygon'),
  coordinates: z
    .array(polygonCoordinates, { error: 'must be an array of polygons' })
    .min(1, 'must hold at least one polygon'),
})
const standGeometryShape = z.discriminatedUnion('type', [polygonGeometry, multiPolygonGeometry], {
  error: 'must be a GeoJSON Polygon or MultiPolygon (or a Feature holding one)',
})
export const stand = z.union(
  [
    standGeometryShape,
    // Its properties are kept as sent (a report titles a stand by properties.name), never judged.
    z.object({
      type: z.literal('Feature'),
      properties: z.unknown().optional(),
      geometry: standGeometryShape,
    }),
  ],
  { error: 'must be a GeoJSON Polygon or MultiPolygon (or a Feature holding one)' },
)
export type StandInput = z.infer<typeof stand>

/** Planted or target density, trees per acre (a 3 × 3 ft grid is about 4,840). */
export const TREES_PER_ACRE_MAX = 5000
export const TREES_PER_HECTARE_PER_ACRE = 2.471
export const treesPerAcre = z
  .number({ error: 'must be a number' })
  .gt(0, `must be above 0 and at most ${TREES_PER_ACRE_MAX}`)
  .max(TREES_PER_ACRE_MAX, `must be above 0 and at most ${TREES_PER_ACRE_MAX}`)
export const treesPerHectare = z
  .number({ error: 'must be a number' })
  .gt(0, `must be above 0 and at most ${Math.round(TREES_PER_ACRE_MAX * TREES_PER_HECTARE_PER_ACRE)}`)
  .max(
    Math.round(TREES_PER_ACRE_MAX * TREES_PER_HECTARE_PER_ACRE),
    `must be above 0 and at most ${Math.round(TREES_PER_ACRE_MAX * TREES_PER_HECTARE_PER_ACRE)}`,
  )

/** A plan's confidence, or an interval's level. */
export const CONFIDENCE_MIN = 0.5
export const CONFIDENCE_MAX = 0.99
export const confidence = z
  .number({ error: 'must be a number' })
  .min(CONFIDENCE_MIN, `must be from ${CONFIDENCE_MIN} to ${CONFIDENCE_MAX}`)
  .max(CONFIDENCE_MAX, `must be from ${CONFIDENCE_MIN} to ${CONFIDENCE_MAX}`)

/** One species of a planting mix; the shares of a mix sum to 1 (checked with the mix). */
export const speciesShare = z
  .number({ error: 'must be a number' })
  .gt(0, 'must be above 0 and at most 1')
  .max(1, 'must be above 0 and at most 1')
export const SPECIES_MIX_MAX = 20
export const ruleSetId = z.string({ error: 'must be a string' }).max(40, 'is too long')
export const siteClassName = z.string({ error: 'must be a string' }).max(20, 'is too long')
