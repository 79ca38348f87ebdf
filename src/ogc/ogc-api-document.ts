import { ITEMS_LIMIT_DEFAULT, ITEMS_LIMIT_MAX } from '../domain/features/feature-collections.ts'
import { API_VERSION } from '../version.ts'
import {
  ANY_COLLECTION_FILTERS,
  COLLECTIONS,
  type CollectionDescription,
  featureParameters,
  type PropertyDescription,
  pagingParameters,
} from './ogc-collections.ts'
import { OPENAPI_MEDIA_TYPE } from './ogc-documents.ts'

/*
 * /ogc/api: the OpenAPI 3.0 document of /ogc (Part 1's oas30 conformance class). Each collection's items
 * path declares its own query parameters, so GDAL's OAPIF driver sends a -where on them to the server
 * instead of filtering every feature itself.
 */

const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` })

const PAGING_PARAMETERS = {
  limit: {
    name: 'limit',
    in: 'query',
    required: false,
    style: 'form',
    explode: false,
    description: `Features per page, ${ITEMS_LIMIT_DEFAULT} by default; above ${ITEMS_LIMIT_MAX}, ${ITEMS_LIMIT_MAX}.`,
    schema: { type: 'integer', minimum: 1, maximum: ITEMS_LIMIT_MAX, default: ITEMS_LIMIT_DEFAULT },
  },
  bbox: {
    name: 'bbox',
    in: 'query',
    required: false,
    style: 'form',
    explode: false,
    description: 'Only features whose point lies in the box: west,south,east,north in CRS84 degrees.',
    schema: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } },
  },
  'bbox-crs': {
    name: 'bbox-crs',
    in: 'query',
    required: false,
    description: 'The CRS of bbox: CRS84 only.',
    schema: { type: 'string', enum: ['http://www.opengis.net/def/crs/OGC/1.3/CRS84'] },
  },
  cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'Where a page starts, as the previous page’s next link gives it.',
    schema: { type: 'string' },
  },
  offset: {
    name: 'offset',
    in: 'query',
    required: false,
    description: 'Features skipped before the page (instead of cursor).',
    schema: { type: 'integer', minimum: 0 },
  },
  resultType: {
    name: 'resultType',
    in: 'query',
    required: false,
    description: 'hits: numberMatched alone, with no features.',
    schema: { type: 'string', enum: ['results', 'hits'], default: 'results' },
  },
  featureId: {
    name: 'featureId',
    in: 'path',
    required: true,
    description: 'A feature’s id',
    schema: { type: 'string' },
  },
  collectionId: {
    name: 'collectionId',
    in: 'path',
    required: true,
    schema: { type: 'string', enum: COLLECTIONS.map((collection) => collection.id) },
  },
} as const

function filterParameters(collection: CollectionDescription) {
  return Object.fromEntries(
    collection.filters.map((filter) => [
      filter.name,
      {
        name: filter.name,
        in: 'query',
        required: false,
        description: filter.description,
        schema: {
          type: filter.type,
          ...(filter.enum ? { enum: filter.enum } : {}),
          ...(filter.minimum === undefined ? {} : { minimum: filter.minimum, maximum: filter.maximum }),
        },
      },
    ]),
  )
}

function propertySchema(property: PropertyDescription) {
  return {
    type: property.type,
    ...(property.nullable ? { nullable: true } : {}),
    ...(property.enum ? { enum: property.enum } : {}),
    description: property.description,
  }
}

function featureSchema(collection: CollectionDescription) {
  return {
    type: 'object',
    required: ['type', 'geometry', 'properties'],
    properties: {
      type: { type: 'string', enum: ['Feature'] },
      id: { type: collection.id === 'sites' ? 'integer' : 'string' },
      geometry: { $ref: `#/components/schemas/${collection.geometry === 'Point' ? 'point' : 'polygon'}` },
      properties: {
        type: 'object',
        properties: Object.fromEntries(collection.properties.map((p) => [p.name, propertySchema(p)])),
      },
    },
  }
}

const json = (schema: unknown, type = 'application/json') => ({ content: { [type]: { schema } } })

const ERRORS = {
  '400': {
    description: 'A bad or unknown query parameter',
    ...json({ $ref: '#/components/schemas/exception' }),
  },
  '401': {
    description: 'No API key, or not a valid one',
    ...json({ $ref: '#/components/schemas/exception' }),
  },
  '429': { description: 'The daily quota is spent', ...json({ $ref: '#/components/schemas/exception' }) },
  '503': {
    description: 'The data store is away; retry',
    ...json({ $ref: '#/components/schemas/exception' }),
  },
}

