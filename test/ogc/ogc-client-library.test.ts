import { OgcApiEndpoint } from '@camptocamp/ogc-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'

/*
 * /ogc through @camptocamp/ogc-client, the OGC API client web maps (GeoNetwork, its map viewer) are
 * built on: it reads the landing page, conformance, collections and items the way a browser client does.
 */

let db: TestDatabase
let server: TestServer
let key: string
const plainFetch = globalThis.fetch

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
  // A web map sends its key on every request; the library itself has no notion of one.
  globalThis.fetch = (input, init = {}) =>
    plainFetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-api-key': key } })
})

afterAll(async () => {
  globalThis.fetch = plainFetch
  await stopSeededServer({ db, server })
})

describe('@camptocamp/ogc-client', () => {
  it('reads the landing page, the conformance classes and the collections', async () => {
    const endpoint = new OgcApiEndpoint(`${server.url}/ogc`)
    expect((await endpoint.info).title).toMatch(/OGC API – Features/)
    expect(await endpoint.hasFeatures).toBe(true)
    expect(await endpoint.featureCollections).toEqual(['sites', 'survival', 'survival-hexagons'])
    const survival = await endpoint.getCollectionInfo('survival')
    expect(survival.id).toBe('survival')
    expect(survival.extent).toBeTruthy()
  })

  it('reads items as the API answers them', async () => {
    const endpoint = new OgcApiEndpoint(`${server.url}/ogc`)
    const items = await endpoint.getCollectionItems('survival', 5, 0)
    const response = await plainFetch(`${server.url}/ogc/collections/survival/items?limit=5`, {
      headers: { 'x-api-key': key },
    })
    const page = await response.json()
    expect(items.map((item) => item.properties)).toEqual(
      page.features.map((feature: { properties: unknown }) => feature.properties),
    )
    const url = await endpoint.getCollectionItemsUrl('survival', { limit: 3, query: 'species=PSME' })
    const filtered = await (await plainFetch(url, { headers: { 'x-api-key': key } })).json()
    expect(filtered.features.map((f: { properties: { species: string } }) => f.properties.species)).toEqual([
      'PSME',
      'PSME',
      'PSME',
    ])
  })
})
