import type { Page, Request, Response, Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CALIBRATION_POINTS, calibrationSurveys } from '../support/calibration-surveys.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  elementsWiderThan,
  isOperation,
  type OfflineSession,
  openOfflinePage,
  screenshotter,
} from './browser-session.ts'

/**
 * The explorer's model versions in a real browser: the selector (in the URL, applied to every tab),
 * the Observations tab's Calibrate (its progress while it runs, the fit's summary, "Use this version"
 * and "Make default"), and the reliability diagram of a calibration beside its base version.
 */

interface ReportAnswer {
  modelVersion: string | null
  reliability: { plots: number; meanPredictedSurvival: number | null; observedSurvival: number | null }[]
  scores: { brier: number; logLoss: number; calibrationInTheLarge: { estimate: number } } | null
}

interface FitAnswer {
  plots: number
  trees: number
  plantingYears: number[]
  offsets: {
    speciesCode: string
    plantingMethod: string
    offset: number
    interval: number[]
    shrinkage: number
    plots: number
    trees: number
  }[]
  plantingYearSd: { value: number; status: string; interval: number[] | null }
  siteSd: { value: number; status: string; interval: number[] | null }
  clumpingDispersion: { value: number; status: string; interval: number[] | null }
  crossValidation: {
    folds: number
    plots: number
    beatsBase: boolean
    base: { logLoss: number }
    calibrated: { logLoss: number }
  }
  notes: string[]
  warnings: string[]
}

const FIT = `query($version: String) {
  model(version: $version) {
    version parent isDefault
    fit {
      plots trees plantingYears
      offsets { speciesCode plantingMethod offset interval shrinkage plots trees }
      plantingYearSd { value status interval } siteSd { value status interval }
      clumpingDispersion { value status interval }
      crossValidation { folds plots beatsBase base { logLoss } calibrated { logLoss } }
      notes warnings
    }
  }
}`

const isReport = isOperation('ExplorerSurveyReport')
const isCalibrate = (response: Response) =>
  response.url().endsWith('/graphql') &&
  /mutation ExplorerCalibrate\b/.test(response.request().postData() ?? '')
const variablesOf = (request: Request): Record<string, unknown> =>
  (JSON.parse(request.postData() ?? '{}') as { variables?: Record<string, unknown> }).variables ?? {}
/** The answer to a report asked of one version (null: none named). */
const isReportOf = (version: string | null) => (response: Response) =>
  isReport(response) && (variablesOf(response.request()).modelVersion ?? null) === version

async function reportOf(response: Response): Promise<ReportAnswer> {
  return ((await response.json()) as { data: { surveyReport: ReportAnswer } }).data.surveyReport
}

/** "−1.23", "+0.40": as the page writes a logit offset. */
const signed = (value: number) => {
  const magnitude = Math.abs(value).toFixed(2)
  return Number(magnitude) === 0 ? magnitude : `${value > 0 ? '+' : '−'}${magnitude}`
}
const decimal = (value: number, digits = 2) => `${value < 0 ? '−' : ''}${Math.abs(value).toFixed(digits)}`

const SITE = CALIBRATION_POINTS[0] as { latitude: number; longitude: number }

