import type { Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { divergingColour, divergingColours } from '../../src/explorer/page/charts.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import {
  elementsWiderThan,
  isOperation,
  type OfflineSession,
  openOfflinePage,
  screenshotter,
} from './browser-session.ts'

/** A plot as GET /v1/surveys lists it (the fields read here). */
interface StoredPlot {
  plot_id: string
  observed_survival: number
  predicted_survival: number
}

interface ReportGroup {
  speciesCode: string | null
  plantingMethod: 'MANUAL' | 'DRONE_SEEDED' | null
  ageBand: string | null
  plots: number
  differs: boolean
}

interface ReportAnswer {
  overall: ReportGroup | null
  groups: ReportGroup[]
  reliability: {
    plots: number
    trees: number
    meanPredictedSurvival: number | null
    observedSurvival: number | null
  }[]
  scores: { brier: number; logLoss: number } | null
  notes: string[]
}

const CSV_HEADER =
  'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive'
const SPECIES = ['PSME', 'THPL'] as const
const METHODS = ['manual', 'drone_seeded'] as const
const SURVEYED = ['2022-09-15', '2024-03-15', '2025-06-01'] as const

/**
 * 30 plots, ten around each of three forest points (Coast Range, western and eastern Cascades, within
 * 2 km: each has a data site within the search radius), Douglas-fir and western redcedar, both methods,
 * 1.5 to 4 years old, 40 planted and 14 to 39 alive.
 */
function surveyPlots() {
  const centres = [FOREST_POINTS.coastRange, FOREST_POINTS.westCascades, FOREST_POINTS.eastCascades]
  return Array.from({ length: 30 }, (_, index) => {
    const centre = centres[index % 3] as { latitude: number; longitude: number }
    const step = Math.floor(index / 3)
    return {
      plot_id: `obs-${String(index + 1).padStart(2, '0')}`,
      latitude: Number((centre.latitude + ((step % 5) - 2) * 0.004).toFixed(5)),
      longitude: Number((centre.longitude + (Math.floor(step / 5) - 0.5) * 0.008).toFixed(5)),
      species_code: SPECIES[index % 2],
      planting_method: METHODS[Math.floor(index / 2) % 2],
      planted_on: '2021',
      surveyed_on: SURVEYED[index % 3],
      planted: 40,
      alive: 14 + ((index * 7) % 26),
    }
  })
}

/** Four rows of a survey CSV, the second with more alive than planted. */
const UPLOAD_CSV = [
  CSV_HEADER,
  `csv-a,44.61,-123.59,PSME,manual,2021-03-15,2024-03-15,40,31`,
  `csv-b,44.61,-123.60,PSME,manual,2021-03-15,2024-03-15,40,41`,
  `csv-c,44.21,-122.19,THPL,drone_seeded,2021,2024-05-01,60,33`,
  `csv-d,44.01,-121.59,PSME,drone_seeded,2020,2024-05-01,50,20`,
].join('\n')

const isReport = isOperation('ExplorerSurveyReport')
const isUpload = (response: Response) =>
  response.url().includes('/v1/surveys/uploads') && response.request().method() === 'POST'
/** The upload refused on purpose: Chromium logs its 422 like any other. */
const expectedError = (url: string) => url.includes('/v1/surveys/uploads') && !url.includes('skip_invalid')

async function reportOf(response: Response): Promise<ReportAnswer> {
  return ((await response.json()) as { data: { surveyReport: ReportAnswer } }).data.surveyReport
}

/** "rgb(r, g, b)" as Leaflet and Plot write a fill. */
function rgb(colour: string | null): [number, number, number] {
  const [r, g, b] = (/rgb\((\d+), ?(\d+), ?(\d+)\)/.exec(colour ?? '') ?? []).slice(1).map(Number)
  if (r === undefined || g === undefined || b === undefined) throw new Error(`not a colour: ${colour}`)
  return [r, g, b]
}

