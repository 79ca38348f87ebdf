import type { Caller } from '../access/caller.ts'
import { ogcApiDocument } from './ogc-api-document.ts'
import { COLLECTION_READS } from './ogc-collection-reads.ts'
import {
  ANY_COLLECTION_FILTERS,
  COLLECTIONS,
  type CollectionDescription,
  collectionById,
  collectionDocument,
  featureParameters,
  pagingParameters,
} from './ogc-collections.ts'
import type { OgcContext, OgcRoute } from './ogc-context.ts'
import { collectionsDocument, conformanceDocument, landingPage, OPENAPI_MEDIA_TYPE } from './ogc-documents.ts'
import { OgcException } from './ogc-exception.ts'
import { checkParameters, itemsQuery } from './ogc-query.ts'

/* The routes of /ogc: what each reads of the request and which domain call answers it. */

const JSON_TYPE = 'application/json; charset=utf-8'

/** A keyed route's context: the caller is known. */
type Reading = OgcContext & { caller: Caller }

function collectionOf(context: OgcContext): CollectionDescription {
  const collection = collectionById(decodeURIComponent(context.params.collectionId ?? ''))
  if (!collection)
    throw new OgcException(404, 'NotFound', `no collection ${JSON.stringify(context.params.collectionId)}`)
  return collection
}

const FILTER_NAMES = [...ANY_COLLECTION_FILTERS.keys()]

/**
 * The service's own documents take any collection's filters, each checked as its collection checks it and
 * otherwise not read: QGIS's OAPIF provider sends the query of the URL it opens (`…/ogc?species=…&
 * vegetation_control=…`) with every request, the landing page and the API document included.
 */
function anyCollectionsFilters(context: OgcContext): void {
  const params = context.url.searchParams
  checkParameters(params, FILTER_NAMES)
  for (const collection of COLLECTIONS) COLLECTION_READS[collection.id].checkFilters(params)
}

export const OGC_ROUTES: readonly OgcRoute[] = [
  {
    path: '/ogc',
    keyed: false,
    check: anyCollectionsFilters,
    handle: async ({ base }) => ({ body: landingPage(base), contentType: JSON_TYPE }),
  },
  {
    path: '/ogc/conformance',
    keyed: false,
    check: anyCollectionsFilters,
    handle: async () => ({ body: conformanceDocument(), contentType: JSON_TYPE }),
  },
  {
    path: '/ogc/api',
    keyed: false,
    check: anyCollectionsFilters,
    handle: async ({ base }) => ({
      body: ogcApiDocument(base),
      contentType: `${OPENAPI_MEDIA_TYPE}; charset=utf-8`,
    }),
  },
  {
    path: '/ogc/collections',
    keyed: false,
    check: anyCollectionsFilters,
    handle: async ({ base }) => ({ body: collectionsDocument(base), contentType: JSON_TYPE }),
  },
  {
    path: '/ogc/collections/{collectionId}',
    keyed: false,
    // The collection's filters are taken (and checked) here too: GDAL's OAPIF driver reads the query of
    // a collection URL it opens (`OAPIF:…/collections/survival?vegetation_control=…`) here first, and
    // then sends it with every items page; the document is the same whatever they are.
    check: (context) => {
      const collection = collectionOf(context)
      const params = context.url.searchParams
      checkParameters(
        params,
        collection.filters.map((f) => f.name),
      )
      COLLECTION_READS[collection.id].checkFilters(params)
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
      const params = context.url.searchParams
      checkParameters(params, [...pagingParameters(collection), ...collection.filters.map((f) => f.name)])
      itemsQuery(params)
      COLLECTION_READS[collection.id].checkFilters(params)
    },
    async handle(context) {
      const collection = collectionOf(context)
      return COLLECTION_READS[collection.id].page(context as Reading, itemsQuery(context.url.searchParams))
    },
  },
  {
    path: '/ogc/collections/{collectionId}/items/{featureId}',
    keyed: true,
    check: (context) => {
      const collection = collectionOf(context)
      checkParameters(context.url.searchParams, featureParameters(collection))
      COLLECTION_READS[collection.id].checkFilters(context.url.searchParams)
    },
    async handle(context) {
      const collection = collectionOf(context)
      const featureId = decodeURIComponent(context.params.featureId ?? '')
      return COLLECTION_READS[collection.id].feature(context as Reading, featureId)
    },
  },
]
