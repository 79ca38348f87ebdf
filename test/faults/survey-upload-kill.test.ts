import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { surveyUploadStore } from '../../src/db/survey-ports.ts'
import { Metrics } from '../../src/observability/metrics.ts'
import type { IssuedKey } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'

/**
 * A survey upload whose server is killed mid-body stores nothing: its rows were only staged, and the
 * sweep of any server that runs on fails the upload and drops them.
 */
describe('a survey upload whose server is killed', () => {
  let database: TestDatabase
  let key: IssuedKey
  let server: ServerProcess | undefined

  beforeAll(async () => {
    database = await createSeededDatabase()
    key = await issueKey(database, 'hypha')
  })

  afterAll(async () => {
    await server?.stop('SIGKILL')
    await database?.drop()
  })

  const uploads = () =>
    database.sql<{ id: string; status: string; rowsRead: number; failure: { code: string } | null }[]>`
      SELECT id, status, rows_read, failure FROM survey_uploads WHERE key_id = ${key.id}`
  const count = async (table: 'survey_plots' | 'survey_upload_rows') =>
    (await database.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${database.sql(table)}`)[0]?.n

  it('leaves no plot behind, and the sweep fails the upload and drops what it staged', async () => {
    server = await startServerProcess({ DATABASE_URL: database.url })
    const { latitude, longitude } = FOREST_POINTS.coastRange
    const rows = Array.from(
      { length: 5000 },
      (_, index) => `k-${index},${latitude},${longitude},PSME,manual,2021-03-15,2024-03-15,40,31\n`,
    )
    const req = request(`${server.url}/v1/surveys/uploads`, {
      method: 'POST',
      headers: { 'x-api-key': key.key, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
    })
    req.on('error', () => {})
    req.write(
      `plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive\n${rows.join('')}`,
    )
    // Batches staged, the body not ended: the server dies mid-upload.
    expect(await eventually(async () => ((await uploads())[0]?.rowsRead ?? 0) >= 2000, 30_000, 50)).toBe(true)
    await server.stop('SIGKILL')
    req.destroy()
    expect(await count('survey_plots')).toBe(0)
    expect((await uploads())[0]?.status).toBe('receiving')
    expect(await count('survey_upload_rows')).toBeGreaterThan(0)

    // The sweep takes an upload untouched for five minutes as one a stopped server left; here, now.
    const store = surveyUploadStore(database.sql, { DB_QUERY_TIMEOUT_MS: 3000 }, new Metrics())
    const swept = await store.sweep(new Date(Date.now() + 1000), new Date(0))
    expect(swept).toEqual({ stalled: 1, expired: 0 })
    const [left] = await uploads()
    expect(left).toMatchObject({ status: 'failed', failure: { code: 'interrupted' } })
    expect(await count('survey_upload_rows')).toBe(0)
    expect(await count('survey_plots')).toBe(0)
  })

  it('removes uploads that ended more than 30 days before, with their refused rows', async () => {
    const store = surveyUploadStore(database.sql, { DB_QUERY_TIMEOUT_MS: 3000 }, new Metrics())
    const later = new Date(Date.now() + 31 * 86_400_000)
    const swept = await store.sweep(new Date(0), new Date(later.getTime() - 30 * 86_400_000))
    expect(swept.expired).toBe(1)
    expect(await uploads()).toEqual([])
  })
})
