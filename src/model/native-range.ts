import type { SiteAttributes, Species } from '../types.ts'

/**
 * Whether a site lies in a species' native range: its ecological zone is one of the species'
 * `rangeZones` and its state one of its `rangeStates` (data/species.csv). The model's native_range
 * factor and the rankings' `native_range` both apply this rule.
 */
export function isInNativeRange(species: Species, site: Pick<SiteAttributes, 'zone' | 'state'>): boolean {
  return species.rangeZones.includes(site.zone) && (!site.state || species.rangeStates.includes(site.state))
}
