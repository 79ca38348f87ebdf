import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { type OfflineSession, openOfflinePage, screenshotter } from './browser-session.ts'

/**
 * The explorer's surface for a GIS in a real browser: "Copy OGC URL" copies the survival map's OGC API –
 * Features items URL for the view (which the API then answers with the cells on screen), and "Download
 * GeoTIFF" saves the survival raster of the view, which GDAL opens.
 */

const run = promisify(execFile)

describe('the explorer’s GeoTIFF download and OGC URL (real browser, offline)', () => {
  let database: TestDatabase
  let server: TestServer
  let session: OfflineSession
  let page: Page
  let apiKey: string
  let workdir: string
  const { shoot } = screenshotter(() => page)

  beforeAll(async () => {
    database = await createSeededDatabase()
    apiKey = (await issueKey(database, 'mycel')).key
    server = await startTestServer({ database })
    session = await openOfflinePage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true })
    page = session.page
    await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    workdir = await mkdtemp(join(tmpdir(), 'explorer-gis-'))
    await page.goto(
      `${server.url}/?species=TSHE&method=drone_seeded&horizon=3&period=2071-2100&scenario=ssp585&map=50`,
      { waitUntil: 'load' },
    )
    await page.getByLabel('API key', { exact: true }).fill(apiKey)
    await page.getByRole('button', { name: 'Use key' }).click()
  })

  afterAll(async () => {
    await session?.close()
    await server?.close()
    await database?.drop()
    if (workdir) await rm(workdir, { recursive: true, force: true })
  })

  it('copies the OGC items URL of the map on screen, which the API answers with its cells', async () => {
    await page.getByRole('button', { name: 'Copy OGC URL' }).click()
    await expect.poll(() => page.locator('#gis-status').textContent()).toContain('Copied')
    const copied = await page.evaluate(() => navigator.clipboard.readText())
    const url = new URL(copied)
    expect(url.origin + url.pathname).toBe(`${server.url}/ogc/collections/survival-hexagons/items`)
    expect(Object.fromEntries(url.searchParams)).toEqual({
      species: 'TSHE',
      method: 'drone_seeded',
      horizon: '3',
      period: '2071-2100',
      scenario: 'ssp585',
      cell_km: '50',
    })
    expect(copied).not.toContain(apiKey)
    const answer = await fetch(copied, { headers: { 'x-api-key': apiKey } })
    expect(answer.status).toBe(200)
    const page1 = await answer.json()
    expect(page1.features.length).toBeGreaterThan(0)
    expect(page1.features[0].properties).toMatchObject({
      species: 'TSHE',
      method: 'drone_seeded',
      horizon: 3,
    })
    await shoot('gis-copy-ogc-url')
  })

  it('downloads the survival GeoTIFF of the view, which GDAL opens as EPSG:4326', async () => {
    const downloading = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Download GeoTIFF' }).click()
    const download = await downloading
    expect(download.suggestedFilename()).toBe('survival-TSHE-drone_seeded-3y-2071-2100-ssp585.tif')
    const file = join(workdir, download.suggestedFilename())
    await download.saveAs(file)
    await expect.poll(() => page.locator('#gis-status').textContent()).toContain('Saved')
    const { stdout } = await run('/usr/bin/gdalinfo', ['-json', file], { maxBuffer: 16 * 1024 * 1024 })
    const info = JSON.parse(stdout)
    expect(info.driverShortName).toBe('GTiff')
    expect(info.stac?.['proj:epsg'] ?? info.coordinateSystem?.wkt).toBeTruthy()
    expect(JSON.stringify(info.coordinateSystem)).toContain('4326')
    await shoot('gis-download-geotiff')
    expect(session.consoleErrors).toEqual([])
    expect(session.blocked).toEqual([])
  })
})