function collectionPaths(collection: CollectionDescription) {
  const filterOf = (name: string) => parameter(`${collection.id}-${name}`)
  const filters = collection.filters.map((filter) => filterOf(filter.name))
  const featureFilters = featureParameters(collection).map(filterOf)
  const featureSchemaRef = { $ref: `#/components/schemas/${collection.id}-feature` }
  return {
    [`/collections/${collection.id}`]: {
      get: {
        operationId: `${collection.id}Collection`,
        summary: `${collection.title}: the collection`,
        description:
          'Takes the filters of its items, checked and otherwise not read, so that a collection URL opened by a GIS can carry them to every page.',
        security: [],
        parameters: filters,
        responses: {
          '200': { description: 'The collection', ...json({ type: 'object' }) },
          '400': ERRORS['400'],
        },
      },
    },
    [`/collections/${collection.id}/items`]: {
      get: {
        operationId: `${collection.id}Items`,
        summary: `${collection.title}: a page of features`,
        description: 'One counted request per page.',
        parameters: [...pagingParameters(collection).map(parameter), ...filters],
        responses: {
          '200': {
            description: 'A page of features, with numberMatched, numberReturned, timeStamp and next',
            ...json(
              {
                type: 'object',
                required: ['type', 'features'],
                properties: {
                  type: { type: 'string', enum: ['FeatureCollection'] },
                  features: { type: 'array', items: featureSchemaRef },
                  numberMatched: { type: 'integer', minimum: 0 },
                  numberReturned: { type: 'integer', minimum: 0 },
                  timeStamp: { type: 'string', format: 'date-time' },
                  links: { type: 'array', items: { $ref: '#/components/schemas/link' } },
                },
              },
              'application/geo+json',
            ),
          },
          ...ERRORS,
        },
      },
    },
    [`/collections/${collection.id}/items/{featureId}`]: {
      get: {
        operationId: `${collection.id}Feature`,
        summary: `${collection.title}: one feature`,
        parameters: [parameter('featureId'), ...featureFilters],
        responses: {
          '200': { description: 'The feature', ...json(featureSchemaRef, 'application/geo+json') },
          '404': { description: 'No such feature', ...json({ $ref: '#/components/schemas/exception' }) },
          ...ERRORS,
        },
      },
    },
  }
}

/** Every collection's filters, each by the parameter of the first collection declaring it. */
const ANY_FILTERS = [...ANY_COLLECTION_FILTERS].map(([name, collection]) =>
  parameter(`${collection.id}-${name}`),
)

/** A document of the service itself: it takes any collection's filters (see ogc-routes.ts). */
const document = (summary: string, schema: unknown = { type: 'object' }, type = 'application/json') => ({
  get: {
    summary,
    description:
      'Takes any collection’s filters, checked and otherwise not read, so that a GIS that sends the query of the URL it opens with every request (QGIS) can open a filtered layer from the landing page’s URL.',
    security: [],
    parameters: ANY_FILTERS,
    responses: {
      '200': { description: summary, ...json(schema, type) },
      '400': ERRORS['400'],
    },
  },
})

/** The document, its server the service's address (`base`). */
export function ogcApiDocument(base: string) {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Survival Prediction API – OGC API – Features',
      version: API_VERSION,
      description:
        'Read-only feature collections of the Survival Prediction API, in CRS84. Items need an API key: X-API-Key, or HTTP Basic with the key as the password (any user name).',
    },
    servers: [{ url: `${base}/ogc` }],
    security: [{ apiKey: [] }, { basic: [] }],
    paths: {
      '/': document('The landing page'),
      '/conformance': document('The conformance classes'),
      '/api': document('This document', { type: 'object' }, OPENAPI_MEDIA_TYPE),
      '/collections': document('The collections'),
      '/collections/{collectionId}': {
        get: {
          summary: 'One collection',
          security: [],
          parameters: [parameter('collectionId')],
          responses: {
            '200': { description: 'The collection', ...json({ type: 'object' }) },
            '404': { description: 'No such collection', ...json({ $ref: '#/components/schemas/exception' }) },
          },
        },
      },
      ...Object.assign({}, ...COLLECTIONS.map(collectionPaths)),
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        basic: { type: 'http', scheme: 'basic', description: 'The API key as the password' },
      },
      parameters: {
        ...PAGING_PARAMETERS,
        ...Object.assign(
          {},
          ...COLLECTIONS.map((collection) =>
            Object.fromEntries(
              Object.entries(filterParameters(collection)).map(([name, p]) => [
                `${collection.id}-${name}`,
                p,
              ]),
            ),
          ),
        ),
      },
      schemas: {
        exception: {
          type: 'object',
          required: ['code'],
          properties: {
            code: { type: 'string' },
            description: { type: 'string' },
            details: { type: 'object' },
          },
        },
        link: {
          type: 'object',
          required: ['href'],
          properties: {
            href: { type: 'string' },
            rel: { type: 'string' },
            type: { type: 'string' },
            title: { type: 'string' },
          },
        },
        point: {
          type: 'object',
          required: ['type', 'coordinates'],
          properties: {
            type: { type: 'string', enum: ['Point'] },
            coordinates: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } },
          },
        },
        polygon: {
          type: 'object',
          required: ['type', 'coordinates'],
          properties: {
            type: { type: 'string', enum: ['Polygon'] },
            coordinates: {
              type: 'array',
              items: {
                type: 'array',
                minItems: 4,
                items: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } },
              },
            },
          },
        },
        ...Object.fromEntries(
          COLLECTIONS.map((collection) => [`${collection.id}-feature`, featureSchema(collection)]),
        ),
      },
    },
  }
}
