import type { Caller } from '../access/caller.ts'
import { resolvePlantingMethod, resolveSpecies } from '../domain/catalogue.ts'
import { CLIMATE_FUTURES, type ClimateRequest } from '../domain/climate.ts'
import { HEXAGON_DEFAULTS, type ItemsQuery } from '../domain/features/feature-collections.ts'
import { CELL_KM_MAX, CELL_KM_MIN } from '../domain/input-rules.ts'
import type { SurvivalMapRequest } from '../domain/prediction-types.ts'
import type { Horizon } from '../types.ts'
import type { CollectionDescription } from './ogc-collections.ts'
import type { OgcContext, OgcResponse } from './ogc-context.ts'
import { OgcException } from './ogc-exception.ts'
import { featurePage, hexagonFeature, siteFeature, survivalFeature } from './ogc-features.ts'
import { modelVersionParameter, textParameter, treatmentParameters, wholeParameter } from './ogc-query.ts'

/* How each collection reads its query, a page of its items and one of its features. */

type Reading = OgcContext & { caller: Caller }

export interface CollectionReads {
  /** The collection's own parameters, checked before the key (a bad one costs nothing). */
  checkFilters(params: URLSearchParams): void
  page(context: Reading, query: ItemsQuery & { hits: boolean }): Promise<OgcResponse>
  feature(context: Reading, featureId: string): Promise<OgcResponse>
}

const GEOJSON_TYPE = 'application/geo+json; charset=utf-8'

const geojson = (body: unknown, dataVersion: string | null): OgcResponse => ({
  body,
  contentType: GEOJSON_TYPE,
  headers: dataVersion ? { 'survival-data-version': dataVersion } : {},
})

function climateOf(params: URLSearchParams): ClimateRequest | null {
  const period = textParameter(params, 'period')
  const scenario = textParameter(params, 'scenario')
  return period === null && scenario === null ? null : { period, scenario }
}

function checkCatalogueFilters(params: URLSearchParams): void {
  const species = textParameter(params, 'species')
  const method = textParameter(params, 'method')
  if (species !== null) resolveSpecies(species)
  if (method !== null) resolvePlantingMethod(method)
  CLIMATE_FUTURES.resolve(climateOf(params))
  treatmentParameters(params)
  modelVersionParameter(params)
}

const modelOf = ({ deps, caller, url }: Reading) =>
  deps.models.resolve(caller.accountId, modelVersionParameter(url.searchParams))

/** The page's own URL, absolute. */
const selfOf = ({ base, url }: OgcContext) => new URL(`${base}${url.pathname}${url.search}`)

const notFound = (collection: string, featureId: string) =>
  new OgcException(404, 'NotFound', `no feature ${JSON.stringify(featureId)} in ${collection}`)

/** A page as asked: with resultType=hits, the count alone. */
function shown<Page extends { features: unknown[]; next: unknown }>(page: Page, hits: boolean): Page {
  return hits ? { ...page, features: [], next: null } : page
}

const SITES: CollectionReads = {
  checkFilters: () => {},
  async page(context, { hits, ...query }) {
    const page = await context.deps.features.sitesPage(hits ? { ...query, limit: 1 } : query)
    return geojson(
      featurePage(shown(page, hits), siteFeature, selfOf(context), context.now),
      page.dataVersion,
    )
  },
  async feature(context, featureId) {
    if (!/^[1-9]\d{0,15}$/.test(featureId)) throw notFound('sites', featureId)
    const { site, dataVersion } = await context.deps.features.site(Number(featureId))
    if (!site) throw notFound('sites', featureId)
    return geojson(siteFeature(site, dataVersion), dataVersion)
  },
}

const SURVIVAL: CollectionReads = {
  checkFilters: checkCatalogueFilters,
  async page(context, { hits, ...query }) {
    const params = context.url.searchParams
    const page = await context.deps.features.survivalPage({
      ...(hits ? { ...query, limit: 1 } : query),
      species: textParameter(params, 'species'),
      method: textParameter(params, 'method'),
      climate: climateOf(params),
      treatments: treatmentParameters(params),
      model: await modelOf(context),
    })
    return geojson(
      featurePage(shown(page, hits), survivalFeature, selfOf(context), context.now),
      page.dataVersion,
    )
  },
  async feature(context, featureId) {
    const params = context.url.searchParams
    const found = await context.deps.features.survivalFeature(
      featureId,
      climateOf(params),
      await modelOf(context),
      treatmentParameters(params),
    )
    if (!found.feature) throw notFound('survival', featureId)
    return geojson(survivalFeature(found.feature, found.dataVersion), found.dataVersion)
  },
}

/** The map a survival-hexagons request names, its defaults filled in. */
function mapOf(params: URLSearchParams): SurvivalMapRequest {
  return {
    speciesCode: textParameter(params, 'species') ?? HEXAGON_DEFAULTS.speciesCode,
    plantingMethod: textParameter(params, 'method') ?? HEXAGON_DEFAULTS.plantingMethod,
    horizon: (wholeParameter(params, 'horizon', 1, 5) ?? HEXAGON_DEFAULTS.horizon) as Horizon,
    cellKm: wholeParameter(params, 'cell_km', CELL_KM_MIN, CELL_KM_MAX) ?? HEXAGON_DEFAULTS.cellKm,
    climate: climateOf(params),
    treatments: treatmentParameters(params),
  }
}

const HEXAGONS: CollectionReads = {
  checkFilters(params) {
    checkCatalogueFilters(params)
    const horizon = wholeParameter(params, 'horizon', 1, 5)
    if (horizon !== null && horizon !== 1 && horizon !== 3 && horizon !== 5)
      throw new OgcException(400, 'InvalidParameterValue', 'horizon must be 1, 3 or 5', {
        parameter: 'horizon',
      })
    mapOf(params)
  },
  async page(context, { hits, start, ...query }) {
    const map = mapOf(context.url.searchParams)
    const offset = 'offset' in start ? start.offset : 0
    const page = await context.deps.features.hexagonsPage({
      ...query,
      ...(hits ? { limit: 0 } : {}),
      offset,
      map,
      model: await modelOf(context),
    })
    const toJson = hexagonFeature(map.cellKm)
    return geojson(featurePage(shown(page, hits), toJson, selfOf(context), context.now), page.dataVersion)
  },
  async feature(context, featureId) {
    const map = mapOf(context.url.searchParams)
    const page = await context.deps.features.hexagonsPage({
      box: null,
      limit: Number.MAX_SAFE_INTEGER,
      offset: 0,
      map,
      model: await modelOf(context),
    })
    const cell = page.features.find((feature) => feature.cell.h3Index === featureId)
    if (!cell) throw notFound('survival-hexagons', featureId)
    return geojson(hexagonFeature(map.cellKm)(cell, page.dataVersion), page.dataVersion)
  },
}

export const COLLECTION_READS: Record<CollectionDescription['id'], CollectionReads> = {
  sites: SITES,
  survival: SURVIVAL,
  'survival-hexagons': HEXAGONS,
}
