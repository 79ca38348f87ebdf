import { isInCoverage, stateAt } from '../geo/coverage.ts'
import { forestRegionAt } from '../seed/forest-region-lookup.ts'
import { heatLoadIndex } from '../seed/heat-load.ts'
import { regionProfile } from '../seed/region-profiles.ts'
import type { ForestZone, UsState } from '../types.ts'

/**
 * What the rules look up about a point: whether the coverage region holds it, and the defaults of the
 * optional columns, made as the synthetic sites' are (src/seed). A parameter of the validator, so a
 * test can put a world of its own in.
 */
export interface SiteDerivations {
  /** Oregon and Washington land, or their inland marine waters (src/geo/coverage.ts). */
  isInCoverage(latitude: number, longitude: number): boolean
  /** The state whose land holds the point; null on water. */
  stateAt(latitude: number, longitude: number): UsState | null
  /** The forest region holding the point (the deepest in an overlap); null outside every region. */
  regionAt(latitude: number, longitude: number): string | null
  /** The zone of a forest region at an elevation. */
  zoneOf(regionId: string, elevationM: number): ForestZone
  /** The heat load index, 0–1, rounded as the synthetic sites' (3 decimals). */
  heatLoadIndex(latitude: number, slopeDeg: number, aspectDeg: number): number
}

/** The project's own: the coverage file, the forest regions and the generator's rules. */
export const SITE_DERIVATIONS: SiteDerivations = {
  isInCoverage,
  stateAt,
  regionAt: (latitude, longitude) => forestRegionAt(latitude, longitude)?.id ?? null,
  zoneOf: (regionId, elevationM) => regionProfile(regionId).zone(elevationM),
  heatLoadIndex: (latitude, slopeDeg, aspectDeg) =>
    Math.round(heatLoadIndex(latitude, slopeDeg, aspectDeg) * 1000) / 1000,
}
