import { COLLECTIONS, collectionDocument } from './ogc-collections.ts'

/** The conformance classes of OGC API – Features – Part 1 that /ogc implements. */
export const CONFORMANCE_CLASSES = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
] as const

export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.0'

/** The landing page (/ogc): where the API document, the conformance and the collections are. */
export function landingPage(base: string) {
  return {
    title: 'Survival Prediction API – OGC API – Features',
    description:
      'Tree planting survival in Oregon and Washington as feature collections: the data sites and survival at each of them. Read-only, CRS84. Items need an API key (X-API-Key, or HTTP Basic with the key as the password).',
    links: [
      { href: `${base}/ogc`, rel: 'self', type: 'application/json', title: 'This document' },
      { href: `${base}/ogc/api`, rel: 'service-desc', type: OPENAPI_MEDIA_TYPE, title: 'The API definition' },
      {
        href: `${base}/ogc/conformance`,
        rel: 'conformance',
        type: 'application/json',
        title: 'Conformance classes',
      },
      { href: `${base}/ogc/collections`, rel: 'data', type: 'application/json', title: 'The collections' },
    ],
  }
}

export function conformanceDocument() {
  return { conformsTo: CONFORMANCE_CLASSES }
}

export function collectionsDocument(base: string) {
  return {
    links: [
      { href: `${base}/ogc/collections`, rel: 'self', type: 'application/json', title: 'This document' },
    ],
    collections: COLLECTIONS.map((collection) => collectionDocument(collection, base)),
  }
}
