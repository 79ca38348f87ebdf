import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page, Request, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { pdfInfo, pdfText } from '../support/pdf-tools.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import { isOperation, type OfflineSession, openOfflinePage, screenshotter } from './browser-session.ts'

/**
 * "Download PDF" on the explorer's Compare, Rank and Plan tabs in a real browser (docs/explorer.md): a
 * click saves the PDF report of the answer the tab shows, asked of REST with Accept: application/pdf,
 * in the browser's language and on its region's paper. The PDF is of the right operation (its file
 * name, its heading) and holds the numbers the tab's GraphQL answer showed. Once on a wide screen in
 * Mexican Spanish (Spanish, US Letter), once on a phone in British English (English, A4); each tab is
 * photographed with its button (report-*.png in the explorer artefacts).
 */

// biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are read freely
type Json = any

const POINT = FOREST_POINTS.westCascades

const SCREENS = [
  {
    name: 'wide',
    viewport: { width: 1280, height: 800 },
    locale: 'es-MX',
    language: 'es',
    paper: /\(letter\)/,
  },
  { name: 'phone', viewport: { width: 390, height: 844 }, locale: 'en-GB', language: 'en', paper: /\(A4\)/ },
] as const

/** As the report prints a probability: 3 decimals in the report's language. */
const p3 = (value: number, language: string) =>
  new Intl.NumberFormat(language === 'es' ? 'es-ES' : 'en-US', {
    minimumFractionDigits: 3,
    maximumFractionDigits: 3,
  })
    .format(value)
    .replace(/^-(0[.,]000)$/, '$1')

function missing(text: string, printed: string[]): string[] {
  const flat = text.replace(/\s+/g, ' ')
  return printed.filter(
    (number) => !new RegExp(`(?<![\\d.,])${number.replace(/[.,]/g, '\\$&')}(?![\\d]|[.,]\\d)`).test(flat),
  )
}

/** The reports' titles (src/domain/reports/messages). */
const HEADINGS = {
  compare: { en: 'Planting methods compared', es: 'Comparación de métodos de plantación' },
  ranking: { en: 'Species ranked by survival', es: 'Especies ordenadas por supervivencia' },
  plan: { en: 'Stocking plan', es: 'Plan de densidad de plantación' },
}

let database: TestDatabase
let server: TestServer
let apiKey: string
let workdir: string

beforeAll(async () => {
  database = await createSeededDatabase()
  apiKey = (await issueKey(database, 'mycel')).key
  server = await startTestServer({ database })
  workdir = await mkdtemp(join(tmpdir(), 'explorer-reports-'))
})

afterAll(async () => {
  await server?.close()
  await database?.drop()
  if (workdir) await rm(workdir, { recursive: true, force: true })
})

