import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApiError } from './errors.ts'
import {
  batchOf,
  catalogueCode,
  fieldPath,
  horizons,
  inputError,
  latitude,
  longitude,
  parseInput,
  speciesGroup,
} from './input-rules.ts'

/** A request body built from the rules the way the adapters build theirs (strict: unknown keys refused). */
const Site = z.strictObject({
  latitude,
  longitude,
  species_code: catalogueCode,
  planting_method: catalogueCode,
  horizons: horizons.optional(),
})
const Batch = z.strictObject({ sites: batchOf(Site) })

const validSite = { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' }

/** The ApiError parseInput throws for `input`; fails the test when it parses or throws anything else. */
function refusal(schema: z.ZodType, input: unknown, subject?: string): ApiError {
  try {
    parseInput(schema, input, subject)
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    return error as ApiError
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`)
}

/** Just `{field, reason}` of the refusal: the one details shape of invalid_request. */
const refused = (schema: z.ZodType, input: unknown) => refusal(schema, input).details

const inRange = (min: number, max: number) => fc.double({ min, max, noNaN: true })
const outOfRange = (min: number, max: number) =>
  fc.oneof(
    fc.double({ max: min, maxExcluded: true, noNaN: true, noDefaultInfinity: true }),
    fc.double({ min: max, minExcluded: true, noNaN: true, noDefaultInfinity: true }),
  )
/** Anything JSON (or a query string) could carry that is not a number. */
const notANumber = fc.oneof(
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
)

describe.each([
  ['latitude', -90, 90, 'must be from -90 to 90'],
  ['longitude', -180, 180, 'must be from -180 to 180'],
] as const)('%s', (field, min, max, reason) => {
  const body = (value: unknown) => ({ ...validSite, [field]: value })

  it(`accepts ${min} and ${max} themselves, and refuses anything just beyond`, () => {
    for (const edge of [min, max, 0, -0]) expect(parseInput(Site, body(edge))[field]).toBe(edge)
    for (const beyond of [min - 1e-9, max + 1e-9, min * 2, max * 2]) {
      expect(refused(Site, body(beyond))).toEqual({ field, reason })
    }
  })

  it('parses any in-range number unchanged', () => {
    fc.assert(
      fc.property(inRange(min, max), (value) => {
        expect(parseInput(Site, body(value))[field]).toBe(value)
      }),
    )
  })

  it('refuses any out-of-range number, naming the field and its range', () => {
    fc.assert(
      fc.property(outOfRange(min, max), (value) => {
        const error = refusal(Site, body(value))
        expect(error.details).toEqual({ field, reason })
        expect(error.message).toBe(`${field} ${reason}`)
      }),
    )
  })

  it('refuses anything that is not a finite number, naming the field', () => {
    fc.assert(
      fc.property(notANumber, (value) => {
        expect(refused(Site, body(value))).toEqual({ field, reason: 'must be a number' })
      }),
    )
  })

  it('says the field is required when it is missing', () => {
    const { [field]: _gone, ...without } = validSite
    const error = refusal(Site, without)
    expect(error.details).toEqual({ field, reason: 'is required' })
    expect(error.message).toBe(`${field} is required`)
  })
})

describe('horizons', () => {
  it('accepts any of 1, 3 and 5, in any order and with repeats, up to 10 entries', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(1, 3, 5), { minLength: 1, maxLength: 10 }), (asked) => {
        expect(horizons.parse(asked)).toEqual(asked)
      }),
    )
  })

  it('refuses an empty list and more than 10 entries', () => {
    expect(refused(horizons, [])).toEqual({ field: '(root)', reason: 'must hold at least one of 1, 3, 5' })
    expect(refused(Site, { ...validSite, horizons: [] })).toEqual({
      field: 'horizons',
      reason: 'must hold at least one of 1, 3, 5',
    })
    expect(refused(Site, { ...validSite, horizons: Array(11).fill(1) })).toEqual({
      field: 'horizons',
      reason: 'must hold at most 10 entries',
    })
  })

  it('refuses any whole number other than 1, 3 and 5', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(1, 3, 5), { maxLength: 5 }),
        fc.integer().filter((h) => h !== 1 && h !== 3 && h !== 5),
        fc.nat(5),
        (others, stranger, at) => {
          const asked = [...others.slice(0, at), stranger, ...others.slice(at)]
          expect(refused(Site, { ...validSite, horizons: asked })).toEqual({
            field: 'horizons',
            reason: 'may only contain 1, 3 and 5',
          })
        },
      ),
    )
  })

  it('names the offending entry when it is not a whole number', () => {
    expect(refused(Site, { ...validSite, horizons: [1, 2.5] })).toEqual({
      field: 'horizons[1]',
      reason: 'must be 1, 3 or 5',
    })
    expect(refused(Site, { ...validSite, horizons: ['1'] })).toEqual({
      field: 'horizons[0]',
      reason: 'must be a number',
    })
    expect(refused(Site, { ...validSite, horizons: '1,3' })).toEqual({
      field: 'horizons',
      reason: 'must be an array of 1, 3 and 5',
    })
  })
})

describe('species codes, planting methods and groups', () => {
  it('takes any string up to 100 characters: whether it names something is the catalogue’s call', () => {
    expect(parseInput(Site, { ...validSite, species_code: 'NOT A TREE' }).species_code).toBe('NOT A TREE')
    expect(parseInput(Site, { ...validSite, planting_method: 'x'.repeat(100) }).planting_method).toHaveLength(
      100,
    )
    expect(refused(Site, { ...validSite, planting_method: 'x'.repeat(101) })).toEqual({
      field: 'planting_method',
      reason: 'is too long',
    })
    expect(refused(Site, { ...validSite, species_code: 7 })).toEqual({
      field: 'species_code',
      reason: 'must be a string',
    })
  })

  it('knows exactly two species groups', () => {
    expect(speciesGroup.parse('conifer')).toBe('conifer')
    expect(speciesGroup.parse('hardwood')).toBe('hardwood')
    expect(refused(z.object({ group: speciesGroup }), { group: 'Conifer' })).toEqual({
      field: 'group',
      reason: 'must be conifer or hardwood',
    })
  })
})

describe('batches', () => {
  it('hold at least one site and no upper bound of their own (the tier decides that later)', () => {
    expect(refused(Batch, { sites: [] })).toEqual({ field: 'sites', reason: 'must hold at least one site' })
    expect(refused(Batch, { sites: validSite })).toEqual({
      field: 'sites',
      reason: 'must be an array of sites',
    })
    expect(parseInput(Batch, { sites: Array(600).fill(validSite) }).sites).toHaveLength(600)
  })

  it('name the item and field that break a rule', () => {
    const sites = [validSite, validSite, { ...validSite, longitude: 200 }]
    expect(refused(Batch, { sites })).toEqual({
      field: 'sites[2].longitude',
      reason: 'must be from -180 to 180',
    })
    const { species_code: _gone, ...noSpecies } = validSite
    expect(refused(Batch, { sites: [noSpecies] })).toEqual({
      field: 'sites[0].species_code',
      reason: 'is required',
    })
  })

  it('refuse unknown fields inside an item', () => {
    expect(refused(Batch, { sites: [validSite, { ...validSite, colour: 'green' }] })).toEqual({
      field: 'sites[1].colour',
      reason: 'is not a recognized field',
    })
  })

  it('report the first item at fault, whichever it is', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.nat(), (length, seed) => {
        const bad = seed % length
        const sites = Array.from({ length }, (_, i) =>
          i === bad ? { ...validSite, latitude: 91 } : validSite,
        )
        expect(refused(Batch, { sites })).toEqual({
          field: `sites[${bad}].latitude`,
          reason: 'must be from -90 to 90',
        })
      }),
    )
  })
})

describe('fieldPath', () => {
  it.each([
    [['latitude'], 'latitude'],
    [['sites', 3, 'latitude'], 'sites[3].latitude'],
    [['horizons', 0], 'horizons[0]'],
    [[0, 'latitude'], '[0].latitude'],
    [['input', 'sites', 12, 'horizons', 1], 'input.sites[12].horizons[1]'],
    [[], ''],
  ] as const)('%j → %j', (path, expected) => {
    expect(fieldPath(path)).toBe(expected)
  })

  it('writes names with dots and indices in brackets, for any path', () => {
    const part = fc.oneof(fc.stringMatching(/^[a-z_][a-z_0-9]{0,8}$/), fc.nat(600))
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), (path) => {
        const expected = path
          .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
          .join('')
          .replace(/^\./, '')
        expect(fieldPath(path)).toBe(expected)
      }),
    )
  })
})

describe('inputError and parseInput', () => {
  it('make invalid_request (400) with details {field, reason} and a message saying both', () => {
    const error = refusal(Site, { ...validSite, latitude: 123 })
    expect(error.code).toBe('invalid_request')
    expect(error.status).toBe(400)
    expect(error.message).toBe('latitude must be from -90 to 90')
    expect(error.details).toEqual({ field: 'latitude', reason: 'must be from -90 to 90' })
  })

  it('report a missing field as required and an unknown one as not recognized (the first of several)', () => {
    const { latitude: _gone, ...missing } = validSite
    expect(refused(Site, missing)).toEqual({ field: 'latitude', reason: 'is required' })
    expect(refused(Site, { ...validSite, colour: 'green', size: 3 })).toEqual({
      field: 'colour',
      reason: 'is not a recognized field',
    })
  })

  it('explain a root that is not an object in terms of what was parsed', () => {
    for (const root of [[], null, 'text', 42]) {
      const error = refusal(Site, root)
      expect(error.code).toBe('invalid_request')
      expect(error.message).toBe('The request body must be a JSON object')
      expect(error.details).toMatchObject({ field: '(root)' })
    }
    expect(refusal(Site, [], 'query string').message).toBe('The query string must be a JSON object')
  })

  it('cope with an error that has no issue at all', () => {
    const error = inputError(new z.ZodError([]))
    expect(error.details).toEqual({ field: '(root)', reason: 'is invalid' })
    expect(error.message).toBe('The request body must be a JSON object')
  })

  it('parse or throw invalid_request, and never anything else, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record(
            {
              latitude: fc.oneof(fc.double(), fc.anything()),
              longitude: fc.oneof(fc.double(), fc.anything()),
              species_code: fc.oneof(fc.string(), fc.anything()),
              planting_method: fc.string(),
              horizons: fc.oneof(fc.array(fc.integer({ min: 0, max: 6 })), fc.anything()),
            },
            { requiredKeys: [] },
          ),
        ),
        (input) => {
          let outcome: unknown
          try {
            outcome = parseInput(Batch, { sites: [input] })
          } catch (error) {
            outcome = error
          }
          if (!(outcome instanceof Error)) return
          expect(outcome).toBeInstanceOf(ApiError)
          const { code, status, details, message } = outcome as ApiError
          expect({ code, status }).toEqual({ code: 'invalid_request', status: 400 })
          expect(Object.keys(details ?? {}).sort()).toEqual(['field', 'reason'])
          const { field, reason } = details as { field: string; reason: string }
          expect(field.startsWith('sites[0]')).toBe(true)
          expect(message).toBe(`${field} ${reason}`)
        },
      ),
      { numRuns: 300 },
    )
  })
})
