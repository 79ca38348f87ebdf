import { BASELINE_PERIOD } from '../domain/climate.ts'
import type { FeaturePage, HexagonFeature, SurvivalFeature } from '../domain/features/feature-collections.ts'
import { survivalFeatureId } from '../domain/features/feature-collections.ts'
import type { AppliedTreatments } from '../domain/treatment-types.ts'
import type { Site } from '../types.ts'
import { SITE_PROPERTIES } from './ogc-collections.ts'
import { cursorText } from './ogc-query.ts'

/* The features of /ogc as GeoJSON (RFC 7946), and the pages that hold them. */

const point = (site: Site) => ({ type: 'Point', coordinates: [site.longitude, site.latitude] })

export function siteFeature(site: Site, dataVersion: string | null) {
  const properties: Record<string, unknown> = {}
  for (const property of SITE_PROPERTIES) properties[property.name] = site[property.attribute] ?? null
  properties.data_version = dataVersion
  return { type: 'Feature', id: site.id, geometry: point(site), properties }
}

/** The treatments named, after the values (treated features only: untreated ones read as before). */
function treatmentProperties(treatments: AppliedTreatments | undefined): Record<string, string> {
  const named: Record<string, string> = {}
  for (const [name, value] of Object.entries(treatments?.values ?? {}))
    if (value !== null) named[name] = value
  return treatments ? { ...named, treatments_data_version: treatments.dataVersion } : named
}

export function survivalFeature(feature: SurvivalFeature, dataVersion: string | null) {
  const { site, species, method, survival, climate } = feature
  return {
    type: 'Feature',
    id: survivalFeatureId(site.id, species.code, method),
    geometry: point(site),
    properties: {
      site_id: site.id,
      species: species.code,
      method,
      period: climate?.period ?? BASELINE_PERIOD,
      scenario: climate?.scenario ?? null,
      model_version: feature.modelVersion,
      survival_1y: survival[0],
      survival_3y: survival[1],
      survival_5y: survival[2],
      data_version: dataVersion,
      ...treatmentProperties(feature.treatments),
    },
  }
}

/** A cell of a survival map as a Polygon feature, its id the H3 index. */
export function hexagonFeature(cellKm: number) {
  return ({ cell, map }: HexagonFeature, dataVersion: string | null) => ({
    type: 'Feature',
    id: cell.h3Index,
    geometry: { type: 'Polygon', coordinates: [cell.boundary] },
    properties: {
      h3_index: cell.h3Index,
      species: map.species.code,
      method: map.plantingMethod,
      horizon: map.horizonYears,
      cell_km: cellKm,
      period: map.climate?.period ?? BASELINE_PERIOD,
      scenario: map.climate?.scenario ?? null,
      model_version: map.model.version,
      mean_survival: cell.meanSurvival,
      min_survival: cell.minSurvival,
      max_survival: cell.maxSurvival,
      sites: cell.sites,
      change_from_today: cell.changeFromToday,
      data_version: dataVersion,
      ...treatmentProperties(map.treatments),
    },
  })
}

/**
 * A page as a FeatureCollection: `self` is the URL asked for; `next`, the same URL with the page's
 * cursor in place of any cursor or offset, is there unless this is the last page.
 */
export function featurePage<Feature>(
  page: FeaturePage<Feature>,
  toJson: (feature: Feature, dataVersion: string | null) => unknown,
  self: URL,
  timeStamp: Date,
) {
  const links: { href: string; rel: string; type: string; title: string }[] = [
    { href: self.href, rel: 'self', type: 'application/geo+json', title: 'This page' },
  ]
  if (page.next) {
    const next = new URL(self.href)
    next.searchParams.delete('offset')
    next.searchParams.delete('cursor')
    if ('cursor' in page.next) next.searchParams.set('cursor', cursorText(page.next.cursor))
    else next.searchParams.set('offset', String(page.next.offset))
    links.push({ href: next.href, rel: 'next', type: 'application/geo+json', title: 'The next page' })
  }
  return {
    type: 'FeatureCollection',
    features: page.features.map((feature) => toJson(feature, page.dataVersion)),
    numberMatched: page.matched,
    numberReturned: page.features.length,
    timeStamp: timeStamp.toISOString(),
    links,
  }
}
