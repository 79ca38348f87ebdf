import {
  type FeatureCursor,
  ITEMS_LIMIT_DEFAULT,
  ITEMS_LIMIT_MAX,
  type ItemsQuery,
} from '../domain/features/feature-collections.ts'
import { MODEL_VERSION_MAX_LENGTH } from '../domain/input-rules.ts'
import { TREATMENT_FIELDS, treatmentsOfFields } from '../domain/treatment-fields.ts'
import { TREATMENT_NAMES, type TreatmentsRequest } from '../domain/treatment-values.ts'
import type { SiteBox } from '../types.ts'
import { OgcException } from './ogc-exception.ts'

/*
 * The query parameters of /ogc, read and checked: an unknown parameter, a repeated one or a bad value
 * is 400 with the OGC exception body, naming the parameter.
 */

export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84'

/** What every /ogc route takes: the format (JSON is the only one). */
const COMMON = ['f'] as const
/** What an items page takes besides its collection's own. */
export const ITEMS_PARAMETERS = ['limit', 'bbox', 'bbox-crs', 'cursor', 'offset', 'resultType'] as const
/** Establishment treatments (docs/treatments.md), taken by both survival collections. */
export const TREATMENT_PARAMETERS = [
  'vegetation_control',
  'animal_protection',
  'stock_type',
  'shade',
] as const satisfies readonly (typeof TREATMENT_NAMES)[number][]
/** What the survival collection takes: its items and its single features alike. */
export const SURVIVAL_PARAMETERS = [
  'species',
  'method',
  'period',
  'scenario',
  'model_version',
  ...TREATMENT_PARAMETERS,
] as const
/** What the survival-hexagons collection takes (a map is of one species, method, horizon and cell size). */
export const HEXAGON_PARAMETERS = [
  'species',
  'method',
  'horizon',
  'cell_km',
  'period',
  'scenario',
  'model_version',
  ...TREATMENT_PARAMETERS,
] as const
const TEXT_MAX = 100
const OFFSET_MAX = 1e12

/** Refuses any parameter outside `allowed` (and `f`), and any given more than once. */
export function checkParameters(params: URLSearchParams, allowed: readonly string[]): void {
  const seen = new Set<string>()
  for (const name of params.keys()) {
    if (!COMMON.includes(name as (typeof COMMON)[number]) && !allowed.includes(name))
      throw new OgcException(
        400,
        'InvalidParameterValue',
        `unknown query parameter ${JSON.stringify(name)}`,
        {
          allowed: [...COMMON, ...allowed],
        },
      )
    if (seen.has(name)) throw invalid(name, 'is given more than once')
    seen.add(name)
  }
  const format = params.get('f')
  if (format !== null && format !== 'json' && format !== 'geojson')
    throw invalid('f', 'must be json (the only format served)')
}

function invalid(name: string, rule: string): OgcException {
  return new OgcException(400, 'InvalidParameterValue', `${name} ${rule}`, { parameter: name })
}

/** A text parameter, or null when absent; bounded in length. */
export function textParameter(params: URLSearchParams, name: string, max = TEXT_MAX): string | null {
  const value = params.get(name)
  if (value === null) return null
  if (value.length === 0) throw invalid(name, 'is empty')
  if (value.length > max) throw invalid(name, `is longer than ${max} characters`)
  return value
}

/** The treatments the query names, each checked for its value; undefined when it names none. */
export function treatmentParameters(params: URLSearchParams): TreatmentsRequest | undefined {
  const named: Record<string, string> = {}
  for (const name of TREATMENT_NAMES) {
    const value = params.get(name)
    if (value === null) continue
    const checked = TREATMENT_FIELDS[name].safeParse(value)
    if (!checked.success) throw invalid(name, checked.error.issues[0]?.message ?? 'is invalid')
    named[name] = value
  }
  return treatmentsOfFields(named)
}

export function modelVersionParameter(params: URLSearchParams): string | null {
  return textParameter(params, 'model_version', MODEL_VERSION_MAX_LENGTH)
}

/** `limit`: 1 or more; above the maximum, the maximum (OGC API – Features, /req/core/fc-limit-definition). */
function limitOf(params: URLSearchParams): number {
  const text = params.get('limit')
  if (text === null) return ITEMS_LIMIT_DEFAULT
  if (!/^\d{1,12}$/.test(text) || Number(text) < 1) throw invalid('limit', 'must be a whole number from 1')
  return Math.min(Number(text), ITEMS_LIMIT_MAX)
}

/** `bbox`: west,south,east,north in degrees of CRS84 (or six numbers, the heights ignored). */
function boxOf(params: URLSearchParams): SiteBox | null {
  const crs = params.get('bbox-crs')
  if (crs !== null && crs !== CRS84) throw invalid('bbox-crs', `must be ${CRS84} (the only CRS served)`)
  const text = params.get('bbox')
  if (text === null) return null
  const numbers = text
    .split(',')
    .map((part) => (/^\s*-?[\d.]+(e[+-]?\d+)?\s*$/i.test(part) ? Number(part) : Number.NaN))
  if ((numbers.length !== 4 && numbers.length !== 6) || numbers.some((n) => !Number.isFinite(n)))
    throw invalid('bbox', 'must be four numbers west,south,east,north (or six with heights)')
  const [west, south, east, north] =
    numbers.length === 4 ? numbers : [numbers[0], numbers[1], numbers[3], numbers[4]]
  const box = { west, south, east, north } as SiteBox
  if (box.south < -90 || box.north > 90 || box.south > box.north)
    throw invalid('bbox', 'must have -90 ≤ south ≤ north ≤ 90')
  if (box.west < -180 || box.east > 180 || box.west > box.east)
    throw invalid('bbox', 'must have -180 ≤ west ≤ east ≤ 180')
  return box
}

/** A whole-number parameter from `min` to `max`, or null when absent. */
export function wholeParameter(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | null {
  const text = params.get(name)
  if (text === null) return null
  if (!/^\d{1,6}$/.test(text) || Number(text) < min || Number(text) > max)
    throw invalid(name, `must be a whole number from ${min} to ${max}`)
  return Number(text)
}

/** `cursor`: where a page starts, as the previous page's `next` link gives it (`<site id>.<combination>`). */
function cursorOf(text: string): FeatureCursor {
  const parts = /^(?<site>\d{1,15})\.(?<combination>\d{1,4})$/.exec(text)?.groups
  if (!parts) throw invalid('cursor', 'is not one a next link gave')
  return { siteId: Number(parts.site), combination: Number(parts.combination) }
}

export function cursorText(cursor: FeatureCursor): string {
  return `${cursor.siteId}.${cursor.combination}`
}

/** An items page's box, size and start; `hits`: only the number matched is asked for (resultType=hits). */
export function itemsQuery(params: URLSearchParams): ItemsQuery & { hits: boolean } {
  const cursor = params.get('cursor')
  const offset = params.get('offset')
  if (cursor !== null && offset !== null) throw invalid('offset', 'cannot be given with cursor')
  if (offset !== null && (!/^\d{1,13}$/.test(offset) || Number(offset) > OFFSET_MAX))
    throw invalid('offset', 'must be a whole number from 0')
  const resultType = params.get('resultType')
  if (resultType !== null && resultType !== 'results' && resultType !== 'hits')
    throw invalid('resultType', 'must be results or hits')
  return {
    box: boxOf(params),
    limit: limitOf(params),
    start: cursor !== null ? { cursor: cursorOf(cursor) } : { offset: Number(offset ?? 0) },
    hits: resultType === 'hits',
  }
}
