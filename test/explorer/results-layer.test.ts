import { inflateSync } from 'node:zlib'
import type { Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { deleteKeysWithPrefix } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import {
  clickMapAt,
  dragFileOver,
  elementsWiderThan,
  isOperation,
  type OfflineSession,
  openOfflinePage,
  type Point,
  pixelOf,
  screenshotter,
} from './browser-session.ts'

type Rgb = [number, number, number]
type Properties = Record<string, unknown>
interface ResultFeature {
  type: 'Feature'
  id?: string | number
  geometry: { type: string; coordinates: unknown } | null
  properties: Properties
}
interface Collection {
  type: 'FeatureCollection'
  features: ResultFeature[]
}

/** The page's colour classes (results-data.ts), best first, and its colours for stands. */
const CLASSES: [number, string][] = [
  [0.9, '#1a9850'],
  [0.8, '#91cf60'],
  [0.7, '#d9ef8b'],
  [0.6, '#fee08b'],
  [0.5, '#fc8d59'],
  [0, '#d73027'],
]
const NO_SURVIVAL = '#9e9e9e'
const MEETS_FILL = '#2166ac'
const FAILS_FILL = '#c51b7d'
const STAND_OPACITY = 0.45
/** The covered states' fill on the base map, under the stands. */
const LAND = '#f4efe3'

const classOf = (survival: number | null): number =>
  survival === null ? -1 : CLASSES.findIndex(([min]) => survival >= min)
const colourOf = (survival: number | null): string => CLASSES[classOf(survival)]?.[1] ?? NO_SURVIVAL

function hex(colour: string): Rgb {
  const value = Number.parseInt(colour.slice(1), 16)
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255]
}

function blend(fill: string, under: string, alpha: number): Rgb {
  const [a, b] = [hex(fill), hex(under)]
  return a.map((channel, i) => channel * alpha + (b[i] ?? 0) * (1 - alpha)) as Rgb
}

function expectColour(actual: Rgb, expected: Rgb, tolerance: number, what: string): void {
  const off = Math.max(...actual.map((channel, i) => Math.abs(channel - (expected[i] ?? 0))))
  expect(
    off,
    `${what}: ${actual.join(',')} against ${expected.map(Math.round).join(',')}`,
  ).toBeLessThanOrEqual(tolerance)
}

/**
 * The colour of a 1×1 PNG (a screenshot clipped to one pixel). With one pixel every PNG filter leaves
 * the bytes as they are (its neighbours are all zero), so the inflated data is the filter byte and then
 * the pixel, RGB or RGBA.
 */
function onePixel(png: Buffer): Rgb {
  const idat: Buffer[] = []
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset)
    const type = png.toString('ascii', offset + 4, offset + 8)
    if (type === 'IDAT') idat.push(png.subarray(offset + 8, offset + 8 + length))
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  return [raw[1] ?? 0, raw[2] ?? 0, raw[3] ?? 0]
}

/** The colour on the screen at a point of the map. */
async function colourAt(page: Page, point: Point): Promise<Rgb> {
  const box = await page.locator('#map').boundingBox()
  if (!box) throw new Error('no map')
  const { x, y } = await pixelOf(page, point)
  const png = await page.screenshot({
    clip: { x: Math.floor(box.x + x), y: Math.floor(box.y + y), width: 1, height: 1 },
  })
  return onePixel(png)
}

/** A square stand around a point, [longitude, latitude], closed. */
function square(centre: Point, half: number) {
  const { latitude: y, longitude: x } = centre
  return {
    type: 'Polygon',
    coordinates: [
      [
        [x - half, y - half],
        [x + half, y - half],
        [x + half, y + half],
        [x - half, y + half],
        [x - half, y - half],
      ],
    ],
  }
}

const pointFeature = (id: string, at: Point, properties: Properties = {}) => ({
  type: 'Feature',
  id,
  geometry: { type: 'Point', coordinates: [at.longitude, at.latitude] },
  properties,
})

const WEST = FOREST_POINTS.westCascades
const STAND_MEETS: Point = { latitude: WEST.latitude, longitude: WEST.longitude + 0.12 }
const STAND_FAILS: Point = { latitude: WEST.latitude, longitude: WEST.longitude - 0.12 }

/**
 * A GeoJSON job's upload: three points (one asking for 1 and 5 years only), a stand planted densely
 * enough to meet the standard and one that cannot, a LineString (refused at upload) and a point
 * outside Oregon and Washington (refused when scored).
 */
