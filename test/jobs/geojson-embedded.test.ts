import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { seedAll } from '../../src/seed/seed-all.ts'
import { rest } from '../rest/client.ts'
import { openEmbeddedDatabase } from '../support/database.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  collectionText,
  expectFormatsAgree,
  finished,
  GEOJSON,
  geojsonResults,
  geometryOf,
  idOf,
  mixedFeatures,
  QUERY,
  type ResultFeature,
} from './geojson-jobs.ts'

/** A GeoJSON job end to end on the embedded store: uploaded gzipped, scored in process, read in every format. */

describe('GeoJSON jobs on the embedded store (PGlite, no Redis)', () => {
  let db: Database
  let server: TestServer

  beforeAll(async () => {
    db = await openEmbeddedDatabase()
    expect(db.mode).toBe('embedded')
    await migrate(db.sql)
    await seedAll(db.sql)
    server = await startTestServer({ database: db, quota: 'memory', jobChunkRows: 10 })
  }, 180_000)

  afterAll(async () => {
    await server?.close()
    await db?.close()
  })

  it('scores a gzipped mixed collection in process and serves it in all three formats, in input order', async () => {
    const { key } = await createKey(db.sql, { tier: 'mycel' })
    const input = mixedFeatures(20)
    const accepted = await rest(server.url, 'POST', `/v1/jobs?${QUERY}`, {
      key,
      raw: new Uint8Array(gzipSync(collectionText(input))),
      contentType: GEOJSON,
      headers: { 'content-encoding': 'gzip' },
    })
    expect(accepted.status, accepted.text).toBe(202)
    const id = accepted.body.id as string
    const done = await finished(server.url, key, id)
    expect(done).toMatchObject({ status: 'succeeded', rows_total: input.length, rows_done: input.length })

    const { response, bytes } = await geojsonResults(server.url, key, id)
    expect(response.status).toBe(200)
    const features = (JSON.parse(bytes.toString()) as { features: ResultFeature[] }).features
    const csv = await rest(server.url, 'GET', `/v1/jobs/${id}/results`, {
      key,
      headers: { accept: 'text/csv' },
    })
    const ndjson = await rest(server.url, 'GET', `/v1/jobs/${id}/results`, {
      key,
      headers: { accept: 'application/x-ndjson' },
    })
    expectFormatsAgree(input, csv.text, ndjson.text, features)
    input.forEach((item, index) => {
      if (item.expected.geometry === null) expect(features[index]?.geometry).toBeNull()
      else expect(features[index]?.geometry).toEqual(geometryOf(item.feature))
      if (item.expected.error !== null)
        expect(features[index]?.properties.error_code).toBe(item.expected.error)
    })
    const coast = features[input.findIndex((f) => idOf(f.feature) === 'stand-coast')]
    expect(coast?.properties).toMatchObject({ planted_trees_per_acre: 400, rule_set: 'or_fpa' })

    const tail = await geojsonResults(server.url, key, id, { range: `bytes=${bytes.length - 100}-` })
    expect(tail.response.status).toBe(206)
    expect(Buffer.concat([bytes.subarray(0, bytes.length - 100), tail.bytes]).equals(bytes)).toBe(true)
  })
})