for (const screen of SCREENS)
  describe(`Download PDF on each tab (${screen.name}, ${screen.locale}, real browser, offline)`, () => {
    let session: OfflineSession
    let page: Page
    const reports: Request[] = []
    const { shoot } = screenshotter(() => page)

    beforeAll(async () => {
      session = await openOfflinePage({
        viewport: screen.viewport,
        acceptDownloads: true,
        locale: screen.locale,
      })
      page = session.page
      page.on('request', (request) => {
        if (request.headers().accept === 'application/pdf') reports.push(request)
      })
    })

    afterAll(() => session?.close())

    /** Clicks the tab's PDF button; the download saved, its bytes, its text and its info. */
    async function download(button: string) {
      const locator = page.locator(`#${button}`)
      await expect.poll(() => locator.isEnabled()).toBe(true)
      const downloading = page.waitForEvent('download')
      await locator.click()
      const file = await downloading
      const path = join(workdir, `${screen.name}-${file.suggestedFilename()}`)
      await file.saveAs(path)
      const bytes = new Uint8Array(await readFile(path))
      expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-')
      const request = reports.at(-1)
      expect(request?.headers()['accept-language']).toBe(screen.locale)
      expect(request?.headers()['x-api-key']).toBe(apiKey)
      return {
        name: file.suggestedFilename(),
        text: await pdfText(bytes),
        info: await pdfInfo(bytes),
        request,
      }
    }

    /** The tab with its PDF button in view. */
    async function shootTab(name: string, button: string) {
      await page.locator(`#${button}`).scrollIntoViewIfNeeded()
      await shoot(`report-${name}-${screen.viewport.width}x${screen.viewport.height}`)
    }

    it('Compare: the comparison shown, as a PDF of POST /v1/predict/compare', async () => {
      const compared = page.waitForResponse(isOperation('ExplorerCompare'))
      await page.goto(
        `${server.url}/?species=TSHE&method=manual&horizon=5&lat=${POINT.latitude}&lng=${POINT.longitude}&panel=compare`,
        {
          waitUntil: 'load',
        },
      )
      await page.getByLabel('API key', { exact: true }).fill(apiKey)
      await page.getByRole('button', { name: 'Use key' }).click()
      const answer: Json = ((await (await compared).json()) as Json).data.compareMethods
      expect(answer).not.toBeNull()
      await shootTab('compare', 'report-compare')

      const report = await download('report-compare')
      expect(report.name).toBe(
        `method-comparison-TSHE-${POINT.latitude.toFixed(5)}_${POINT.longitude.toFixed(5)}.pdf`,
      )
      expect(report.request?.url()).toBe(`${server.url}/v1/predict/compare`)
      expect(report.request?.postDataJSON()).toEqual({
        latitude: POINT.latitude,
        longitude: POINT.longitude,
        species_code: 'TSHE',
        model_version: answer.model.version,
      })
      expect(report.text).toContain(HEADINGS.compare[screen.language])
      expect(report.info.pageSize).toMatch(screen.paper)
      expect(
        missing(
          report.text,
          answer.methodDifferential.flatMap((row: Json) =>
            [row.manual, row.droneSeeded, row.difference].map((value: number) => p3(value, screen.language)),
          ),
        ),
      ).toEqual([])
      await expect
        .poll(() => page.locator('#report-compare-status').textContent())
        .toContain(`Saved ${report.name}`)
      await shoot(`report-compare-saved-${screen.viewport.width}x${screen.viewport.height}`)
    })

    it('Rank: the ranking shown, as a PDF of POST /v1/predict/rank', async () => {
      const ranked = page.waitForResponse(isOperation('ExplorerRanking'))
      await page.getByRole('tab', { name: 'Rank species' }).click()
      const answer: Json = ((await (await ranked).json()) as Json).data.speciesRanking
      expect(answer).not.toBeNull()
      await shootTab('ranking', 'report-ranking')

      const report = await download('report-ranking')
      expect(report.name).toBe(
        `species-ranking-manual-5y-${POINT.latitude.toFixed(5)}_${POINT.longitude.toFixed(5)}.pdf`,
      )
      expect(report.request?.url()).toBe(`${server.url}/v1/predict/rank`)
      expect(report.request?.postDataJSON()).toMatchObject({ planting_method: 'manual', horizon: 5 })
      expect(report.text).toContain(HEADINGS.ranking[screen.language])
      expect(report.info.pageSize).toMatch(screen.paper)
      expect(
        missing(
          report.text,
          answer.ranking.map((row: Json) => p3(row.survivalProbability, screen.language)),
        ),
      ).toEqual([])
    })

    it('Plan: the plan shown, as a PDF of POST /v1/plans/stocking', async () => {
      const planned = page.waitForResponse(isOperation('ExplorerStockingPlan'))
      await page.getByRole('tab', { name: 'Plan' }).click()
      const response: Response = await planned
      const answer: Json = ((await response.json()) as Json).data.stockingPlan
      expect(answer).not.toBeNull()
      await page.locator('#plan-result[data-state="planned"]').waitFor()
      await shootTab('plan', 'report-plan')

      const report = await download('report-plan')
      expect(report.name).toBe(`stocking-plan-${POINT.latitude.toFixed(5)}_${POINT.longitude.toFixed(5)}.pdf`)
      expect(report.request?.url()).toBe(`${server.url}/v1/plans/stocking`)
      expect(report.request?.postDataJSON()).toMatchObject({
        latitude: POINT.latitude,
        longitude: POINT.longitude,
        planting_method: 'manual',
        // The mix starts as the view's species.
        species_mix: [{ species_code: 'TSHE', share: 1 }],
        model_version: answer.model.version,
      })
      expect(report.text).toContain(HEADINGS.plan[screen.language])
      expect(report.info.pageSize).toMatch(screen.paper)
      expect(
        missing(report.text, [
          p3(answer.meetsProbability, screen.language),
          ...answer.horizons.map((row: Json) => p3(row.survivalProbability, screen.language)),
        ]),
      ).toEqual([])
      expect(session.consoleErrors).toEqual([])
      expect(session.blocked).toEqual([])
      expect(session.errorResponses).toEqual([])
    })
  })
