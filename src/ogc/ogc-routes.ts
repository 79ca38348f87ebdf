import type { AccessControl } from '../access/auth/access-control.ts'
import type { Caller } from '../access/caller.ts'
import { resolvePlantingMethod, resolveSpecies } from '../domain/catalogue.ts'
import { CLIMATE_FUTURES, type ClimateRequest } from '../domain/climate.ts'
import type { FeatureCollections } from '../domain/features/feature-collections.ts'
import type { ModelRegistry } from '../domain/models/model-registry.ts'
import { ogcApiDocument } from './ogc-api-document.ts'
import { type CollectionDescription, collectionById, collectionDocument } from './ogc-collections.ts'
import { collectionsDocument, conformanceDocument, landingPage, OPENAPI_MEDIA_TYPE } from './ogc-documents.ts'
import { OgcException } from './ogc-exception.ts'
import { featurePage, siteFeature, survivalFeature } from './ogc-features.ts'
import {
  checkParameters,
  ITEMS_PARAMETERS,
  itemsQuery,
  modelVersionParameter,
  SURVIVAL_PARAMETERS,
  textParameter,
} from './ogc-query.ts'

/* The routes of /ogc: what each reads of the request and which domain call answers it. */

export interface OgcDeps {
  access: AccessControl
  features: FeatureCollections
  models: ModelRegistry
  /** The service's public address (PUBLIC_URL) for the links; else the request's Host. */
  publicUrl?: string
  now?: () => Date
}

export interface OgcContext {
  url: URL
  params: Record<string, string>
  /** The service's address, for absolute links. */
  base: string
  deps: OgcDeps
  now: Date
}

export interface OgcResponse {
  body: unknown
  contentType: string
  headers?: Record<string, string>
}

export interface OgcRoute {
  path: string
  /** Data: a key is required and the request is counted. */
  keyed: boolean
  /** Checks made before the key (an unknown collection or parameter costs nothing). */
  check?(context: OgcContext): void
  handle(context: OgcContext & { caller: Caller | null }): Promise<OgcResponse>
}

const JSON_TYPE = 'application/json; charset=utf-8'
const GEOJSON_TYPE = 'application/geo+json; charset=utf-8'

function collectionOf(context: OgcContext): CollectionDescription {
  const collection = collectionById(decodeURIComponent(context.params.collectionId ?? ''))
  if (!collection)
    throw new OgcException(404, 'NotFound', `no collection ${JSON.stringify(context.params.collectionId)}`)
  return collection
}

function allowedParameters(collection: CollectionDescription, items: boolean): readonly string[] {
  if (collection.id === 'survival')
    return items
      ? [...ITEMS_PARAMETERS, ...SURVIVAL_PARAMETERS]
      : SURVIVAL_PARAMETERS.filter((name) => name !== 'species' && name !== 'method')
  return items ? ITEMS_PARAMETERS : []
}

function climateOf(params: URLSearchParams): ClimateRequest | null {
  const period = textParameter(params, 'period')
  const scenario = textParameter(params, 'scenario')
  return period === null && scenario === null ? null : { period, scenario }
}

/** The species, method and climate a survival request names, checked before its key (a bad one costs nothing). */
function checkSurvivalFilters(params: URLSearchParams): void {
  const species = textParameter(params, 'species')
  const method = textParameter(params, 'method')
  if (species !== null) resolveSpecies(species)
  if (method !== null) resolvePlantingMethod(method)
  CLIMATE_FUTURES.resolve(climateOf(params))
  modelVersionParameter(params)
}

const noParameters = (context: OgcContext) => checkParameters(context.url.searchParams, [])
const dataVersionHeader = (dataVersion: string | null): Record<string, string> =>
  dataVersion ? { 'survival-data-version': dataVersion } : {}

