import { invalidField } from '../domain/errors.ts'

/** Query parameters a GeoJSON upload may set as defaults, and how each is read from its text. */
const DEFAULTS: Record<string, (text: string) => unknown> = {
  species_code: (text) => text,
  planting_method: (text) => text,
  horizons: (text) => text.split(/[|,;\s]+/).map(numberOrText),
  period: (text) => text,
  scenario: (text) => text,
  trees_per_acre: numberOrText,
  trees_per_hectare: numberOrText,
  confidence: numberOrText,
  rule_set: (text) => text,
  site_class: (text) => text,
  target_trees_per_acre: numberOrText,
}
export const FEATURE_DEFAULT_FIELDS = Object.keys(DEFAULTS)

function numberOrText(text: string): number | string {
  const value = Number(text)
  return text.trim() !== '' && Number.isFinite(value) ? value : text
}

/** The query string's defaults, read once per upload; an unknown parameter fails the upload. */
export function featureDefaults(query: Readonly<Record<string, string>>): Record<string, unknown> {
  const defaults: Record<string, unknown> = {}
  for (const [name, text] of Object.entries(query)) {
    const read = Object.hasOwn(DEFAULTS, name) ? DEFAULTS[name] : undefined
    if (!read)
      throw invalidField(
        `query.${name}`,
        `is not a default a GeoJSON job takes (${FEATURE_DEFAULT_FIELDS.join(', ')})`,
        'query string',
      )
    defaults[name] = read(text)
  }
  return defaults
}

/** The density pair and the climate fields each go as a whole: a feature's own replace the query's. */
const DEFAULT_GROUPS: readonly (readonly string[])[] = [
  ['trees_per_acre', 'trees_per_hectare'],
  ['period', 'scenario', 'climate'],
  ['species_code', 'species_mix'],
]

/**
 * A feature's properties over the query's defaults. A null attribute (GIS tools write empty ones so)
 * is absent, so the default applies; a feature naming any field of a group drops the defaults of the
 * whole group.
 */
export function withDefaults(
  own: Record<string, unknown>,
  defaults: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const present = Object.fromEntries(Object.entries(own).filter(([, value]) => value !== null))
  const merged: Record<string, unknown> = { ...defaults }
  for (const group of DEFAULT_GROUPS)
    if (group.some((name) => name in present)) for (const name of group) delete merged[name]
  return Object.assign(merged, present)
}