const UPLOAD = {
  type: 'FeatureCollection',
  features: [
    pointFeature('cascades', WEST),
    pointFeature('coast-drone', FOREST_POINTS.coastRange, {
      planting_method: 'drone_seeded',
      horizons: [1, 5],
    }),
    pointFeature('east-pine', FOREST_POINTS.eastCascades, { species_code: 'PIPO' }),
    {
      type: 'Feature',
      id: 'dense',
      geometry: square(STAND_MEETS, 0.035),
      properties: { trees_per_acre: 700 },
    },
    {
      type: 'Feature',
      id: 'sparse',
      geometry: square(STAND_FAILS, 0.035),
      properties: { trees_per_acre: 150 },
    },
    {
      type: 'Feature',
      id: 'road',
      geometry: {
        type: 'LineString',
        coordinates: [
          [WEST.longitude, WEST.latitude],
          [WEST.longitude + 0.1, WEST.latitude],
        ],
      },
      properties: {},
    },
    pointFeature('boise', { latitude: 43.615, longitude: -116.202 }),
  ],
}
const JOB_QUERY = 'species_code=PSME&planting_method=manual&horizons=1|3|5&trees_per_acre=400'

const isResults = (response: Response) => /\/v1\/jobs\/[^/]+\/results$/.test(new URL(response.url()).pathname)

/** A results collection of `count` points on a grid over western Oregon, survival spread over the classes. */
function manyPoints(count: number): Collection {
  const side = Math.ceil(Math.sqrt(count))
  return {
    type: 'FeatureCollection',
    features: Array.from({ length: count }, (_, i) => {
      const survival = (i % 100) / 100
      return {
        type: 'Feature',
        id: `grid-${i}`,
        geometry: {
          type: 'Point',
          coordinates: [-124 + (Math.floor(i / side) / side) * 2.4, 42.5 + ((i % side) / side) * 3.2],
        },
        properties: {
          feature_index: i,
          survival_1y: Math.min(1, survival + 0.1),
          survival_3y: Math.min(1, survival + 0.05),
          survival_5y: survival,
          top_factor_5y: 'Competing vegetation',
        },
      }
    }),
  }
}