export const OGC_ROUTES: readonly OgcRoute[] = [
  {
    path: '/ogc',
    keyed: false,
    check: noParameters,
    handle: async ({ base }) => ({ body: landingPage(base), contentType: JSON_TYPE }),
  },
  {
    path: '/ogc/conformance',
    keyed: false,
    check: noParameters,
    handle: async () => ({ body: conformanceDocument(), contentType: JSON_TYPE }),
  },
  {
    path: '/ogc/api',
    keyed: false,
    check: noParameters,
    handle: async ({ base }) => ({
      body: ogcApiDocument(base),
      contentType: `${OPENAPI_MEDIA_TYPE}; charset=utf-8`,
    }),
  },
  {
    path: '/ogc/collections',
    keyed: false,
    check: noParameters,
    handle: async ({ base }) => ({ body: collectionsDocument(base), contentType: JSON_TYPE }),
  },
  {
    path: '/ogc/collections/{collectionId}',
    keyed: false,
    check: (context) => {
      collectionOf(context)
      noParameters(context)
    },
    handle: async (context) => ({
      body: collectionDocument(collectionOf(context), context.base),
      contentType: JSON_TYPE,
    }),
  },
  {
    path: '/ogc/collections/{collectionId}/items',
    keyed: true,
    check: (context) => {
      const collection = collectionOf(context)
      checkParameters(context.url.searchParams, allowedParameters(collection, true))
      itemsQuery(context.url.searchParams)
      if (collection.id === 'survival') checkSurvivalFilters(context.url.searchParams)
    },
    async handle(context) {
      const { url, deps, now, caller } = context
      const params = url.searchParams
      const { hits, ...query } = itemsQuery(params)
      const collection = collectionOf(context)
      const counted = hits ? { ...query, limit: 1 } : query
      const self = new URL(`${context.base}${url.pathname}${url.search}`)
      if (collection.id === 'sites') {
        const page = await deps.features.sitesPage(counted)
        const shown = hits ? { ...page, features: [], next: null } : page
        return {
          body: featurePage(shown, siteFeature, self, now),
          contentType: GEOJSON_TYPE,
          headers: dataVersionHeader(page.dataVersion),
        }
      }
      const model = await deps.models.resolve((caller as Caller).accountId, modelVersionParameter(params))
      const page = await deps.features.survivalPage({
        ...counted,
        species: textParameter(params, 'species'),
        method: textParameter(params, 'method'),
        climate: climateOf(params),
        model,
      })
      const shown = hits ? { ...page, features: [], next: null } : page
      return {
        body: featurePage(shown, survivalFeature, self, now),
        contentType: GEOJSON_TYPE,
        headers: dataVersionHeader(page.dataVersion),
      }
    },
  },
  {
    path: '/ogc/collections/{collectionId}/items/{featureId}',
    keyed: true,
    check: (context) => {
      const collection = collectionOf(context)
      checkParameters(context.url.searchParams, allowedParameters(collection, false))
      if (collection.id === 'survival') checkSurvivalFilters(context.url.searchParams)
    },
    async handle(context) {
      const { deps, caller } = context
      const params = context.url.searchParams
      const collection = collectionOf(context)
      const featureId = decodeURIComponent(context.params.featureId ?? '')
      const notFound = () =>
        new OgcException(404, 'NotFound', `no feature ${JSON.stringify(featureId)} in ${collection.id}`)
      if (collection.id === 'sites') {
        if (!/^[1-9]\d{0,15}$/.test(featureId)) throw notFound()
        const { site, dataVersion } = await deps.features.site(Number(featureId))
        if (!site) throw notFound()
        return {
          body: siteFeature(site, dataVersion),
          contentType: GEOJSON_TYPE,
          headers: dataVersionHeader(dataVersion),
        }
      }
      const model = await deps.models.resolve((caller as Caller).accountId, modelVersionParameter(params))
      const { feature, dataVersion } = await deps.features.survivalFeature(
        featureId,
        climateOf(params),
        model,
      )
      if (!feature) throw notFound()
      return {
        body: survivalFeature(feature, dataVersion),
        contentType: GEOJSON_TYPE,
        headers: dataVersionHeader(dataVersion),
      }
    },
  },
]
