import { type BBox, bboxOfGeometry } from '../../geo/bbox.ts'
import { coverageGeoJson } from '../../geo/coverage.ts'
import {
  HORIZONS,
  PLANTING_METHODS,
  type PlantingMethod,
  type Site,
  type SiteBox,
  type Species,
  type SurvivalModel,
} from '../../types.ts'
import { resolvePlantingMethod, resolveSpecies } from '../catalogue.ts'
import { CLIMATE_FUTURES, type ClimateFuture, type ClimateRequest, ProjectedSite } from '../climate.ts'
import type { SitePages } from '../ports/sites.ts'
import type { SurvivalCell, SurvivalMap, SurvivalMapRequest } from '../prediction-types.ts'
import { SPECIES } from '../species.ts'
import type { SurvivalMapService } from '../survival-map.ts'
import type { AppliedTreatments } from '../treatment-types.ts'
import type { TreatmentsRequest } from '../treatment-values.ts'
import { TREATMENTS } from '../treatments.ts'

/*
 * The data behind OGC API – Features (src/ogc translates): the active sites, and survival at every
 * site, a page at a time. `survival` is a table of site × species × method: without a species or a
 * method every one is a row, so a GIS client that filters on them (GDAL's -where species='PSME')
 * narrows the same layer rather than opening another.
 */

/** The box around the coverage region, [west, south, east, north]: every collection's spatial extent. */
export const COVERAGE_EXTENT: BBox = coverageGeoJson()
  .features.map((feature) => bboxOfGeometry(feature.geometry))
  .reduce((a, b) => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])])

export const ITEMS_LIMIT_DEFAULT = 100
export const ITEMS_LIMIT_MAX = 10_000

/** Where a page starts: a position the previous page's `next` gave, or a number of features skipped. */
export type ItemsStart = { cursor: FeatureCursor } | { offset: number }

/** The next feature: combination `combination` of the first site whose id is `siteId` or more. */
export interface FeatureCursor {
  siteId: number
  combination: number
}

export interface ItemsQuery {
  /** Sites whose point lies in the box; null: every site. */
  box: SiteBox | null
  limit: number
  start: ItemsStart
}

export interface SurvivalQuery extends ItemsQuery {
  /** A species code, or null for every species. */
  species: string | null
  /** A planting method, or null for both. */
  method: string | null
  climate: ClimateRequest | null
  model: SurvivalModel
  /** Establishment treatments at every site; absent, null or all `none`: untreated. */
  treatments?: TreatmentsRequest | null
}

export interface FeaturePage<Feature> {
  features: Feature[]
  /** Features matching the query in all (every page). */
  matched: number
  /** Where the next page starts; null on the last page. */
  next: ItemsStart | null
  dataVersion: string | null
}

/** The survival map's cells, a page at a time: the cells of one map, in H3 index order. */
export interface HexagonsQuery {
  box: SiteBox | null
  limit: number
  offset: number
  map: SurvivalMapRequest
  model: SurvivalModel
}

/** A cell of a map, with the map it belongs to. */
export interface HexagonFeature {
  cell: SurvivalCell
  map: SurvivalMap
}

/** What a survival-hexagons request maps when it names nothing: Douglas-fir planted by hand, at 5 years, 25 km cells. */
export const HEXAGON_DEFAULTS = {
  speciesCode: 'PSME',
  plantingMethod: 'manual',
  horizon: 5,
  cellKm: 25,
} as const

/** Survival at one site for one species planted one way, at 1, 3 and 5 years. */
export interface SurvivalFeature {
  site: Site
  species: Species
  method: PlantingMethod
  /** At 1, 3 and 5 years. */
  survival: readonly [number, number, number]
  /** null: today's climate. */
  climate: ClimateFuture | null
  modelVersion: string
  /** The treatments applied; absent when untreated. */
  treatments?: AppliedTreatments
}

/** A species and a method: what a survival feature is of, besides its site. */
interface Combination {
  species: Species
  method: PlantingMethod
}

/** The survival features' id: the site's id, the species code and the method. */
export function survivalFeatureId(siteId: number, speciesCode: string, method: PlantingMethod): string {
  return `${siteId}-${speciesCode}-${method}`
}

const SURVIVAL_ID = /^(?<site>[1-9]\d{0,15})-(?<species>[A-Za-z0-9]{1,12})-(?<method>[a-z_]{1,20})$/

export class FeatureCollections {
  constructor(
    private readonly sites: SitePages,
    private readonly maps: SurvivalMapService,
  ) {}

  /**
   * The cells of one survival map whose outline meets the box, a page at a time. Under a future climate
   * each cell also gives its change from today (today's map is worked out, and cached, for it).
   */
  async hexagonsPage(query: HexagonsQuery): Promise<FeaturePage<HexagonFeature> & { map: SurvivalMap }> {
    const map = await this.maps.map(query.map, query.model)
    const cells = map.cellsWithChange ? await map.cellsWithChange() : map.cells
    const { box } = query
    const matching = box ? cells.filter((cell) => outlineMeets(cell.boundary, box)) : cells
    const end = query.offset + query.limit
    return {
      features: matching.slice(query.offset, end).map((cell) => ({ cell, map })),
      matched: matching.length,
      next: end < matching.length ? { offset: end } : null,
      dataVersion: map.siteDataVersion,
      map,
    }
  }

  async sitesPage(query: ItemsQuery): Promise<FeaturePage<Site>> {
    return this.paged(query, 1, (site) => [site])
  }

  async site(id: number): Promise<{ site: Site | null; dataVersion: string | null }> {
    return this.sites.one(id)
  }