describe('the explorer Observations tab in a real browser (offline)', () => {
  let database: TestDatabase
  let server: TestServer
  let session: OfflineSession
  let page: Page
  let apiKey: string
  const { shoot, shootRegion } = screenshotter(() => page)

  const storedPlots = async (): Promise<StoredPlot[]> => {
    const response = await fetch(`${server.url}/v1/surveys?limit=1000`, { headers: { 'x-api-key': apiKey } })
    expect(response.status).toBe(200)
    return ((await response.json()) as { plots: StoredPlot[] }).plots
  }

  /** Each plot drawn on the map: its id, its difference and its fill, read from the SVG. */
  const drawnPlots = (target: Page = page) =>
    target.locator('#map path.survey-plot').evaluateAll((paths) =>
      paths.map((path) => ({
        plot: path.getAttribute('data-plot') ?? '',
        difference: Number(path.getAttribute('data-difference')),
        fill: path.getAttribute('fill'),
      })),
    )

  beforeAll(async () => {
    database = await createSeededDatabase()
    apiKey = (await issueKey(database, 'mycel')).key
    server = await startTestServer({ database })
    session = await openOfflinePage({
      viewport: { width: 1280, height: 800 },
      isExpectedError: expectedError,
    })
    page = session.page
  })

  afterAll(async () => {
    await session?.close()
    await server?.close()
    await database?.drop()
  })

  it('opens from the keyboard and says plainly that an account without plots has none, and how to add some', async () => {
    await page.goto(`${server.url}/`, { waitUntil: 'load' })
    const coverage = page.waitForResponse(isOperation('ExplorerCoverage'))
    await page.getByLabel('API key', { exact: true }).fill(apiKey)
    await page.getByRole('button', { name: 'Use key' }).click()
    await coverage
    // Between Rank species and Plan: the arrows reach it from both.
    await page.getByRole('tab', { name: 'Rank species' }).focus()
    const asked = page.waitForResponse(isReport)
    await page.keyboard.press('ArrowRight')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-observations')
    expect(new URL(page.url()).searchParams.get('panel')).toBe('observations')
    const report = await reportOf(await asked)
    expect(report.overall).toBeNull()
    await expect.poll(() => page.locator('#observations-empty').isVisible()).toBe(true)
    const empty = await page.locator('#observations-empty').textContent()
    expect(empty).toContain('This account has no survey plots yet')
    expect(empty).toContain('POST /v1/surveys')
    expect(await page.locator('#observations-report').isVisible()).toBe(false)
    expect(await page.locator('#map path.survey-plot').count()).toBe(0)
    expect(await page.locator('#surveys-legend').isVisible()).toBe(false)
    // What the predictions are stays in view, as on the other tabs.
    expect(await page.locator('#observations-caveat').textContent()).toContain('synthetic')
    for (const name of ['Survey CSV', 'Store the valid rows, report the rest'])
      await expect(page.getByLabel(name, { exact: true }).count(), name).resolves.toBe(1)
  })

  it('draws the stored plots coloured by observed − predicted on the diverging scale, with its legend', async () => {
    const stored = await fetch(`${server.url}/v1/surveys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ plots: surveyPlots() }),
    })
    expect(stored.status, await stored.clone().text()).toBe(200)
    expect(((await stored.json()) as { stored: number }).stored).toBe(30)

    const asked = page.waitForResponse(isReport)
    await page.getByRole('button', { name: 'Use the stored plots' }).click()
    const report = await reportOf(await asked)
    expect(report.overall?.plots).toBe(30)
    await expect.poll(async () => (await drawnPlots()).length).toBe(30)

    // Each dot at its plot's observed − predicted, filled from the scale the survival map's change uses.
    const plots = await storedPlots()
    const differences = new Map(plots.map((p) => [p.plot_id, p.observed_survival - p.predicted_survival]))
    const colours = divergingColours([...differences.values()])
    const fill = divergingColour(colours)
    const drawn = await drawnPlots()
    expect(new Set(drawn.map((d) => d.plot))).toEqual(new Set(differences.keys()))
    for (const dot of drawn) {
      const difference = differences.get(dot.plot) as number
      expect(dot.difference).toBeCloseTo(difference, 12)
      expect(dot.fill, dot.plot).toBe(fill(difference))
      // Red where fewer lived than predicted, blue where more.
      const [r, , b] = rgb(dot.fill)
      if (difference < -0.02) expect(r, dot.plot).toBeGreaterThan(b)
      if (difference > 0.02) expect(b, dot.plot).toBeGreaterThan(r)
    }
    expect(drawn.some((d) => d.difference < 0) && drawn.some((d) => d.difference > 0)).toBe(true)

    // The legend: the diverging ramp, symmetric about 0, and how many plots are drawn.
    const legend = page.locator('#surveys-legend')
    expect(await legend.isVisible()).toBe(true)
    expect(await legend.getAttribute('data-scale')).toBe('diverging')
    const [low, high] = ((await legend.getAttribute('data-domain')) ?? '').split(',').map(Number)
    expect(low).toBe(-(high as number))
    expect([low, high]).toEqual([...colours.domain])
    expect(await legend.locator('svg').count()).toBe(1)
    expect(await legend.textContent()).toContain('observed − predicted survival')
    expect(await legend.textContent()).toContain('30 surveys drawn')
    // The map moved to the plots: each lies inside the view.
    const bounds = ((await page.locator('#map').getAttribute('data-bounds')) ?? '').split(',').map(Number)
    const [south, west, north, east] = bounds as [number, number, number, number]
    for (const plot of surveyPlots()) {
      expect(plot.latitude).toBeGreaterThan(south)
      expect(plot.latitude).toBeLessThan(north)
      expect(plot.longitude).toBeGreaterThan(west)
      expect(plot.longitude).toBeLessThan(east)
    }
    // Another tab takes the plots off the map; back, they return.
    await page.getByRole('tab', { name: 'Compare methods' }).click()
    expect(await page.locator('#map path.survey-plot').first().isVisible()).toBe(false)
    expect(await legend.isVisible()).toBe(false)
    await page.getByRole('tab', { name: 'Observations' }).click()
    expect(await page.locator('#map path.survey-plot').first().isVisible()).toBe(true)
    expect(await legend.isVisible()).toBe(true)
  })

  it('draws the reliability diagram: the diagonal, one marker per bin sized by its trees', async () => {
    const asked = page.waitForResponse(isReport)
    await page.getByRole('button', { name: 'Use the stored plots' }).click()
    const report = await reportOf(await asked)
    const bins = report.reliability.filter((bin) => bin.plots > 0)
    expect(bins.length).toBeGreaterThan(0)
    const chart = page.locator('#observations-chart')
    await expect.poll(() => chart.locator('g[aria-description="bins"] circle').count()).toBe(bins.length)
    expect(await chart.locator('g[aria-description="diagonal"] path').count()).toBe(1)
    const svg = chart.locator('svg').first()
    expect(await svg.getAttribute('role')).toBe('img')
    expect(await svg.getAttribute('aria-label')).toContain('Reliability diagram')
    expect(await svg.locator('title').first().textContent()).toContain('observed against predicted')
    expect(await svg.locator('desc').textContent()).toContain(`${bins.length} bins`)
    // On the chart's own scales: the diagonal from (0, 0) to (100 %, 100 %); each bin a marker at its
    // mean prediction and observed survival (Plot draws the largest first), its area in proportion to
    // its trees.
    const placed = await chart.evaluate(
      (node, filled) => {
        const figure = node.querySelector('svg') as unknown as SVGSVGElement & {
          scale(name: string): { apply(value: number): number }
        }
        const x = (value: number) => figure.scale('x').apply(value)
        const y = (value: number) => figure.scale('y').apply(value)
        const path = node.querySelector('g[aria-description="diagonal"] path')?.getAttribute('d') ?? ''
        const ends = [...path.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]))
        const circles = [...node.querySelectorAll('g[aria-description="bins"] circle')].map((circle) => ({
          cx: Number(circle.getAttribute('cx')),
          cy: Number(circle.getAttribute('cy')),
          r: Number(circle.getAttribute('r')),
        }))
        return {
          diagonal: [
            (ends[0] as number) - x(0),
            (ends[1] as number) - y(0),
            (ends[2] as number) - x(100),
            (ends[3] as number) - y(100),
          ],
          bins: filled.map((bin) => {
            const at = { cx: x(bin.meanPredictedSurvival * 100), cy: y(bin.observedSurvival * 100) }
            const nearest = circles.reduce((best, circle) =>
              Math.hypot(circle.cx - at.cx, circle.cy - at.cy) < Math.hypot(best.cx - at.cx, best.cy - at.cy)
                ? circle
                : best,
            )
            return {
              offset: Math.hypot(nearest.cx - at.cx, nearest.cy - at.cy),
              areaPerTree: (nearest.r * nearest.r) / bin.trees,
            }
          }),
        }
      },
      bins as { meanPredictedSurvival: number; observedSurvival: number; trees: number }[],
    )
    for (const offset of placed.diagonal) expect(Math.abs(offset)).toBeLessThan(1)
    for (const bin of placed.bins) expect(bin.offset).toBeLessThan(1)
    const areas = placed.bins.map((bin) => bin.areaPerTree)
    for (const area of areas) expect(area / (areas[0] as number)).toBeCloseTo(1, 2)
    // The table beside it: all ten bins.
    expect(await page.locator('#observations-bins-body tr').count()).toBe(report.reliability.length)
  })

  it('shows one row per species × method group of the report, flagged where it differs, and the scores', async () => {
    const asked = page.waitForResponse(isReport)
    await page.getByRole('button', { name: 'Use the stored plots' }).click()
    const report = await reportOf(await asked)
    const groups = report.groups.filter((group) => group.ageBand === null)
    expect(groups).toHaveLength(4)
    const rows = page.locator('#observations-groups-body tr')
    await expect.poll(() => rows.count()).toBe(groups.length)
    for (const [index, group] of groups.entries()) {
      const row = rows.nth(index)
      expect(await row.getAttribute('data-species')).toBe(group.speciesCode)
      expect(await row.getAttribute('data-method')).toBe(
        group.plantingMethod === 'DRONE_SEEDED' ? 'drone_seeded' : 'manual',
      )
      expect(await row.getAttribute('data-differs')).toBe(String(group.differs))
      const text = (await row.textContent()) ?? ''
      expect(text).toContain(
        `${group.speciesCode}, ${group.plantingMethod === 'DRONE_SEEDED' ? 'drone seeding' : 'hand planting'}`,
      )
      expect(text).toContain(group.speciesCode === 'PSME' ? 'Douglas-fir' : 'redcedar')
      expect(text).toContain(`${group.plots} plot`)
      expect(text.includes('⚑')).toBe(group.differs)
    }
    const scores = (await page.locator('#observations-scores').textContent()) ?? ''
    expect(scores).toContain(`Brier score${report.scores?.brier.toFixed(3)}`)
    expect(scores).toContain(`Log loss${report.scores?.logLoss.toFixed(3)}`)
    expect(scores).toContain('Calibration in the large')
    expect(scores).toContain('Calibration slope')
    expect(await page.locator('#observations-notes li').count()).toBe(report.notes.length)
    expect(await page.locator('#observations-summary').textContent()).toMatch(
      /^30 plot surveys, 1,200 trees planted: \d+\.\d% survived/,
    )
    expect(await page.locator('#observations-model').textContent()).toMatch(/^Predictions by model mycel /)
  })

  it('uploads a CSV with a refused row: the row is shown and nothing is stored; with the box ticked the rest is', async () => {
    const file = page.getByLabel('Survey CSV', { exact: true })
    await file.setInputFiles({ name: 'plots.csv', mimeType: 'text/csv', buffer: Buffer.from(UPLOAD_CSV) })
    let sent = page.waitForResponse(isUpload)
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    const refused = await sent
    expect(refused.status()).toBe(422)
    expect(refused.request().headers()['content-type']).toBe('text/csv')
    expect(refused.request().headers()['x-api-key']).toBe(apiKey)
    expect(refused.request().postData()).toBe(UPLOAD_CSV)
    const result = page.locator('#observations-upload-result')
    await expect.poll(() => result.getAttribute('data-stored')).toBe('false')
    expect(await page.locator('#observations-upload-summary').textContent()).toContain(
      'plots.csv: nothing was stored. 1 of 4 rows was refused',
    )
    const refusedRows = page.locator('#observations-refused-body tr')
    expect(await refusedRows.count()).toBe(1)
    expect(
      await refusedRows
        .first()
        .locator('td')
        .evaluateAll((cells) => cells.map((cell) => cell.textContent)),
    ).toEqual(['2', 'csv-b', 'alive', 'must be at most planted (40)'])
    expect((await storedPlots()).filter((plot) => plot.plot_id.startsWith('csv-'))).toEqual([])
    expect(await page.locator('#map path.survey-plot').count()).toBe(30)

    // The same file again, the valid rows stored: the plots and the report read again.
    await page.getByLabel('Store the valid rows, report the rest', { exact: true }).check()
    sent = page.waitForResponse(isUpload)
    const reread = page.waitForResponse(isReport)
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    const stored = await sent
    expect(stored.status()).toBe(201)
    expect(new URL(stored.url()).searchParams.get('skip_invalid')).toBe('true')
    await expect.poll(() => result.getAttribute('data-stored')).toBe('true')
    expect(await page.locator('#observations-upload-summary').textContent()).toBe(
      'plots.csv: stored 3 of 4 rows. 1 row refused and not stored (below).',
    )
    expect(await refusedRows.count()).toBe(1)
    expect(
      (await storedPlots()).filter((plot) => plot.plot_id.startsWith('csv-')).map((plot) => plot.plot_id),
    ).toEqual(['csv-a', 'csv-c', 'csv-d'])
    expect((await reportOf(await reread)).overall?.plots).toBe(33)
    await expect.poll(async () => (await drawnPlots()).length).toBe(33)
    await expect.poll(() => page.locator('#quota').textContent()).toMatch(/^Requests left today: [\d,]+ of/)
  })

  it('at 1280×800: the map with its plots, the upload and the report', async () => {
    expect(await elementsWiderThan(page, 1280)).toEqual([])
    await page.locator('.tabs').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('observations-desktop')
    await page.locator('#observations-result').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('observations-desktop-report')
    await page.locator('#observations-groups').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('observations-desktop-groups')
  })

  it('on a 390×844 phone: a shared link opens the tab, nothing wider than the screen, the chart whole', async () => {
    const phone = await session.context.newPage()
    session.watch(phone)
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(`${server.url}/?panel=observations`, { waitUntil: 'load' })
    await phone.getByLabel('API key', { exact: true }).fill(apiKey)
    const asked = phone.waitForResponse(isReport)
    await phone.getByRole('button', { name: 'Use key' }).click()
    await asked
    expect(await phone.getByRole('tab', { name: 'Observations' }).getAttribute('aria-selected')).toBe('true')
    await expect.poll(async () => (await drawnPlots(phone)).length).toBe(33)
    const chart = phone.locator('#observations-chart')
    await expect.poll(() => chart.locator('g[aria-description="bins"] circle').count()).toBeGreaterThan(0)
    await expect
      .poll(async () => (await chart.locator('svg').first().boundingBox())?.width ?? Number.POSITIVE_INFINITY)
      .toBeLessThanOrEqual(390 - 16)
    expect(await phone.locator('#observations-groups-body tr').count()).toBe(4)
    // The upload's refused rows too, on the phone.
    await phone
      .getByLabel('Survey CSV', { exact: true })
      .setInputFiles({ name: 'plots.csv', mimeType: 'text/csv', buffer: Buffer.from(UPLOAD_CSV) })
    const sent = phone.waitForResponse(isUpload)
    await phone.getByRole('button', { name: 'Upload', exact: true }).click()
    expect((await sent).status()).toBe(422)
    await expect.poll(() => phone.locator('#observations-refused-body tr').count()).toBe(1)
    await phone.getByText('The bins as a table', { exact: true }).click()
    expect(await phone.locator('#observations-bins-body tr').first().isVisible()).toBe(true)
    expect(await elementsWiderThan(phone, 390)).toEqual([])
    // Nor wider than the panel: its tables fit the phone's column.
    expect(
      await phone.locator('#panel-observations').evaluate((panel) => {
        const right = panel.getBoundingClientRect().right
        return [...panel.querySelectorAll('*')]
          .filter((node) => node.getBoundingClientRect().right > right + 0.5)
          .map((node) => `${node.tagName.toLowerCase()}#${node.id}.${node.className}`)
      }),
    ).toEqual([])
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await phone.locator('.tabs').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('observations-phone-tabs', phone)
    await phone.evaluate(() => window.scrollTo(0, 0))
    await shoot('observations-phone', phone)
    await shootRegion('observations-phone-panel', '#panel-observations', phone)
    await phone.close()
  })

  it('made no request that left the machine, logged no console error and had no failed request', () => {
    expect(session.blocked).toEqual([])
    expect(session.consoleErrors).toEqual([])
    expect(session.failedRequests).toEqual([])
    expect(session.errorResponses).toEqual([])
  })
})
