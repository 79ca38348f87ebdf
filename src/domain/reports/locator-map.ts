import type { MultiPolygon, Polygon } from 'geojson'
import { bboxOfPositions, expandBBoxKm } from '../../geo/bbox.ts'
import { coverageGeoJson } from '../../geo/coverage.ts'
import { greatCircleKm } from '../../geo/great-circle.ts'
import type { LocatorMap, LonLat, PolygonRings } from './report-document.ts'
import type { Messages } from './report-messages.ts'
import type { ReportNumbers } from './report-numbers.ts'

/** The state outlines: the Census land shapes of the coverage (Oregon, Washington), without the added waters. */
const STATE_OUTLINES: readonly PolygonRings[] = coverageGeoJson()
  .features.filter((feature) => feature.properties.kind === 'land')
  .flatMap((feature) => polygonsOf(feature.geometry))

function polygonsOf(geometry: Polygon | MultiPolygon): PolygonRings[] {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
  return polygons.map((rings) => rings.map((ring) => ring.map(([lon = 0, lat = 0]) => [lon, lat] as const)))
}

/** The close-up reaches at least this far around what it shows, and a fifth of its span more. */
const DETAIL_MARGIN_KM = 1.5

/** A scale bar of 1, 2 or 5 × 10ⁿ km, about a quarter of the close-up's width. */
function scaleBarKm(widthKm: number): number {
  const target = widthKm / 4
  const power = 10 ** Math.floor(Math.log10(target))
  const step = [5, 2, 1].find((factor) => factor * power <= target) ?? 1
  return step * power
}

/** The locator map of a point (and the data site that answered it) or of a stand (and its data sites). */
export function locatorMap(
  place: { requested: LonLat | null; stand: Polygon | MultiPolygon | null; sites: readonly LonLat[] },
  text: Messages,
  numbers: ReportNumbers,
): LocatorMap {
  const stand = place.stand ? polygonsOf(place.stand) : null
  const shown = [
    ...(place.requested ? [place.requested] : []),
    ...place.sites,
    ...(stand ?? []).flatMap((rings) => rings[0] ?? []),
  ]
  const [west, south, east, north] = bboxOfPositions(shown.map(([lon, lat]) => [lon, lat]))
  const spanKm = greatCircleKm(south, west, north, east)
  const detail = expandBBoxKm([west, south, east, north], Math.max(DETAIL_MARGIN_KM, spanKm / 5))
  const middle = (detail[1] + detail[3]) / 2
  const widthKm = greatCircleKm(middle, detail[0], middle, detail[2])
  const km = scaleBarKm(widthKm)
  return {
    title: text('map.title'),
    alt: text(stand ? 'map.alt.stand' : 'map.alt.point'),
    outlines: STATE_OUTLINES,
    detail,
    stand,
    requested: place.requested,
    sites: place.sites,
    scale: { km, label: text('value.km', { value: numbers.upTo(km, 1) }) },
    legend: {
      requested: text('map.requested'),
      site: text('map.site'),
      stand: text('map.stand'),
      detail: text('map.detail'),
    },
  }
}
