import { z } from 'zod'
import { PLANTED_MAX } from './survey-plot.ts'

/*
 * The rule of each survey field, once: REST builds its snake_case plot from these. Types, presence and
 * ranges only; the rules between fields (dates, age, alive ≤ planted) are checkSurveyPlot's.
 */

/** Ids a plot's own path could not reach: the list's paths, and the dot segments URLs resolve away. */
const RESERVED_PLOT_IDS = ['report', 'uploads', '.', '..']
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** The caller's own id of a plot: 1 to 64 characters, none of them a control character. */
export const plotId = z
  .string({ error: 'must be a string' })
  .min(1, 'must be 1 to 64 characters')
  .max(64, 'must be 1 to 64 characters')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not hold control characters')
  .refine(
    (id) => !RESERVED_PLOT_IDS.includes(id),
    'must not be "report", "uploads", "." or ".." (GET /v1/surveys/{plot_id} could not reach it)',
  )
  .refine((id) => !LONE_SURROGATE.test(id), 'must be well-formed Unicode')

export const plantedOn = z
  .string({ error: 'must be a date YYYY-MM-DD, or a year YYYY' })
  .max(10, 'must be a date YYYY-MM-DD, or a year YYYY')

export const surveyedOn = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .max(10, 'must be a date YYYY-MM-DD')

export const treesPlanted = z
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(1, `must be from 1 to ${PLANTED_MAX}`)
  .max(PLANTED_MAX, `must be from 1 to ${PLANTED_MAX}`)

export const treesAlive = z
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(0, 'must be from 0 to planted')
  .max(PLANTED_MAX, 'must be from 0 to planted')

/** A plot's area, up to 1,000 ha. */
export const plotAreaM2 = z
  .number({ error: 'must be a number' })
  .gt(0, 'must be above 0 and at most 10000000')
  .max(10_000_000, 'must be above 0 and at most 10000000')

/** The survey's protocol, e.g. `or_fpa_stocking` or `vm0047`. */
export const protocol = z
  .string({ error: 'must be a string' })
  .min(1, 'must be 1 to 64 characters')
  .max(64, 'must be 1 to 64 characters')

/** [west, south, east, north] as `w,s,e,n` degrees in a query string. */
export const bbox = z
  .string({ error: 'must be west,south,east,north in degrees' })
  .max(100, 'is too long')
  .transform((text, context) => {
    const parts = text.split(',').map((part) => Number(part.trim()))
    const [west = Number.NaN, south = Number.NaN, east = Number.NaN, north = Number.NaN] = parts
    const valid =
      parts.length === 4 &&
      parts.every(Number.isFinite) &&
      west >= -180 &&
      east <= 180 &&
      south >= -90 &&
      north <= 90 &&
      west <= east &&
      south <= north
    if (!valid) {
      context.addIssue({
        code: 'custom',
        message: 'must be west,south,east,north in degrees, west ≤ east and south ≤ north',
      })
      return z.NEVER
    }
    return [west, south, east, north] as const
  })

/** A surveyed_on bound in a query string: a calendar date (2024-02-30 is not one). */
export const surveyDateBound = z
  .string({ error: 'must be a date YYYY-MM-DD' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((text) => {
    const date = new Date(`${text}T00:00:00Z`)
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text)
  }, 'must be a calendar date YYYY-MM-DD')

/** The list's cursor as sent: a plot id of 64 characters can take up to ~400 in base64url. */
export const surveyCursorText = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(600, 'is too long')