describe('the explorer results layer in a real browser (offline)', () => {
  let database: TestDatabase
  let server: TestServer
  /**
   * A server on the same database that scores no jobs (its queue is BullMQ on the test Redis, with no
   * worker): a job uploaded to it stays queued.
   */
  let idle: TestServer
  let session: OfflineSession
  let page: Page
  let apiKey: string
  let jobId = ''
  let results: Collection = { type: 'FeatureCollection', features: [] }
  let resultsText = ''
  /** The one answer that is an error on purpose: a job id that does not exist. */
  const MISSING_JOB = 'job_000000000000000000000000'
  const expectedError = (url: string) => new URL(url).pathname === `/v1/jobs/${MISSING_JOB}`

  const { shoot, shootRegion } = screenshotter(() => page)

  async function upload(to: TestServer, body: string, contentType: string, query = ''): Promise<string> {
    const response = await fetch(`${to.url}/v1/jobs${query ? `?${query}` : ''}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': contentType },
      body,
    })
    expect(response.status).toBe(202)
    return ((await response.json()) as { id: string }).id
  }

  async function waitFor(id: string): Promise<{ status: string; format: string; errors_by_code: unknown }> {
    let job = { status: '', format: '', errors_by_code: {} }
    const done = await eventually(
      async () => {
        const response = await fetch(`${server.url}/v1/jobs/${id}`, { headers: { 'x-api-key': apiKey } })
        job = (await response.json()) as typeof job
        return job.status !== 'queued' && job.status !== 'running'
      },
      30_000,
      100,
    )
    expect(done).toBe(true)
    return job
  }

  const drawnPoints = () =>
    results.features.filter((f) => f.geometry?.type === 'Point' && !f.properties.error_code)
  const featureById = (id: string) => {
    const found = results.features.find((f) => f.id === id)
    if (!found) throw new Error(`no feature ${id}`)
    return found
  }
  const pointOf = (feature: ResultFeature): Point => {
    const [longitude, latitude] = (feature.geometry?.coordinates ?? []) as [number, number]
    return { latitude, longitude }
  }

  /** Points by colour class at a horizon, as the legend should count them (the last: no survival). */
  function expectedCounts(horizon: 1 | 3 | 5): number[] {
    const counts = new Array<number>(CLASSES.length + 1).fill(0)
    for (const feature of drawnPoints()) {
      const value = feature.properties[`survival_${horizon}y`]
      const index = classOf(typeof value === 'number' ? value : null)
      const slot = index < 0 ? CLASSES.length : index
      counts[slot] = (counts[slot] ?? 0) + 1
    }
    return counts
  }

  /** Legend entries that reach past the legend's box (none should). */
  const overflowingLegend = (target: Page = page) =>
    target.locator('#results-legend').evaluate((legend) => {
      const box = legend.getBoundingClientRect()
      return [...legend.querySelectorAll('li, p')]
        .filter((item) => item.getBoundingClientRect().right > box.right + 0.5)
        .map((item) => item.textContent)
    })

  async function legendCounts(target: Page = page): Promise<number[]> {
    const items = target.locator('#results-legend .results-legend-points li')
    const counts = new Array<number>(CLASSES.length + 1).fill(0)
    for (const item of await items.all()) {
      const slot = (await item.getAttribute('data-class')) ?? ''
      counts[slot === 'none' ? CLASSES.length : Number(slot)] = Number(await item.getAttribute('data-count'))
    }
    return counts
  }

  /** Each point drawn in its class's colour, each stand filled by whether it meets the standard. */
  async function expectColoursOnMap(horizon: 1 | 3 | 5, target: Page = page): Promise<void> {
    for (const feature of drawnPoints()) {
      const value = feature.properties[`survival_${horizon}y`]
      const expected = colourOf(typeof value === 'number' ? value : null)
      expectColour(await colourAt(target, pointOf(feature)), hex(expected), 3, `point ${feature.id}`)
    }
    expectColour(
      await colourAt(target, STAND_MEETS),
      blend(MEETS_FILL, LAND, STAND_OPACITY),
      4,
      'stand dense',
    )
    expectColour(
      await colourAt(target, STAND_FAILS),
      blend(FAILS_FILL, LAND, STAND_OPACITY),
      4,
      'stand sparse',
    )
  }

  beforeAll(async () => {
    database = await createSeededDatabase()
    apiKey = (await issueKey(database, 'mycel')).key
    server = await startTestServer({ database })
    idle = await startTestServer({ database, jobQueue: 'redis', jobWorkers: false })
    // Chromium logs every answer of 400 or more; the missing job's 404 is the one asked for.
    session = await openOfflinePage({
      viewport: { width: 1280, height: 800 },
      isExpectedError: expectedError,
    })
    page = session.page
  })

  afterAll(async () => {
    await session?.close()
    await idle?.close()
    if (idle) await deleteKeysWithPrefix(`${idle.quotaPrefix}bull`)
    await server?.close()
    await database?.drop()
  })

  it('creates a GeoJSON job through the API: points, stands and failed features', async () => {
    jobId = await upload(server, JSON.stringify(UPLOAD), 'application/geo+json', JOB_QUERY)
    const job = await waitFor(jobId)
    expect(job).toMatchObject({
      status: 'succeeded',
      format: 'geojson',
      errors_by_code: { invalid_request: 1, outside_coverage: 1 },
    })
    const response = await fetch(`${server.url}/v1/jobs/${jobId}/results`, {
      headers: { 'x-api-key': apiKey, accept: 'application/geo+json' },
    })
    resultsText = await response.text()
    results = JSON.parse(resultsText) as Collection
    expect(results.features).toHaveLength(UPLOAD.features.length)
    // What the page is checked against below: each point has survival, the stands one verdict each.
    expect(drawnPoints()).toHaveLength(3)
    expect(featureById('coast-drone').properties.survival_3y ?? null).toBeNull()
    const meets = (id: string) => {
      const { meets_probability: p, confidence: c } = featureById(id).properties as { [k: string]: number }
      return (p ?? 0) >= (c ?? 1)
    }
    expect(meets('dense')).toBe(true)
    expect(meets('sparse')).toBe(false)
    expect(featureById('road').geometry).toBeNull()
  })

  it('shows the job by its id from the keyboard: points by survival, stands by the standard, failures counted', async () => {
    await page.goto(`${server.url}/`, { waitUntil: 'load' })
    const coverage = page.waitForResponse(isOperation('ExplorerCoverage'))
    await page.getByLabel('API key', { exact: true }).fill(apiKey)
    await page.getByRole('button', { name: 'Use key' }).click()
    await coverage
    expect(await page.locator('#results-box').getAttribute('open')).toBeNull()

    // The section opens from the keyboard; its inputs are labelled and next in the tab order.
    await page.locator('#results-box summary').focus()
    await page.keyboard.press('Enter')
    expect(await page.locator('#results-box').getAttribute('open')).toBe('')
    for (const name of ['Job id', 'Or a results file (GeoJSON; or drop it on the map)'])
      await expect(page.getByLabel(name, { exact: true }).count(), name).resolves.toBe(1)
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('results-job-id')
    await page.keyboard.type(jobId)
    const answered = page.waitForResponse(isResults)
    await page.keyboard.press('Enter')
    const response = await answered
    expect(response.status()).toBe(200)
    // With the key entered above, in a header, asking for GeoJSON; never in the URL.
    expect(response.request().headers()['x-api-key']).toBe(apiKey)
    expect(response.request().headers().accept).toBe('application/geo+json')
    expect(response.url()).not.toContain(apiKey)

    const summary = page.locator('#results-summary')
    await expect
      .poll(() => summary.textContent())
      .toBe(`Job ${jobId}: 3 points and 2 stands drawn; 2 features failed (below, not drawn).`)
    expect(await page.locator('#results-badge').textContent()).toBe(`${jobId}, on the map`)
    // The hint over the map gives way to the layer.
    expect(await page.locator('#map-message').isVisible()).toBe(false)
    // Failed features: counted by error code and listed with their messages, not drawn.
    const failedRows = await page
      .locator('#results-failed-body tr')
      .evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
      )
    expect(failedRows).toEqual([
      ['invalid_request', '1'],
      ['outside_coverage', '1'],
    ])
    const failures = await page.locator('#results-failed-list li').allTextContents()
    expect(failures).toHaveLength(2)
    expect(failures[0]).toMatch(
      /^Feature 5 \(road\): invalid_request — feature 5: geometry\.type "LineString"/,
    )
    expect(failures[1]).toMatch(/^Feature 6 \(boise\): outside_coverage — /)

    // The legend: each class counted at the page's horizon (5 years), the stands by verdict.
    const legend = page.locator('#results-legend')
    expect(await legend.isVisible()).toBe(true)
    expect(await legend.getAttribute('data-horizon')).toBe('5')
    expect(await legend.textContent()).toContain('Points: survival at 5 years')
    expect(await legend.textContent()).toContain('2 failed features: listed, not drawn.')
    expect(await legendCounts()).toEqual(expectedCounts(5))
    expect(await overflowingLegend()).toEqual([])
    const stands = await page
      .locator('#results-legend .results-legend-stands li')
      .evaluateAll((items) =>
        items.map((item) => [(item as HTMLElement).dataset.verdict, (item as HTMLElement).dataset.count]),
      )
    expect(stands).toEqual([
      ['meets', '1'],
      ['fails', '1'],
    ])
    // Colours in the legend are those of the classes.
    expect(
      await page
        .locator('#results-legend .results-legend-points li')
        .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.colour)),
    ).toEqual(CLASSES.map(([, colour]) => colour))

    // The map fits the layer: every point and stand drawn is in view.
    const [south, west, north, east] = ((await page.locator('#map').getAttribute('data-bounds')) ?? '')
      .split(',')
      .map(Number) as [number, number, number, number]
    for (const at of [...drawnPoints().map(pointOf), STAND_MEETS, STAND_FAILS]) {
      expect(at.latitude).toBeGreaterThan(south)
      expect(at.latitude).toBeLessThan(north)
      expect(at.longitude).toBeGreaterThan(west)
      expect(at.longitude).toBeLessThan(east)
    }
    // Drawn on a canvas, not as SVG paths (as many features stay responsive).
    expect(await page.locator('.leaflet-results-pane canvas').count()).toBe(1)
    await page.waitForTimeout(300)
    await expectColoursOnMap(5)
    await shoot('results-1-job')
    await page.locator('#results-box').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('results-1-job-panel')
  })

  it('opens a feature’s properties on a click, without choosing a planting point', async () => {
    const compares: Response[] = []
    const onResponse = (response: Response) => {
      if (isOperation('ExplorerCompare')(response)) compares.push(response)
    }
    page.on('response', onResponse)
    const cascades = featureById('cascades')
    await clickMapAt(page, pointOf(cascades))
    const popup = page.locator('.result-popup')
    await expect.poll(() => popup.isVisible()).toBe(true)
    const text = await popup.textContent()
    expect(text).toContain('Point cascades (feature 0)')
    expect(text).toContain(
      `Survival, 5 years${((cascades.properties.survival_5y as number) * 100).toFixed(1)}%`,
    )
    expect(text).toContain(`Top factor, 5 years${cascades.properties.top_factor_5y}`)
    await page.waitForTimeout(400)
    await shoot('results-2-point-popup')

    // A stand's popup says whether it meets the standard, with the probability and the densities.
    const sparse = featureById('sparse')
    await page.keyboard.press('Escape')
    await clickMapAt(page, STAND_FAILS)
    await expect.poll(() => popup.textContent()).toContain('Stand sparse (feature 4)')
    const standText = await popup.textContent()
    expect(standText).toContain('Does not meet the standard at 90% confidence')
    expect(standText).toContain(
      `Required density${Math.round(sparse.properties.required_trees_per_acre as number)} per acre`,
    )
    expect(standText).toContain('Confidence asked90%')
    expect(standText).toContain('Rule setor_fpa')
    expect(await page.locator('.result-popup-body').getAttribute('data-verdict')).toBe('fails')
    await page.waitForTimeout(400)
    await shoot('results-3-stand-popup')
    page.off('response', onResponse)
    expect(compares).toHaveLength(0)
    expect(new URL(page.url()).searchParams.get('lat')).toBeNull()
  })

  it('lies over the survival map, whose cells keep their tooltips; a click still finds a feature', async () => {
    await page.keyboard.press('Escape')
    const survivalMap = page.waitForResponse(isOperation('ExplorerSurvivalMap'))
    await page.getByLabel('Survival map', { exact: true }).check()
    await survivalMap
    await expect.poll(() => page.locator('path.survival-cell').count()).toBeGreaterThan(50)
    // Both legends, stacked: the layer's above the survival map's.
    const [ours, theirs] = await Promise.all([
      page.locator('#results-legend').boundingBox(),
      page.locator('#map-legend').boundingBox(),
    ])
    if (!ours || !theirs) throw new Error('a legend is missing')
    expect(ours.y + ours.height).toBeLessThanOrEqual(theirs.y)
    // A cell away from every feature: the mouse reaches it through the results canvas.
    const features = await Promise.all(
      [...drawnPoints().map(pointOf), STAND_MEETS, STAND_FAILS].map((at) => pixelOf(page, at)),
    )
    const map = await page.locator('#map').boundingBox()
    if (!map) throw new Error('no map')
    const spot = await page.evaluate(
      ({ features, map }) => {
        for (const cell of document.querySelectorAll('path.survival-cell')) {
          const box = cell.getBoundingClientRect()
          const x = box.x + box.width / 2
          const y = box.y + box.height / 2
          const inside = x > map.x + 60 && x < map.x + map.width - 60 && y > map.y + 140 && y < map.y + 400
          const clear = features.every((f) => Math.hypot(map.x + f.x - x, map.y + f.y - y) > 40)
          if (inside && clear && document.elementFromPoint(x, y) === cell) return { x, y }
        }
        return null
      },
      { features, map },
    )
    if (!spot) throw new Error('no survival cell clear of the features')
    await page.mouse.move(spot.x, spot.y)
    await expect.poll(() => page.locator('.leaflet-tooltip').textContent()).toMatch(/^Mean \d+\.\d% \(min/)
    // A click on a point over the cells opens the point, and chooses no planting site.
    const cascades = featureById('cascades')
    const at = await pixelOf(page, pointOf(cascades))
    await page.mouse.move(map.x + at.x, map.y + at.y)
    await expect.poll(() => page.locator('#map').getAttribute('class')).toContain('is-over-result')
    await page.locator('#map').click({ position: at })
    await expect
      .poll(() => page.locator('.result-popup').textContent())
      .toContain('Point cascades (feature 0)')
    expect(new URL(page.url()).searchParams.get('lat')).toBeNull()
    await page.waitForTimeout(400)
    await shoot('results-3-over-survival-map')
    await page.getByLabel('Survival map', { exact: true }).uncheck()
    await page.keyboard.press('Escape')
  })

  it('colours the points at another horizon, a point without it in grey', async () => {
    await page.getByLabel('Colour points by survival at', { exact: true }).selectOption('3')
    const legend = page.locator('#results-legend')
    await expect.poll(() => legend.getAttribute('data-horizon')).toBe('3')
    expect(await legend.textContent()).toContain('Points: survival at 3 years')
    const counts = await legendCounts()
    expect(counts).toEqual(expectedCounts(3))
    expect(counts[CLASSES.length]).toBe(1)
    expect(await legend.textContent()).toContain('none at 3 years')
    // No popup over the features while their colours are read.
    const close = page.locator('.leaflet-popup-close-button')
    if ((await close.count()) > 0) await close.click()
    await expect.poll(() => page.locator('.result-popup').count()).toBe(0)
    await page.waitForTimeout(200)
    await expectColoursOnMap(3)
    await page.getByLabel('Colour points by survival at', { exact: true }).selectOption('1')
    await expect.poll(() => legendCounts()).toEqual(expectedCounts(1))
    await expectColoursOnMap(1)
    await page.getByLabel('Colour points by survival at', { exact: true }).selectOption('5')
  })

  it('finds a feature from the keyboard, and says when it failed', async () => {
    const find = page.getByLabel('Find a feature (id or feature index)', { exact: true })
    await find.fill('dense')
    await find.press('Enter')
    const popup = page.locator('.result-popup')
    await expect.poll(() => popup.textContent()).toContain('Stand dense (feature 3)')
    expect(await popup.textContent()).toContain('Meets the standard at 90% confidence')
    // The popup takes the focus; Escape closes it and gives the focus back.
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('result-popup-body')
    await page.keyboard.press('Escape')
    await expect.poll(() => popup.count()).toBe(0)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('results-find')
    await find.fill('6')
    await find.press('Enter')
    expect(await page.locator('#results-find-status').textContent()).toMatch(
      /^Failed feature boise \(feature 6\): outside_coverage — The coordinates lie outside/,
    )
    await find.fill('nowhere')
    await find.press('Enter')
    expect(await page.locator('#results-find-status').textContent()).toContain('No feature “nowhere”')
    expect(await find.getAttribute('aria-invalid')).toBe('true')
    await page.getByRole('button', { name: 'Zoom to layer' }).click()
  })

  it('says why a job cannot be shown: not found, not finished, not GeoJSON', async () => {
    const input = page.getByLabel('Job id', { exact: true })
    const error = page.locator('#results-error')
    const show = async (id: string) => {
      await input.fill(id)
      await page.getByRole('button', { name: 'Show job' }).click()
    }

    await show(MISSING_JOB)
    await expect.poll(() => error.isVisible()).toBe(true)
    expect(await error.textContent()).toBe(
      `No job ${MISSING_JOB} belongs to this key’s account: check the id and the key (a job is kept for a limited time after it finishes).`,
    )
    expect(await error.getAttribute('role')).toBe('alert')
    expect(await input.getAttribute('aria-invalid')).toBe('true')
    // The layer shown stays.
    expect(await page.locator('#results-legend').isVisible()).toBe(true)
    await page.waitForTimeout(500)
    await shoot('results-4-not-found')

    // Uploaded to a server that scores nothing: still queued.
    const queued = await upload(idle, JSON.stringify(UPLOAD), 'application/geo+json', JOB_QUERY)
    await show(queued)
    await expect
      .poll(() => error.textContent())
      .toBe(
        `Job ${queued} is not finished: it is queued, 0 of 7 features done. Its results can be shown once it has succeeded; press Show job again then.`,
      )
    const cancelled = await fetch(`${server.url}/v1/jobs/${queued}`, {
      method: 'DELETE',
      headers: { 'x-api-key': apiKey },
    })
    expect(cancelled.status).toBe(200)
    await show(queued)
    await expect
      .poll(() => error.textContent())
      .toBe(`Job ${queued} was cancelled: it has no results to show.`)

    // A CSV job: its results have no geometry.
    const csv = await upload(
      server,
      `latitude,longitude,species_code,planting_method\n${WEST.latitude},${WEST.longitude},PSME,manual\n`,
      'text/csv',
    )
    await waitFor(csv)
    await show(csv)
    await expect
      .poll(() => error.textContent())
      .toBe(
        `Job ${csv} is a CSV job, not a GeoJSON job: its results have no geometry to draw (GET /v1/jobs/${csv}/results downloads them).`,
      )
    await show('not a job/../keys')
    await expect.poll(() => error.textContent()).toContain('is not a job id')
    await input.fill('')
  })

  it('loads a results file from the file input, and refuses a file that holds no results', async () => {
    await page.getByRole('button', { name: 'Remove layer' }).click()
    expect(await page.locator('#results-legend').isVisible()).toBe(false)
    expect(await page.locator('#results-shown').isVisible()).toBe(false)
    // The canvas leaves with the layer.
    expect(await page.locator('.leaflet-results-pane canvas').count()).toBe(0)
    expect(await page.locator('#results-status').textContent()).toBe(
      `The results layer (job ${jobId}) was removed from the map.`,
    )
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('results-job-id')

    const fileInput = page.getByLabel('Or a results file (GeoJSON; or drop it on the map)', { exact: true })
    await fileInput.setInputFiles({
      name: 'planned.geojson',
      mimeType: 'application/geo+json',
      buffer: Buffer.from(resultsText),
    })
    const summary = page.locator('#results-summary')
    await expect
      .poll(() => summary.textContent())
      .toBe('planned.geojson: 3 points and 2 stands drawn; 2 features failed (below, not drawn).')
    expect(await legendCounts()).toEqual(expectedCounts(5))
    await page.waitForTimeout(300)
    await expectColoursOnMap(5)

    // The upload itself is no results file: the page says so, and the layer shown stays.
    await fileInput.setInputFiles({
      name: 'units.geojson',
      mimeType: 'application/geo+json',
      buffer: Buffer.from(JSON.stringify(UPLOAD)),
    })
    const error = page.locator('#results-error')
    await expect
      .poll(() => error.textContent())
      .toBe(
        'units.geojson: No feature here carries results (survival_1y/3y/5y, meets_probability or error_code): is this the upload rather than the job’s results?',
      )
    await fileInput.setInputFiles({
      name: 'broken.geojson',
      mimeType: 'application/geo+json',
      buffer: Buffer.from('{"type":'),
    })
    await expect
      .poll(() => error.textContent())
      .toBe('broken.geojson: This file is not GeoJSON: it is not valid JSON.')
    expect(await summary.textContent()).toContain('planned.geojson')
    // A position that is no pair of numbers cannot be drawn: said, and nothing of that file stays.
    const badPosition = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: ['east', 'north'] },
          properties: { feature_index: 0, survival_5y: 0.8 },
        },
      ],
    }
    await fileInput.setInputFiles({
      name: 'bad-position.geojson',
      mimeType: 'application/geo+json',
      buffer: Buffer.from(JSON.stringify(badPosition)),
    })
    await expect
      .poll(() => error.textContent())
      .toMatch(/^bad-position\.geojson: Its features could not be drawn \(Invalid LatLng object/)
    expect(await page.locator('#results-shown').isVisible()).toBe(false)
    expect(await page.locator('#results-legend').isVisible()).toBe(false)
    await fileInput.setInputFiles({
      name: 'planned.geojson',
      mimeType: 'application/geo+json',
      buffer: Buffer.from(resultsText),
    })
    await expect.poll(() => summary.textContent()).toContain('planned.geojson')
    expect(await error.isVisible()).toBe(false)
  })

  it('loads a results file dropped on the map (from any tab), leaving the Plan tab alone', async () => {
    await page.getByRole('button', { name: 'Remove layer' }).click()
    await page.getByRole('tab', { name: 'Rank species' }).click()
    const plans: Response[] = []
    const onResponse = (response: Response) => {
      if (isOperation('ExplorerStockingPlan')(response)) plans.push(response)
    }
    page.on('response', onResponse)
    const map = page.locator('#map')
    const drop = await dragFileOver(page, '#map', 'dropped-results.geojson', resultsText)
    expect(await map.getAttribute('class')).toContain('is-drop-target')
    await drop()
    await expect
      .poll(() => page.locator('#results-summary').textContent())
      .toBe('dropped-results.geojson: 3 points and 2 stands drawn; 2 features failed (below, not drawn).')
    expect(await map.getAttribute('class')).not.toContain('is-drop-target')
    expect(new URL(page.url()).searchParams.get('panel')).toBe('ranking')
    expect(await page.locator('#panel-plan').isVisible()).toBe(false)
    page.off('response', onResponse)
    expect(plans).toHaveLength(0)
    await page.waitForTimeout(300)
    await expectColoursOnMap(5)
    await shoot('results-5-dropped')
  })

  it('draws 12,000 points on its canvas quickly, and stays responsive', async () => {
    const many = manyPoints(12_000)
    const text = JSON.stringify(many)
    const started = Date.now()
    await page
      .getByLabel('Or a results file (GeoJSON; or drop it on the map)', { exact: true })
      .setInputFiles({
        name: 'portfolio.geojson',
        mimeType: 'application/geo+json',
        buffer: Buffer.from(text),
      })
    await expect
      .poll(() => page.locator('#results-summary').textContent(), { timeout: 15_000 })
      .toBe('portfolio.geojson: 12,000 points and 0 stands drawn.')
    const loaded = Date.now() - started
    expect(loaded).toBeLessThan(8_000)
    // No SVG path per point: the page has a few paths (outlines, coverage), not thousands.
    expect(await page.locator('path').count()).toBeLessThan(200)
    const legend = page.locator('#results-legend .results-legend-points li')
    expect(
      (
        await legend.evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.count)))
      ).reduce((a, b) => a + b, 0),
    ).toBe(12_000)
    // Responsive: a zoom, a pan and a colour change each finish well within a second.
    const timed = await page.evaluate(async () => {
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
      const select = document.getElementById('results-horizon') as HTMLSelectElement
      const t0 = performance.now()
      select.value = '1'
      select.dispatchEvent(new Event('change'))
      await frame()
      const restyle = performance.now() - t0
      return { restyle }
    })
    expect(timed.restyle).toBeLessThan(1_000)
    expect(await overflowingLegend()).toEqual([])
    const zoomStart = Date.now()
    await page.locator('.leaflet-control-zoom-in').click()
    await page.locator('.leaflet-control-zoom-in').click()
    await page.waitForTimeout(400)
    expect(Date.now() - zoomStart).toBeLessThan(3_000)
    // A click on a point of the 12,000 still opens its popup.
    const target = many.features[6_000] as ResultFeature
    await page.getByLabel('Find a feature (id or feature index)', { exact: true }).fill(String(target.id))
    const findStarted = Date.now()
    await page.getByRole('button', { name: 'Show feature' }).click()
    await expect
      .poll(() => page.locator('.result-popup').textContent())
      .toContain('Point grid-6000 (feature 6000)')
    expect(Date.now() - findStarted).toBeLessThan(3_000)
    await page.waitForTimeout(400)
    await shoot('results-6-many-points')
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Remove layer' }).click()
  })

  it('works on a 390×844 phone: nothing wider than the screen, the legend and the failures readable', async () => {
    const phone = await session.context.newPage()
    session.watch(phone)
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(`${server.url}/`, { waitUntil: 'load' })
    const coverage = phone.waitForResponse(isOperation('ExplorerCoverage'))
    await phone.getByLabel('API key', { exact: true }).fill(apiKey)
    await phone.getByRole('button', { name: 'Use key' }).click()
    await coverage
    await phone.locator('#results-box summary').click()
    await phone.getByLabel('Job id', { exact: true }).fill(jobId)
    const answered = phone.waitForResponse(isResults)
    await phone.getByRole('button', { name: 'Show job' }).click()
    await answered
    await expect
      .poll(() => phone.locator('#results-summary').textContent())
      .toBe(`Job ${jobId}: 3 points and 2 stands drawn; 2 features failed (below, not drawn).`)
    expect(await legendCounts(phone)).toEqual(expectedCounts(5))
    expect(await elementsWiderThan(phone, 390)).toEqual([])
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    // The legend stays inside the map.
    const legend = await phone.locator('#results-legend').boundingBox()
    const map = await phone.locator('#map').boundingBox()
    if (!legend || !map) throw new Error('no legend or map')
    expect(legend.x + legend.width).toBeLessThanOrEqual(map.x + map.width)
    expect(legend.y).toBeGreaterThanOrEqual(map.y)
    expect(await overflowingLegend(phone)).toEqual([])
    await phone.evaluate(() => window.scrollTo(0, 0))
    await phone.waitForTimeout(300)
    await expectColoursOnMap(5, phone)
    await shoot('results-7-phone', phone)
    await shootRegion('results-7-phone-panel', '#results-box', phone)
    // A popup on the phone fits the map.
    await clickMapAt(phone, STAND_MEETS)
    const popup = phone.locator('.result-popup')
    await expect.poll(() => popup.textContent()).toContain('Stand dense (feature 3)')
    await phone.waitForTimeout(400)
    const box = await popup.boundingBox()
    const mapBox = await phone.locator('#map').boundingBox()
    if (!box || !mapBox) throw new Error('no popup')
    expect(box.width).toBeLessThanOrEqual(390)
    expect(box.height).toBeLessThanOrEqual(mapBox.height)
    await phone.evaluate(() => window.scrollTo(0, 0))
    await phone.waitForTimeout(300)
    await shoot('results-8-phone-popup', phone)
    await phone.close()
  })

  it('made no request that left the machine, logged no console error and had no failed request', () => {
    expect(session.blocked).toEqual([])
    expect(session.consoleErrors).toEqual([])
    expect(session.failedRequests).toEqual([])
    expect(session.errorResponses).toEqual([])
  })
})
