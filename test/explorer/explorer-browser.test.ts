import { readFileSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import type { Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { keyIn, keyWritten, type MailCatcher, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import {
  clickMapAt,
  elementsWiderThan,
  isOperation,
  type OfflineSession,
  openOfflinePage,
  pixelOf,
  screenshotter,
} from './browser-session.ts'

const SEATTLE_DOWNTOWN = { latitude: 47.6062, longitude: -122.3321 }
const FOREST = FOREST_POINTS.westCascades

/** The variables a GraphQL answer was asked with. */
const variablesOf = (response: Response) =>
  (response.request().postDataJSON() as { variables: Record<string, unknown> }).variables

type MapCell = { meanSurvival: number; changeFromToday: number | null }
type SurvivalAnswer = { horizonYears: number; survivalProbability: number }

/** "rgb(r, g, b)" as Leaflet writes a cell's fill. */
function rgb(colour: string | null): [number, number, number] {
  const [r, g, b] = (/rgb\((\d+), ?(\d+), ?(\d+)\)/.exec(colour ?? '') ?? []).slice(1).map(Number)
  if (r === undefined || g === undefined || b === undefined) throw new Error(`not a colour: ${colour}`)
  return [r, g, b]
}

describe('the explorer page in a real browser (offline)', () => {
  let database: TestDatabase
  let server: TestServer
  let mail: MailCatcher
  let session: OfflineSession
  let page: Page
  let apiKey: string
  const { shoot, shootRegion } = screenshotter(() => page)
  /** The URL of today's view before a climate was chosen, and the last future survival map answered. */
  let todaySearch = ''
  let futureCells: MapCell[] = []

  beforeAll(async () => {
    database = await createSeededDatabase()
    apiKey = (await issueKey(database, 'mycel')).key
    mail = await startMailCatcher()
    server = await startTestServer({ database, mail: mailEnv(mail) })
    session = await openOfflinePage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true })
    page = session.page
  })

  afterAll(async () => {
    await session?.close()
    await server?.close()
    await database?.drop()
    await mail?.close()
  })

  it('serves the page from / with its bundle, a strict CSP and no key needed to load', async () => {
    const landing = await page.goto(`${server.url}/`, { waitUntil: 'load' })
    expect(landing?.status()).toBe(200)
    expect(landing?.headers()['content-security-policy']).toContain("script-src 'self'")
    expect(await page.title()).toContain('Survival Explorer')
    await expect.poll(() => page.locator('#map-message').textContent()).toContain('Enter your API key')
    // Every control has a label a screen reader announces.
    for (const name of ['API key', 'Species', 'Planting method', 'Horizon', 'Latitude', 'Longitude'])
      await expect(page.getByLabel(name, { exact: true }).count()).resolves.toBe(1)
    expect(await page.locator('#species option').count()).toBe(20)
  })

  it('takes a key, keeps it in sessionStorage only, and shows coverage and the quota', async () => {
    const coverage = page.waitForResponse(isOperation('ExplorerCoverage'))
    await page.getByLabel('API key', { exact: true }).fill(apiKey)
    await page.getByRole('button', { name: 'Use key' }).click()
    const response = await coverage
    expect(response.status()).toBe(200)
    expect(response.request().headers()['x-api-key']).toBe(apiKey)
    await expect
      .poll(() => page.locator('#quota').textContent())
      .toMatch(/^Requests left today: [\d,]+ of [\d,]+$/)
    expect(await page.evaluate(() => sessionStorage.getItem('survival-explorer.api-key'))).toBe(apiKey)
    expect(page.url()).not.toContain(apiKey)
    expect(await page.evaluate(() => document.cookie)).toBe('')
    await shoot('1-key')
  })

  it('clicks a forest point: matched site, comparison chart and factor chart, without moving the layout', async () => {
    const headingBefore = await page.getByRole('heading', { name: 'The matched site' }).boundingBox()
    const comparison = page.waitForResponse(isOperation('ExplorerCompare'))
    await clickMapAt(page, FOREST)
    const response = await comparison
    expect(response.status()).toBe(200)
    const body = (await response.json()) as {
      data: { compareMethods: { manual: { horizonYears: number; allFactors: unknown[] }[] } }
    }
    const factorCount = body.data.compareMethods.manual[0]?.allFactors.length ?? 0
    expect(factorCount).toBeGreaterThan(5)

    await expect.poll(() => page.locator('.matched-site').count()).toBe(1)
    await expect(
      page
        .locator('.leaflet-tooltip')
        .filter({ hasText: /Matched site, \d+\.\d\d km away/ })
        .count(),
    ).resolves.toBe(1)
    // Survival at 1, 3, 5 years for both methods: six dots on two lines.
    const survival = page.locator('#survival-chart')
    await expect.poll(() => survival.locator('g[aria-label="dot"] circle').count()).toBe(6)
    expect(await survival.locator('g[aria-label="line"] path').count()).toBe(2)
    expect(await survival.textContent()).toContain('Hand planting')
    expect(await page.locator('#differential-body tr').count()).toBe(3)
    expect(await page.locator('#differential-body').textContent()).toMatch(/pp/)
    // Every factor's contribution at the chosen horizon, and the sum that makes the log-odds.
    expect(await page.locator('#factor-chart g[aria-label="bar"] rect').count()).toBe(factorCount)
    expect(await page.locator('#factor-sum').textContent()).toMatch(
      /^Baseline .* = log-odds .* → survival \d/,
    )
    expect(await page.locator('#site-attributes dt').count()).toBeGreaterThan(10)
    expect(await page.getByRole('heading', { name: 'The matched site' }).boundingBox()).toEqual(headingBefore)

    const url = new URL(page.url())
    expect(url.searchParams.get('species')).toBe('PSME')
    expect(Number(url.searchParams.get('lat'))).toBeCloseTo(FOREST.latitude, 1)
    expect(Number(url.searchParams.get('lng'))).toBeCloseTo(FOREST.longitude, 1)
    await shoot('2-comparison')
  })

  it("clicks Seattle's downtown and sees the no-nearby-data message on the map, not an error", async () => {
    const comparison = page.waitForResponse(isOperation('ExplorerCompare'))
    await clickMapAt(page, SEATTLE_DOWNTOWN)
    const response = await comparison
    expect(response.status()).toBe(200)
    const message = page.locator('#map-message')
    await expect.poll(() => message.textContent()).toMatch(/^No nearby data: no forest site within 10 km/)
    expect(await message.isVisible()).toBe(true)
    expect(await page.locator('#survival-chart .placeholder').count()).toBe(1)
    await shoot('3-no-nearby-data')
  })

  it('ranks all 20 species at the forest point, marking those outside their native range', async () => {
    // By keyboard alone: type the coordinates, Enter; then the arrow key moves to the ranking tab.
    await page.getByLabel('Latitude', { exact: true }).fill('')
    await page.getByLabel('Latitude', { exact: true }).focus()
    await page.keyboard.type(String(FOREST.latitude))
    await page.keyboard.press('Tab')
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type(String(FOREST.longitude))
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('#survival-chart g[aria-label="dot"] circle').count()).toBe(6)

    const ranking = page.waitForResponse(isOperation('ExplorerRanking'))
    await page.getByRole('tab', { name: 'Compare methods' }).focus()
    await page.keyboard.press('ArrowRight')
    const response = await ranking
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-ranking')
    expect(response.status()).toBe(200)
    const body = (await response.json()) as {
      data: { speciesRanking: { ranking: { survivalProbability: number; nativeRange: boolean }[] } }
    }
    const ranked = body.data.speciesRanking.ranking
    expect(ranked).toHaveLength(20)
    const bars = page.locator('#ranking-chart g[aria-label="bar"] rect')
    await expect.poll(() => bars.count()).toBe(20)
    const outside = ranked.filter((entry) => !entry.nativeRange).length
    const labels = await page
      .locator('#ranking-chart g[aria-label="y-axis tick label"] text')
      .allTextContents()
    expect(labels.filter((label) => label.endsWith('†'))).toHaveLength(outside)
    expect(labels[0]).toMatch(/^1\. /)
    expect(await page.getByRole('tab', { name: 'Rank species' }).getAttribute('aria-selected')).toBe('true')

    const download = page.waitForEvent('download')
    await page.locator('#download-ranking').click()
    const file = await (await download).path()
    const rows = parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[]
    expect(rows).toHaveLength(20)
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'rank',
      'species_code',
      'species_common_name',
      'survival_probability',
      'native_range',
      'top_factor',
      'latitude',
      'longitude',
      'planting_method',
      'horizon_years',
    ])
    expect(rows.map((row) => Number(row.survival_probability))).toEqual(
      ranked.map((r) => r.survivalProbability),
    )
    await shoot('4-ranking')
  })

  it('draws the survival map for PSME with a legend', async () => {
    const survivalMap = page.waitForResponse(isOperation('ExplorerSurvivalMap'))
    await page.getByLabel('Survival map', { exact: true }).check()
    const response = await survivalMap
    expect(response.status()).toBe(200)
    const body = (await response.json()) as {
      data: { survivalMap: { cells: unknown[]; species: { code: string } } }
    }
    expect(body.data.survivalMap.species.code).toBe('PSME')
    const cells = body.data.survivalMap.cells.length
    expect(cells).toBeGreaterThan(50)
    await expect.poll(() => page.locator('path.survival-cell').count()).toBe(cells)
    expect(await page.locator('#map-legend').isVisible()).toBe(true)
    expect(await page.locator('#map-legend').textContent()).toContain('Douglas-fir')
    expect(new URL(page.url()).searchParams.get('map')).toBe('25')
    // The cells lie above the base map: what the map shows at a forest point is a survival cell.
    const { x, y } = await pixelOf(page, FOREST_POINTS.coastRange)
    const box = await page.locator('#map').boundingBox()
    const topmost = await page.evaluate(
      ([px, py]) => document.elementFromPoint(px as number, py as number)?.getAttribute('class') ?? '',
      [x + (box?.x ?? 0), y + (box?.y ?? 0)],
    )
    expect(topmost).toContain('survival-cell')
    await shoot('5-survival-map')
  })

  it('reloads from the URL and shows the same view', async () => {
    const before = new URL(page.url())
    const answers = Promise.all([
      page.waitForResponse(isOperation('ExplorerCompare')),
      page.waitForResponse(isOperation('ExplorerRanking')),
      page.waitForResponse(isOperation('ExplorerSurvivalMap')),
    ])
    await page.reload({ waitUntil: 'load' })
    await answers
    expect(new URL(page.url()).search).toBe(before.search)
    expect(await page.getByLabel('Species', { exact: true }).inputValue()).toBe('PSME')
    expect(await page.getByLabel('Latitude', { exact: true }).inputValue()).toBe(
      String(before.searchParams.get('lat')),
    )
    expect(await page.getByRole('tab', { name: 'Rank species' }).getAttribute('aria-selected')).toBe('true')
    await expect.poll(() => page.locator('#ranking-chart g[aria-label="bar"] rect').count()).toBe(20)
    await expect.poll(() => page.locator('path.survival-cell').count()).toBeGreaterThan(50)
    await expect.poll(() => page.locator('.matched-site').count()).toBe(1)
    await shoot('6-reloaded')
  })

  it('is readable on a 390×844 phone screen: nothing wider than the screen', async () => {
    const phone = await session.context.newPage()
    session.watch(phone)
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(page.url(), { waitUntil: 'load' })
    // The key belongs to a tab (sessionStorage): a new tab asks for it again.
    await expect.poll(() => phone.locator('#map-message').textContent()).toContain('Enter your API key')
    await phone.getByLabel('API key', { exact: true }).fill(apiKey)
    await phone.getByRole('button', { name: 'Use key' }).click()
    await expect.poll(() => phone.locator('#ranking-chart g[aria-label="bar"] rect').count()).toBe(20)
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await phone.locator('#map').boundingBox()).toMatchObject({ width: 390 })
    await shoot('7-phone', phone)
    await phone.close()
  })

  it('asks for a free spore key by email: the key comes in the mail, never on the page', async () => {
    const fresh = await session.context.newPage()
    session.watch(fresh)
    await fresh.goto(`${server.url}/`, { waitUntil: 'load' })
    await fresh.locator('summary', { hasText: 'Get a free spore key' }).click()
    const asked = fresh.waitForResponse((response) => response.url().endsWith('/keys'))
    await fresh.getByLabel('Email', { exact: true }).fill('Analyst@Example.org')
    await fresh.getByRole('button', { name: 'Email me a key' }).click()
    expect((await asked).status()).toBe(202)
    await expect.poll(() => fresh.locator('#spore-result').textContent()).toMatch(/^Check your email/)
    expect(await fresh.content()).not.toMatch(/tsp_live_[0-9a-f]{32}/)
    await shoot('8-spore-key', fresh)
    const key = await keyWritten(database.sql, keyIn(await mail.next('analyst@example.org')))
    await fresh.getByLabel('API key', { exact: true }).fill(key)
    await fresh.getByRole('button', { name: 'Use key' }).click()
    await expect.poll(() => fresh.locator('#quota').textContent()).toMatch(/of 100$/)
    await fresh.close()
  })

  it('chooses a future climate: the URL keeps it, the panel shows today and the future side by side', async () => {
    await page.getByRole('tab', { name: 'Compare methods' }).click()
    todaySearch = new URL(page.url()).search
    expect(todaySearch).not.toMatch(/period|scenario|mapMode/)
    const period = page.getByLabel('Climate', { exact: true })
    const scenario = page.getByLabel('Emission scenario', { exact: true })
    const mapMode = page.getByLabel('Map shows', { exact: true })
    // Today: no scenario to choose, no change to map.
    expect(await period.inputValue()).toBe('1991_2020')
    expect(await scenario.isDisabled()).toBe(true)
    expect(await mapMode.isDisabled()).toBe(true)
    expect(await page.locator('#climate-table').isVisible()).toBe(false)

    let answers = Promise.all([
      page.waitForResponse(isOperation('ExplorerClimateCompare')),
      page.waitForResponse(isOperation('ExplorerSurvivalMap')),
    ])
    await period.selectOption('2041-2070')
    let [compare, survivalMap] = await answers
    // A future period never goes without a scenario: SSP2-4.5 until another is chosen.
    expect(await scenario.isEnabled()).toBe(true)
    expect(await scenario.inputValue()).toBe('ssp245')
    expect(await mapMode.isEnabled()).toBe(true)
    let url = new URL(page.url())
    expect([url.searchParams.get('period'), url.searchParams.get('scenario')]).toEqual([
      '2041-2070',
      'ssp245',
    ])
    expect(variablesOf(compare)).toMatchObject({
      input: { climate: { period: '2041-2070', scenario: 'ssp245' } },
      today: { speciesCode: 'PSME' },
    })
    expect((variablesOf(compare).today as Record<string, unknown>).climate).toBeUndefined()
    expect(variablesOf(survivalMap).climate).toEqual({ period: '2041-2070', scenario: 'ssp245' })

    answers = Promise.all([
      page.waitForResponse(isOperation('ExplorerClimateCompare')),
      page.waitForResponse(isOperation('ExplorerSurvivalMap')),
    ])
    await scenario.selectOption('ssp585')
    ;[compare, survivalMap] = await answers
    url = new URL(page.url())
    expect([url.searchParams.get('period'), url.searchParams.get('scenario')]).toEqual([
      '2041-2070',
      'ssp585',
    ])
    expect(compare.status()).toBe(200)
    const body = (await compare.json()) as {
      data: {
        compareMethods: { manual: SurvivalAnswer[]; droneSeeded: SurvivalAnswer[]; climate: { note: string } }
        today: { manual: SurvivalAnswer[]; droneSeeded: SurvivalAnswer[] }
      }
    }
    const { compareMethods: future, today } = body.data
    futureCells = ((await survivalMap.json()) as { data: { survivalMap: { cells: MapCell[] } } }).data
      .survivalMap.cells

    // Two columns, today and 2041–2070 under SSP5-8.5: six dots each, on two lines each.
    const survival = page.locator('#survival-chart')
    await expect.poll(() => survival.locator('g[aria-label="dot"] circle').count()).toBe(12)
    expect(await survival.locator('g[aria-label="line"] path').count()).toBe(4)
    expect(await survival.locator('g[aria-label="fx-axis tick label"] text').allTextContents()).toEqual([
      'Today (1991–2020)',
      '2041–2070, SSP5-8.5',
    ])
    // The same values in the table: today, the future and the change, for both methods at 1, 3, 5 years.
    const rows = await page
      .locator('#climate-body tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')))
    expect(rows).toHaveLength(6)
    const pct = (p: number) => `${(p * 100).toFixed(1)}%`
    expect(rows[0]).toEqual([
      '1',
      'Hand',
      pct(today.manual[0]?.survivalProbability ?? Number.NaN),
      pct(future.manual[0]?.survivalProbability ?? Number.NaN),
      expect.stringMatching(/^[+−]\d+\.\d pp$/),
    ])
    expect(rows[5]?.slice(0, 4)).toEqual([
      '5',
      'Drone',
      pct(today.droneSeeded[2]?.survivalProbability ?? Number.NaN),
      pct(future.droneSeeded[2]?.survivalProbability ?? Number.NaN),
    ])
    // The climate data's own note where its values surface, and the page's caveat by the selector.
    expect(future.climate.note).toContain('not for real planting decisions')
    const note = page.locator('#climate-note')
    expect(await note.isVisible()).toBe(true)
    expect(await note.textContent()).toContain(future.climate.note)
    expect(await note.textContent()).toMatch(/At this site: mean annual temperature \+\d/)
    expect(await page.locator('#climate-caveat').textContent()).toContain('not for real planting decisions')
    expect(await page.locator('#differential-body tr').count()).toBe(3)
    expect(await page.locator('#site-attributes').textContent()).toContain('→')
    await shoot('9-climate-compare')
    // The rest of the panel, as the side pane scrolls to it.
    await page.locator('#side').evaluate((side) => side.scrollTo(0, 560))
    await shoot('9-climate-compare-scrolled')
    await page.locator('#side').evaluate((side) => side.scrollTo(0, 0))
  })

  it('ranks the species under the chosen future climate, with its note', async () => {
    const ranking = page.waitForResponse(isOperation('ExplorerRanking'))
    await page.getByRole('tab', { name: 'Rank species' }).click()
    const response = await ranking
    expect(variablesOf(response).climate).toEqual({ period: '2041-2070', scenario: 'ssp585' })
    await expect.poll(() => page.locator('#ranking-chart g[aria-label="bar"] rect').count()).toBe(20)
    expect(await page.locator('#ranking-note').textContent()).toContain('in 2041–2070, SSP5-8.5')
    expect(await page.locator('#ranking-climate-note').textContent()).toContain(
      'not for real planting decisions',
    )
    expect(await page.locator('h2', { hasText: 'Which species' }).textContent()).toContain(
      '2041–2070, SSP5-8.5',
    )
    await shoot('10-climate-ranking')
    await page.getByRole('tab', { name: 'Compare methods' }).click()
  })

  it('maps the change from today on a diverging scale centred on 0, without asking again', async () => {
    const mapMode = page.getByLabel('Map shows', { exact: true })
    let asked = 0
    const count = (response: Response) => {
      if (isOperation('ExplorerSurvivalMap')(response)) asked += 1
    }
    page.on('response', count)
    await mapMode.selectOption('change')
    expect(new URL(page.url()).searchParams.get('mapMode')).toBe('change')
    const legend = page.locator('#map-legend')
    await expect.poll(() => legend.getAttribute('data-scale')).toBe('diverging')
    expect(await legend.textContent()).toContain('change from today to 2041–2070, SSP5-8.5')
    expect(await legend.textContent()).toContain('not for real planting decisions')
    // Symmetric around 0, reaching at least the largest change.
    const [low, high] = ((await legend.getAttribute('data-domain')) ?? '').split(',').map(Number)
    const changes = futureCells.map((cell) => cell.changeFromToday ?? Number.NaN)
    expect(changes.every(Number.isFinite)).toBe(true)
    expect(low).toBe(-(high ?? 0))
    expect(high).toBeGreaterThanOrEqual(Math.max(...changes.map(Math.abs)))
    // Every cell drawn, losses in red and gains in blue.
    await expect.poll(() => page.locator('path.survival-cell').count()).toBe(futureCells.length)
    const losses = changes.filter((change) => change <= -0.0005).length
    const gains = changes.filter((change) => change >= 0.0005).length
    expect(await page.locator('path.change-loss').count()).toBe(losses)
    expect(await page.locator('path.change-gain').count()).toBe(gains)
    expect(losses + gains).toBeGreaterThan(0)
    // Red for losses, blue for gains: the strongest of each clearly so, none leaning the other way
    // (the scale's white at 0 is a little warm, hence the few units of slack).
    const redness = async (selector: string) =>
      (await page.locator(selector).evaluateAll((paths) => paths.map((p) => p.getAttribute('fill')))).map(
        (fill) => {
          const [r, , b] = rgb(fill)
          return r - b
        },
      )
    const lossRedness = await redness('path.change-loss')
    expect(Math.max(...lossRedness)).toBeGreaterThan(60)
    expect(Math.min(...lossRedness)).toBeGreaterThan(-5)
    if (gains > 0) {
      const gainRedness = await redness('path.change-gain')
      expect(Math.min(...gainRedness)).toBeLessThan(-20)
      expect(Math.max(...gainRedness)).toBeLessThan(5)
    }
    expect(asked).toBe(0)
    page.off('response', count)
    await shoot('11-change-map')
  })

  it('reopens a shared climate link as the same view', async () => {
    const before = new URL(page.url())
    const answers = Promise.all([
      page.waitForResponse(isOperation('ExplorerClimateCompare')),
      page.waitForResponse(isOperation('ExplorerSurvivalMap')),
    ])
    await page.reload({ waitUntil: 'load' })
    await answers
    expect(new URL(page.url()).search).toBe(before.search)
    expect(await page.getByLabel('Climate', { exact: true }).inputValue()).toBe('2041-2070')
    expect(await page.getByLabel('Emission scenario', { exact: true }).inputValue()).toBe('ssp585')
    expect(await page.getByLabel('Map shows', { exact: true }).inputValue()).toBe('change')
    await expect.poll(() => page.locator('#survival-chart g[aria-label="dot"] circle').count()).toBe(12)
    expect(await page.locator('#climate-note').isVisible()).toBe(true)
    await expect.poll(() => page.locator('#map-legend').getAttribute('data-scale')).toBe('diverging')
    await expect.poll(() => page.locator('path.survival-cell').count()).toBe(futureCells.length)
    await shoot('12-climate-reloaded')
  })

  it('shows a future climate on a 390×844 phone: both columns, nothing wider than the screen', async () => {
    const phone = await session.context.newPage()
    session.watch(phone)
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(page.url(), { waitUntil: 'load' })
    await phone.getByLabel('API key', { exact: true }).fill(apiKey)
    await phone.getByRole('button', { name: 'Use key' }).click()
    await expect.poll(() => phone.locator('#survival-chart g[aria-label="dot"] circle').count()).toBe(12)
    await expect.poll(() => phone.locator('path.survival-cell').count()).toBe(futureCells.length)
    expect(await phone.locator('#climate-body tr').count()).toBe(6)
    await shoot('13-climate-phone', phone)
    await shootRegion('13-climate-phone-panel', '#panel-compare', phone)
    expect(await elementsWiderThan(phone, 390)).toEqual([])
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await phone.close()
  })

  it("goes back to today's climate: today's URL, requests and panel, as before", async () => {
    const answers = Promise.all([
      page.waitForResponse(isOperation('ExplorerCompare')),
      page.waitForResponse(isOperation('ExplorerSurvivalMap')),
    ])
    await page.getByLabel('Climate', { exact: true }).selectOption('1991_2020')
    const [compare, survivalMap] = await answers
    expect(new URL(page.url()).search).toBe(todaySearch)
    expect((variablesOf(compare).input as Record<string, unknown>).climate).toBeUndefined()
    expect(variablesOf(survivalMap).climate).toBeNull()
    const scenario = page.getByLabel('Emission scenario', { exact: true })
    expect(await scenario.isDisabled()).toBe(true)
    expect(await scenario.inputValue()).toBe('')
    const mapMode = page.getByLabel('Map shows', { exact: true })
    expect(await mapMode.isDisabled()).toBe(true)
    expect(await mapMode.inputValue()).toBe('survival')
    await expect.poll(() => page.locator('#survival-chart g[aria-label="dot"] circle').count()).toBe(6)
    expect(await page.locator('#survival-chart g[aria-label="fx-axis tick label"]').count()).toBe(0)
    expect(await page.locator('#climate-table').isVisible()).toBe(false)
    expect(await page.locator('#climate-note').isVisible()).toBe(false)
    expect(await page.locator('#site-attributes').textContent()).not.toContain('→')
    await expect.poll(() => page.locator('#map-legend').getAttribute('data-scale')).toBe('sequential')
    expect(await page.locator('#map-legend').textContent()).not.toContain('planting decisions')
    expect(await page.locator('path.change-loss').count()).toBe(0)
    await shoot('14-today-again')
  })

  it('made no request that left the machine, logged no console error and had no failed request', () => {
    expect(session.blocked).toEqual([])
    expect(session.consoleErrors).toEqual([])
    expect(session.failedRequests).toEqual([])
    expect(session.errorResponses).toEqual([])
  })
})