  /**
   * species and method first, then the climate and the treatments (the order predict checks them in),
   * then the sites. Over both methods, a treatment only hand planting takes is invalid_treatment (ask
   * for method manual).
   */
  async survivalPage(query: SurvivalQuery): Promise<FeaturePage<SurvivalFeature>> {
    const combinations = combinationsOf(query.species, query.method)
    const climate = CLIMATE_FUTURES.resolve(query.climate)
    const methods = [...new Set(combinations.map((c) => c.method))]
    const evaluate = survivalAt(query.model, climate, treatmentsByMethod(query.treatments, methods))
    return this.paged(query, combinations.length, (site, from, to) =>
      combinations.slice(from, to).map((combination) => evaluate(site, combination)),
    )
  }

  /** One survival feature by its id; null when the id names no site, species or method there is. */
  async survivalFeature(
    featureId: string,
    climateRequest: ClimateRequest | null,
    model: SurvivalModel,
    treatmentsRequest?: TreatmentsRequest | null,
  ): Promise<{ feature: SurvivalFeature | null; dataVersion: string | null }> {
    const climate = CLIMATE_FUTURES.resolve(climateRequest)
    const parts = SURVIVAL_ID.exec(featureId)?.groups
    const species = SPECIES.find((s) => s.code === parts?.species)
    const method = PLANTING_METHODS.find((m) => m === parts?.method)
    if (!parts || !species || !method) return { feature: null, dataVersion: null }
    const treatments = treatmentsByMethod(treatmentsRequest, [method])
    const { site, dataVersion } = await this.sites.one(Number(parts.site))
    if (!site) return { feature: null, dataVersion }
    return { feature: survivalAt(model, climate, treatments)(site, { species, method }), dataVersion }
  }

  /**
   * A page of features, `perSite` of them at each site (features(site, from, to) gives those from index
   * `from` to `to`), in site id order: the sites it needs are read in one snapshot.
   */
  private async paged<Feature>(
    query: ItemsQuery,
    perSite: number,
    features: (site: Site, from: number, to: number) => Feature[],
  ): Promise<FeaturePage<Feature>> {
    const { box, limit, start } = query
    const skipFirst = 'cursor' in start ? start.cursor.combination : start.offset % perSite
    // One more site than the page needs, to tell whether another page follows.
    const sitesWanted = Math.ceil((skipFirst + limit) / perSite) + 1
    const page = await this.sites.page(
      box,
      'cursor' in start ? { afterId: start.cursor.siteId - 1 } : { skip: Math.floor(start.offset / perSite) },
      sitesWanted,
    )
    const out: Feature[] = []
    let next: ItemsStart | null = null
    for (let i = 0; i < page.sites.length; i++) {
      const site = page.sites[i] as Site
      const from = i === 0 ? skipFirst : 0
      const room = limit - out.length
      if (room === 0) {
        next = { cursor: { siteId: site.id, combination: 0 } }
        break
      }
      const to = Math.min(perSite, from + room)
      out.push(...features(site, from, to))
      if (to < perSite && out.length === limit) {
        next = { cursor: { siteId: site.id, combination: to } }
        break
      }
    }
    return { features: out, matched: page.matched * perSite, next, dataVersion: page.dataVersion }
  }
}

/** Whether a cell's outline (a ring of [longitude, latitude]) meets the box: their bounding boxes overlap. */
function outlineMeets(ring: readonly (readonly [number, number])[], box: SiteBox): boolean {
  let west = Number.POSITIVE_INFINITY
  let east = Number.NEGATIVE_INFINITY
  let south = Number.POSITIVE_INFINITY
  let north = Number.NEGATIVE_INFINITY
  for (const [longitude, latitude] of ring) {
    west = Math.min(west, longitude)
    east = Math.max(east, longitude)
    south = Math.min(south, latitude)
    north = Math.max(north, latitude)
  }
  return west <= box.east && east >= box.west && south <= box.north && north >= box.south
}

function combinationsOf(speciesCode: string | null, methodName: string | null): Combination[] {
  const species = speciesCode === null ? SPECIES : [resolveSpecies(speciesCode)]
  const methods = methodName === null ? PLANTING_METHODS : [resolvePlantingMethod(methodName)]
  return species.flatMap((s) => methods.map((method) => ({ species: s, method })))
}

type TreatmentsByMethod = Partial<Record<PlantingMethod, AppliedTreatments>>

/** The treatments resolved for each method (none where untreated). */
function treatmentsByMethod(
  request: TreatmentsRequest | null | undefined,
  methods: readonly PlantingMethod[],
): TreatmentsByMethod {
  const resolved: TreatmentsByMethod = {}
  for (const method of methods) {
    const applied = TREATMENTS.resolve(request, method)
    if (applied) resolved[method] = applied
  }
  return resolved
}

/** The model at a site (projected into the climate, if any) for one combination, at every horizon. */
function survivalAt(
  model: SurvivalModel,
  climate: ClimateFuture | null,
  treatments: TreatmentsByMethod = {},
) {
  const projected = new ProjectedSite()
  return (site: Site, { species, method }: Combination): SurvivalFeature => {
    const attributes = climate ? CLIMATE_FUTURES.projectSite(site, climate, projected) : site
    const applied = treatments[method]
    const [one, three, five] = model.predict(attributes, species, method, HORIZONS, applied?.modelEffects)
    if (!one || !three || !five) throw new Error(`the model gave no prediction for ${species.code}`)
    return {
      site,
      species,
      method,
      survival: [one.survivalProbability, three.survivalProbability, five.survivalProbability],
      climate,
      modelVersion: model.version,
      ...(applied ? { treatments: applied } : {}),
    }
  }
}