describe('the explorer’s model versions and Calibrate in a real browser (offline)', () => {
  let database: TestDatabase
  let server: TestServer
  let session: OfflineSession
  let page: Page
  let apiKey: string
  let version = ''
  let fit: FitAnswer
  /** Errors asked for on purpose (not_enough_surveys answers 422): neither recorded nor logged. */
  let expectingErrors = false
  const { shoot, shootRegion } = screenshotter(() => page)

  const modelSelect = (target: Page = page) => target.getByLabel('Model version', { exact: true })
  const optionLabels = (target: Page = page) =>
    modelSelect(target).evaluate((select) =>
      [...(select as HTMLSelectElement).options].map((option) => option.textContent),
    )
  const openTab = async (name: string, target: Page = page) =>
    target.getByRole('tab', { name, exact: true }).click()

  beforeAll(async () => {
    database = await createSeededDatabase()
    apiKey = (await issueKey(database, 'mycel')).key
    server = await startTestServer({ database })
    session = await openOfflinePage({
      viewport: { width: 1280, height: 800 },
      isExpectedError: (url) => expectingErrors && url.endsWith('/graphql'),
    })
    page = session.page
  })

  afterAll(async () => {
    await session?.close()
    await server?.close()
    await database?.drop()
  })

  it('lists the public current version without a key, and the account’s versions with one', async () => {
    await page.goto(`${server.url}/?panel=observations`, { waitUntil: 'load' })
    await expect.poll(() => optionLabels()).toEqual(['Current version (0.2)', '0.2 — base, default'])
    expect(await modelSelect().inputValue()).toBe('')
    const listed = page.waitForResponse(isOperation('ExplorerModels'))
    await page.getByLabel('API key', { exact: true }).fill(apiKey)
    await page.getByRole('button', { name: 'Use key' }).click()
    expect((await listed).request().headers()['x-api-key']).toBe(apiKey)
    await expect.poll(() => optionLabels()).toEqual(['Account default (0.2)', '0.2 — base, default'])
    expect(await page.locator('#model-choice-note').textContent()).toContain('The account’s default answers')
    // The selector names its note for readers.
    expect(await modelSelect().getAttribute('aria-describedby')).toBe('model-choice-note')
  })

  it('says in words that an account without enough surveys cannot be calibrated', async () => {
    expectingErrors = true
    try {
      const answered = page.waitForResponse(isCalibrate)
      // From the keyboard: the button takes Enter.
      await page.getByRole('button', { name: 'Calibrate', exact: true }).focus()
      await page.keyboard.press('Enter')
      const body = (await (await answered).json()) as { errors: { extensions: { code: string } }[] }
      expect(body.errors[0]?.extensions.code).toBe('not_enough_surveys')
      const error = page.locator('#calibration-error')
      await expect.poll(() => error.isVisible()).toBe(true)
      expect(await error.getAttribute('role')).toBe('alert')
      const text = (await error.textContent()) ?? ''
      expect(text).toContain('Not enough surveyed plots to calibrate.')
      expect(text).toContain('The filter keeps 0 surveyed plots')
      expect(text).toContain('at least 10')
      expect(await page.locator('#calibration-result').isVisible()).toBe(false)
      expect(await page.getByRole('button', { name: 'Calibrate', exact: true }).isEnabled()).toBe(true)
    } finally {
      expectingErrors = false
    }
  })

  it('calibrates: shows its progress while it runs, polling each second, then the fit’s summary', async () => {
    const stored = await fetch(`${server.url}/v1/surveys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ plots: calibrationSurveys() }),
    })
    expect(stored.status, await stored.clone().text()).toBe(200)
    const reread = page.waitForResponse(isReport)
    await page.getByRole('button', { name: 'Use the stored plots' }).click()
    expect((await reportOf(await reread)).reliability.some((bin) => bin.plots > 0)).toBe(true)

    // The fit ends within the 2 s the mutation waits: its answer (and the first poll's) are made to
    // say RUNNING, as a longer fit's would, so that the page shows its progress and polls.
    const polls: number[] = []
    let answeredAt = 0
    const running = async (route: Route) => {
      const query = route.request().postData() ?? ''
      const isStart = /mutation ExplorerCalibrate\b/.test(query)
      const isPoll = /query ExplorerCalibrationPoll\b/.test(query)
      if (!isStart && !isPoll) return route.fallback()
      if (isPoll) polls.push(Date.now())
      if (isPoll && polls.length > 1) {
        // The real answer (the fit has ended), held a moment so the progress stays in view.
        await new Promise((resolve) => setTimeout(resolve, 800))
        return route.fallback()
      }
      const response = await route.fetch()
      const body = (await response.json()) as {
        data: Record<string, { status: string; stagesDone: number; model: unknown; finishedAt: unknown }>
      }
      const field = isStart ? 'calibrateModel' : 'calibration'
      const calibration = body.data[field]
      if (!calibration) throw new Error(`no ${field} in ${JSON.stringify(body)}`)
      body.data[field] = {
        ...calibration,
        status: 'RUNNING',
        stagesDone: isStart ? 1 : 3,
        model: null,
        finishedAt: null,
      }
      if (isStart) answeredAt = Date.now()
      return route.fulfill({ response, json: body })
    }
    await page.route('**/graphql', running)
    try {
      const started = page.waitForResponse(isCalibrate)
      await page.getByRole('button', { name: 'Calibrate', exact: true }).click()
      expect(variablesOf((await started).request())).toEqual({})
      const status = page.locator('#calibration-status')
      const progress = page.locator('#calibration-progress')
      await expect.poll(() => status.textContent()).toContain('1 of 6 stages done')
      expect(await page.locator('#calibration-running').isVisible()).toBe(true)
      expect(
        await progress.evaluate((bar) => [
          (bar as HTMLProgressElement).value,
          (bar as HTMLProgressElement).max,
        ]),
      ).toEqual([1, 6])
      expect(await page.getByRole('button', { name: 'Calibrate', exact: true }).isDisabled()).toBe(true)
      expect(await page.locator('#calibration').getAttribute('aria-busy')).toBe('true')
      // The first poll, a second after the answer.
      await expect.poll(() => status.textContent(), { timeout: 5000 }).toContain('3 of 6 stages done')
      expect(await status.textContent()).toContain('fold 3 of 5')
      expect(await progress.evaluate((bar) => (bar as HTMLProgressElement).value)).toBe(3)
      await shootRegion('calibration-running', '#calibration')
      await expect.poll(() => page.locator('#calibration-result').isVisible(), { timeout: 15_000 }).toBe(true)
    } finally {
      // A handler still under way when a step failed may not fulfil any more: its error is not this test's.
      await page.unrouteAll({ behavior: 'ignoreErrors' })
    }
    // Polled about each second.
    expect(polls).toHaveLength(2)
    expect((polls[0] as number) - answeredAt).toBeGreaterThanOrEqual(900)
    expect((polls[1] as number) - (polls[0] as number)).toBeGreaterThanOrEqual(900)
    expect(await page.locator('#calibration-running').isVisible()).toBe(false)
    expect(await page.getByRole('button', { name: 'Calibrate', exact: true }).isEnabled()).toBe(true)

    version = (await page.locator('#calibration-result').getAttribute('data-version')) ?? ''
    expect(version).toMatch(/^0\.2\+cal\.[0-9a-f]{8}$/)
    const described = await graphql(server.url, FIT, { key: apiKey, variables: { version } })
    fit = described.body.data.model.fit as FitAnswer
    expect(await page.locator('#calibration-version').textContent()).toBe(`${version}, calibrated from 0.2`)
    expect(await page.locator('#calibration-status').textContent()).toBe(
      `Calibrated: ${version}, fitted on ${fit.plots} plots.`,
    )
    expect(await page.locator('#calibration-data').textContent()).toBe(
      `Fitted on every plot of the account: ${fit.plots} plots, ${fit.trees.toLocaleString('en-US')} trees planted in 2017–2020. Method ${
        (
          await graphql(server.url, 'query($v: String) { model(version: $v) { fit { method } } }', {
            key: apiKey,
            variables: { v: version },
          })
        ).body.data.model.fit.method
      }.`,
    )
  })

  it('lists the offsets of the species × method with plots, the three terms and the cross-validation', async () => {
    // Douglas-fir by hand survives far less than the base version predicts: a large negative offset.
    const withPlots = fit.offsets.filter((offset) => offset.plots > 0)
    expect(withPlots.map((o) => `${o.speciesCode}/${o.plantingMethod}`).sort()).toEqual([
      'PSME/manual',
      'THPL/manual',
    ])
    const rows = page.locator('#calibration-offsets-body tr')
    expect(await rows.count()).toBe(2)
    for (const offset of withPlots) {
      const row = page.locator(`#calibration-offsets-body tr[data-species="${offset.speciesCode}"]`)
      // Each cell: its value, and under it (small) the method, the trees, the interval.
      const cells = await row
        .locator('td')
        .evaluateAll((tds) =>
          tds.map((td) => [td.firstChild?.textContent, td.querySelector('small')?.textContent ?? null]),
        )
      expect(cells.slice(0, 3)).toEqual([
        [
          offset.speciesCode === 'PSME' ? 'Douglas-fir' : 'western redcedar',
          `${offset.speciesCode}, hand planting`,
        ],
        [String(offset.plots), `${offset.trees.toLocaleString('en-US')} trees`],
        [
          signed(offset.offset),
          `${signed(offset.interval[0] as number)} to ${signed(offset.interval[1] as number)}`,
        ],
      ])
      expect(cells[3]?.[0]).toBe(`${(offset.shrinkage * 100).toFixed(0)}%`)
    }
    const psme = withPlots.find((offset) => offset.speciesCode === 'PSME')
    expect(psme?.offset).toBeLessThan(-0.5)
    expect(await page.locator('#calibration-pooled').textContent()).toBe(
      `${fit.offsets.length - 2} other species × methods without plots take their method’s pooled mean.`,
    )
    expect(await page.locator('#calibration-offsets-caption').textContent()).toContain('90% interval')

    const terms = [
      ['plantingYearSd', 'Planting-year SD', fit.plantingYearSd],
      ['siteSd', 'Site SD', fit.siteSd],
      ['clumpingDispersion', 'Clumping dispersion', fit.clumpingDispersion],
    ] as const
    for (const [key, label, term] of terms) {
      const row = page.locator(`#calibration-terms-body tr[data-term="${key}"]`)
      const cells = await row
        .locator('td')
        .evaluateAll((tds) =>
          tds.map((td) => [td.firstChild?.textContent, td.querySelector('small')?.textContent ?? null]),
        )
      expect(['estimated', 'assumption']).toContain(term.status)
      expect(cells).toEqual([
        [label, null],
        [
          decimal(term.value, 3),
          term.interval
            ? `${decimal(term.interval[0] as number, 3)} to ${decimal(term.interval[1] as number, 3)}`
            : 'no interval: an assumption',
        ],
        [term.status, null],
      ])
      expect(await row.getAttribute('data-status')).toBe(term.status)
    }

    const cv = fit.crossValidation
    expect(cv.beatsBase).toBe(true)
    const cvText = page.locator('#calibration-cv')
    expect(await cvText.textContent()).toBe(
      `${cv.folds}-fold, each plot held out once (${cv.plots} plots): held-out log loss ${cv.calibrated.logLoss.toFixed(3)} calibrated against ${cv.base.logLoss.toFixed(3)} for the base version. The calibration beats the base version on held-out plots.`,
    )
    expect(await cvText.getAttribute('data-beats-base')).toBe('true')
    expect(await page.locator('#calibration-cv-body tr').first().textContent()).toBe(
      `Log loss${cv.base.logLoss.toFixed(3)}${cv.calibrated.logLoss.toFixed(3)}`,
    )
    expect(await page.locator('#calibration-notes li').allTextContents()).toEqual(fit.notes)
    const warnings = page.locator('#calibration-warnings')
    expect(await warnings.isVisible()).toBe(fit.warnings.length > 0)
    expect(await page.locator('#calibration-warnings-list li').allTextContents()).toEqual(fit.warnings)
  })

  it('“Use this version” puts it in the URL and the selector; the diagram draws base and calibration', async () => {
    const base = page.waitForResponse(isReportOf('0.2'))
    const calibrated = page.waitForResponse(isReportOf(version))
    await page.getByRole('button', { name: 'Use this version' }).click()
    const [baseReport, calibratedReport] = [await reportOf(await base), await reportOf(await calibrated)]
    expect(baseReport.modelVersion).toBe('0.2')
    expect(calibratedReport.modelVersion).toBe(version)
    expect(new URL(page.url()).search).toContain(`model=${version.replace('+', '%2B')}`)
    expect(new URL(page.url()).searchParams.get('model')).toBe(version)
    expect(await modelSelect().inputValue()).toBe(version)
    const labels = await optionLabels()
    // Grouped by kind; a calibration with the day it was made.
    expect(labels).toEqual([
      'Account default (0.2)',
      `${version} — ${new Date().toISOString().slice(0, 10)}`,
      '0.2 — base, default',
    ])
    expect(
      await modelSelect()
        .locator('optgroup')
        .evaluateAll((groups) => groups.map((g) => (g as HTMLOptGroupElement).label)),
    ).toEqual(['Calibrated on your surveys', 'Base versions'])
    expect(
      await modelSelect()
        .locator(`option[value="${version}"]`)
        .evaluate((option) => (option.parentElement as HTMLOptGroupElement).label),
    ).toBe('Calibrated on your surveys')
    const note = page.locator('#model-choice-note')
    expect(await note.getAttribute('data-kind')).toBe('calibrated')
    expect(await note.textContent()).toContain(`${version}: calibrated on this account’s surveys from 0.2`)
    expect(await page.locator('#calibration-done').textContent()).toContain(
      `Every tab now answers with ${version}`,
    )

    // Two series, told apart by shape: hollow circles for the base version, triangles for the calibration.
    const chart = page.locator('#observations-chart')
    const filled = (report: ReportAnswer) => report.reliability.filter((bin) => bin.plots > 0).length
    await expect
      .poll(() => chart.locator('g[aria-description="base bins"] circle').count())
      .toBe(filled(baseReport))
    expect(await chart.locator('g[aria-description="calibrated bins"] path').count()).toBe(
      filled(calibratedReport),
    )
    expect(await chart.locator('g[aria-description="bins"]').count()).toBe(0)
    expect(await chart.locator('g[aria-description="diagonal"] path').count()).toBe(1)
    const svg = chart.locator('svg').first()
    expect(await svg.getAttribute('aria-label')).toBe(
      `Reliability diagram: observed against predicted survival, Base 0.2 and Calibrated ${version}`,
    )
    const desc = (await svg.locator('desc').textContent()) ?? ''
    expect(desc).toContain(`Base 0.2 (hollow circles), ${filled(baseReport)} bins`)
    expect(desc).toContain(`Calibrated ${version} (triangles), ${filled(calibratedReport)} bins`)
    expect(await page.locator('#observations-legend li').allTextContents()).toEqual([
      'Base 0.2 (hollow circles)',
      `Calibrated ${version} (triangles)`,
    ])
    expect(await page.locator('#observations-legend svg circle').count()).toBe(1)
    expect(await page.locator('#observations-legend svg path').count()).toBe(1)
    // The bins as a table: each version's under its name.
    expect(await page.locator('#observations-bins-body tr.series-row').allTextContents()).toEqual([
      'Base 0.2',
      `Calibrated ${version}`,
    ])
    expect(await page.locator('#observations-bins-body tr').count()).toBe(
      2 + baseReport.reliability.length + calibratedReport.reliability.length,
    )

    // The scores side by side; the calibration moved the predictions onto the survivors.
    const scores = page.locator('#observations-scores-compare')
    expect(await scores.isVisible()).toBe(true)
    expect(await page.locator('#observations-scores').isVisible()).toBe(false)
    expect(
      await scores
        .locator('thead th')
        .evaluateAll((ths) =>
          ths.map((th) => [th.firstChild?.textContent, th.querySelector('small')?.textContent ?? null]),
        ),
    ).toEqual([
      ['Score', null],
      ['Base', '0.2'],
      ['Calibrated', version],
    ])
    const rows = await scores
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.firstChild?.textContent)))
    expect(rows.map((row) => row[0])).toEqual([
      'Brier score',
      'Log loss',
      'Calibration in the large',
      'Calibration slope',
    ])
    const [before, after] = [baseReport.scores, calibratedReport.scores]
    if (!before || !after) throw new Error('both reports have scores')
    expect(rows[0]).toEqual(['Brier score', before.brier.toFixed(3), after.brier.toFixed(3)])
    expect(rows[1]).toEqual(['Log loss', before.logLoss.toFixed(3), after.logLoss.toFixed(3)])
    expect(rows[2]).toEqual([
      'Calibration in the large',
      signed(before.calibrationInTheLarge.estimate),
      signed(after.calibrationInTheLarge.estimate),
    ])
    expect(Math.abs(after.calibrationInTheLarge.estimate)).toBeLessThan(
      Math.abs(before.calibrationInTheLarge.estimate),
    )
    expect(await page.locator('#observations-model').textContent()).toContain(
      `Predictions by model mycel ${version} (`,
    )
  })

  it('“Make default” makes it the account’s default, and the selector says so', async () => {
    const made = page.waitForResponse(
      (response) =>
        response.url().endsWith('/graphql') &&
        /mutation ExplorerSetDefaultModel\b/.test(response.request().postData() ?? ''),
    )
    await page.getByRole('button', { name: 'Make default' }).click()
    expect(variablesOf((await made).request())).toEqual({ modelVersion: version })
    await expect
      .poll(() => page.locator('#calibration-done').textContent())
      .toContain(`${version} is now the account’s default`)
    await expect
      .poll(() => optionLabels())
      .toContain(`${version} — ${new Date().toISOString().slice(0, 10)}, default`)
    expect(await optionLabels()).toContain('0.2 — base')
    expect((await optionLabels())[0]).toBe(`Account default (${version})`)
    const button = page.locator('#calibration-default')
    expect(await button.isDisabled()).toBe(true)
    expect(await button.textContent()).toBe('The account’s default')
    expect(await page.locator('#model-choice-note').textContent()).toContain(
      'It is also the account’s default.',
    )
  })

  it('at 1280×800: the Observations tab with the fit’s summary and the two-series diagram', async () => {
    expect(await elementsWiderThan(page, 1280)).toEqual([])
    // The side pane scrolls: the diagram, then the fit a screen at a time.
    await page.locator('#observations-result').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('models-observations-desktop-diagram')
    await page.locator('#calibration').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('models-observations-desktop-fit')
    await page.locator('#calibration-terms').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('models-observations-desktop-fit-2')
  })

  it('a prediction tab answers with the chosen version, and says so', async () => {
    await openTab('Compare methods')
    const compared = page.waitForResponse(isOperation('ExplorerCompare'))
    await page.getByLabel('Latitude', { exact: true }).fill(String(SITE.latitude))
    await page.getByLabel('Longitude', { exact: true }).fill(String(SITE.longitude))
    await page.getByRole('button', { name: 'Go to point' }).click()
    const response = await compared
    expect(variablesOf(response.request())).toMatchObject({ input: { modelVersion: version } })
    const answer = (await response.json()) as {
      data: { compareMethods: { model: { version: string; kind: string } } }
    }
    expect(answer.data.compareMethods.model).toMatchObject({ version, kind: 'CALIBRATED' })
    const named = page.locator('#model-version')
    await expect.poll(() => named.getAttribute('data-version')).toBe(version)
    expect(await named.textContent()).toBe(`Model mycel ${version} (chanterelle), calibrated from 0.2`)
    // Douglas-fir by hand: its baseline includes the calibration's shift.
    const shift = page.locator('#factor-calibration')
    expect(await shift.isVisible()).toBe(true)
    const psme = fit.offsets.find((o) => o.speciesCode === 'PSME' && o.plantingMethod === 'manual')
    expect(await shift.textContent()).toContain(`shift of ${signed(psme?.offset ?? 0)} on the logit scale`)
    expect(await shift.textContent()).toContain(`from ${psme?.plots} surveyed plots`)

    const ranked = page.waitForResponse(isOperation('ExplorerRanking'))
    await openTab('Rank species')
    expect(variablesOf((await ranked).request())).toMatchObject({ modelVersion: version })
    await expect.poll(() => page.locator('#ranking-model').getAttribute('data-version')).toBe(version)
    expect(await page.locator('#ranking-model').textContent()).toContain(`Model mycel ${version}`)
    await openTab('Compare methods')
    await page.locator('#side').evaluate((node) => node.scrollTo(0, 0))
    await shoot('models-compare-desktop')
    await page.locator('#model-version').evaluate((node) => node.scrollIntoView({ block: 'end' }))
    await shoot('models-compare-desktop-named')
    await page.locator('#factor-sum').evaluate((node) => node.scrollIntoView({ block: 'center' }))
    await shoot('models-compare-desktop-factors')
  })

  it('the URL keeps the version: reloaded, the selector and the answers still name it', async () => {
    const compared = page.waitForResponse(isOperation('ExplorerCompare'))
    await page.reload({ waitUntil: 'load' })
    expect(variablesOf((await compared).request())).toMatchObject({ input: { modelVersion: version } })
    await expect.poll(() => modelSelect().inputValue()).toBe(version)
    await expect.poll(() => page.locator('#model-version').getAttribute('data-version')).toBe(version)
    expect(new URL(page.url()).searchParams.get('model')).toBe(version)

    // Back to the account's default (now the calibration): nothing in the URL, nothing named.
    const unpinned = page.waitForResponse(isOperation('ExplorerCompare'))
    await modelSelect().selectOption('')
    const request = (await unpinned).request()
    expect(variablesOf(request)).not.toHaveProperty('input.modelVersion')
    expect(new URL(page.url()).searchParams.has('model')).toBe(false)
    await expect.poll(() => page.locator('#model-version').getAttribute('data-version')).toBe(version)
    expect(await page.locator('#model-choice-note').textContent()).toContain('The account’s default answers')

    // The base version, chosen: every answer is the base version's again.
    const based = page.waitForResponse(isOperation('ExplorerCompare'))
    await modelSelect().selectOption('0.2')
    expect(variablesOf((await based).request())).toMatchObject({ input: { modelVersion: '0.2' } })
    await expect.poll(() => page.locator('#model-version').getAttribute('data-version')).toBe('0.2')
    expect(await page.locator('#factor-calibration').isVisible()).toBe(false)
    // The Observations tab: the base version alone, one series.
    const report = page.waitForResponse(isReportOf('0.2'))
    await openTab('Observations')
    await report
    await expect
      .poll(() => page.locator('#observations-chart g[aria-description="bins"] circle').count())
      .toBeGreaterThan(0)
    expect(await page.locator('#observations-legend').isVisible()).toBe(false)
    expect(await page.locator('#observations-scores').isVisible()).toBe(true)
  })

  it('on a 390×844 phone: calibrated from a shared link, the fit and the diagram fit the screen', async () => {
    const phone = await session.context.newPage()
    session.watch(phone)
    await phone.setViewportSize({ width: 390, height: 844 })
    const link = `${server.url}/?species=PSME&method=manual&horizon=5&model=${encodeURIComponent(version)}&lat=${SITE.latitude}&lng=${SITE.longitude}&panel=observations`
    await phone.goto(link, { waitUntil: 'load' })
    await expect.poll(() => modelSelect(phone).inputValue()).toBe(version)
    const reports = Promise.all([
      phone.waitForResponse(isReportOf('0.2')),
      phone.waitForResponse(isReportOf(version)),
    ])
    await phone.getByLabel('API key', { exact: true }).fill(apiKey)
    await phone.getByRole('button', { name: 'Use key' }).click()
    await reports
    const chart = phone.locator('#observations-chart')
    await expect
      .poll(() => chart.locator('g[aria-description="calibrated bins"] path').count())
      .toBeGreaterThan(0)
    // The same plots and filter give the same version: Calibrate answers it again. Its answer is given
    // a warning and made to lose out of sample, as a fit on too few plots would: both stand out.
    const WARNING = 'Held-out log loss is no better than the base version’s: prefer the base version.'
    await phone.route('**/graphql', async (route) => {
      if (!/mutation ExplorerCalibrate\b/.test(route.request().postData() ?? '')) return route.fallback()
      const response = await route.fetch()
      const body = (await response.json()) as {
        data: {
          calibrateModel: { model: { fit: { warnings: string[]; crossValidation: { beatsBase: boolean } } } }
        }
      }
      const fitted = body.data.calibrateModel.model.fit
      fitted.warnings = [WARNING]
      fitted.crossValidation.beatsBase = false
      return route.fulfill({ response, json: body })
    })
    await phone.getByRole('button', { name: 'Calibrate', exact: true }).click()
    await expect
      .poll(() => phone.locator('#calibration-result').getAttribute('data-version'), { timeout: 15_000 })
      .toBe(version)
    await phone.unrouteAll({ behavior: 'ignoreErrors' })
    expect(await phone.locator('#calibration-offsets-body tr').count()).toBe(2)
    const warnings = phone.locator('#calibration-warnings')
    expect(await warnings.isVisible()).toBe(true)
    expect(await warnings.textContent()).toContain('Warnings: reasons to prefer the base version')
    expect(await phone.locator('#calibration-warnings-list li').allTextContents()).toEqual([WARNING])
    // Before the fit's figures.
    const [warned, offsets] = [
      await warnings.boundingBox(),
      await phone.locator('#calibration-offsets').boundingBox(),
    ]
    expect((warned?.y ?? 0) < (offsets?.y ?? 0)).toBe(true)
    expect(await phone.locator('#calibration-cv').getAttribute('data-beats-base')).toBe('false')
    expect(await phone.locator('#calibration-cv').textContent()).toContain(
      'The calibration does not beat the base version on held-out plots: prefer the base version.',
    )
    await expect
      .poll(async () => (await chart.locator('svg').first().boundingBox())?.width ?? Number.POSITIVE_INFINITY)
      .toBeLessThanOrEqual(390 - 16)
    expect(await elementsWiderThan(phone, 390)).toEqual([])
    expect(
      await phone.locator('#panel-observations').evaluate((panel) => {
        const right = panel.getBoundingClientRect().right
        return [...panel.querySelectorAll('*')]
          .filter((node) => node.getBoundingClientRect().right > right + 0.5)
          .map((node) => `${node.tagName.toLowerCase()}#${node.id}.${node.className}`)
      }),
    ).toEqual([])
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await phone.locator('#observations-result').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('models-observations-phone-diagram', phone)
    await phone.locator('#calibration').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('models-observations-phone-fit', phone)
    await phone
      .locator('#observations-scores-compare')
      .evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('models-observations-phone-scores', phone)
    await shootRegion('models-observations-phone-panel', '#panel-observations', phone)

    // A prediction tab on the phone, the calibration chosen.
    // The link's point was compared when the key was entered.
    await openTab('Compare methods', phone)
    await expect.poll(() => phone.locator('#model-version').getAttribute('data-version')).toBe(version)
    await phone.locator('#controls').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('models-compare-phone-controls', phone)
    await phone.locator('#factor-sum').evaluate((node) => node.scrollIntoView({ block: 'center' }))
    await shoot('models-compare-phone-factors', phone)
    expect(await elementsWiderThan(phone, 390)).toEqual([])
    await phone.close()
  })

  it('the tab’s filter narrows the report, the plots and what Calibrate would fit on', async () => {
    expect(await page.locator('#calibration-filter').textContent()).toBe('every plot of the account')
    const narrowed = page.waitForResponse(isReport)
    await page.getByLabel('Surveyed species', { exact: true }).selectOption('PSME')
    const request = (await narrowed).request()
    expect(variablesOf(request)).toEqual({ filter: { speciesCode: 'PSME' }, modelVersion: '0.2' })
    expect(await page.locator('#calibration-filter').textContent()).toBe('the plots of Douglas-fir (PSME)')
    await expect.poll(() => page.locator('#observations-summary').textContent()).toMatch(/^144 plot surveys/)
    await expect.poll(() => page.locator('#map path.survey-plot').count()).toBe(144)
    const both = page.waitForResponse(isReport)
    await page.getByLabel('Surveyed method', { exact: true }).selectOption('manual')
    expect(variablesOf((await both).request())).toMatchObject({
      filter: { speciesCode: 'PSME', plantingMethod: 'MANUAL' },
    })
    expect(await page.locator('#calibration-filter').textContent()).toBe(
      'the plots of Douglas-fir (PSME), hand planting',
    )
    const all = page.waitForResponse(isReport)
    await page.getByLabel('Surveyed species', { exact: true }).selectOption('')
    await page.getByLabel('Surveyed method', { exact: true }).selectOption('')
    await all
    await expect.poll(() => page.locator('#map path.survey-plot').count()).toBe(288)
  })

  it('made no request that left the machine, logged no console error and had no failed request', () => {
    expect(session.blocked).toEqual([])
    expect(session.consoleErrors).toEqual([])
    expect(session.failedRequests).toEqual([])
    expect(session.errorResponses).toEqual([])
  })
})
