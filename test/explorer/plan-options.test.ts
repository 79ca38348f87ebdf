import type { Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS } from '../support/sites.ts'
import {
  clickMapAt,
  elementsWiderThan,
  isOperation,
  type OfflineSession,
  openOfflinePage,
  screenshotter,
} from './browser-session.ts'

const FOREST = FOREST_POINTS.westCascades

interface Cost {
  perAcre: number
  perEstablishedTree: number | null
  parts: { item: string; status: string }[]
}

interface PlanAnswer {
  meetsProbability: number
  horizons: { horizonYears: number; expectedTreesPerAcre: number; lower: number; upper: number }[]
  treatments: { effects: { treatment: string; value: string }[] } | null
  cost: Cost
}

interface OptionsAnswer {
  confidence: number
  candidates: number
  options: { plantingMethod: string; probability: number; treesPerAcre: number; cost: Cost }[]
  cheapestFailing: { probability: number; shortfall: number; cost: Cost } | null
}

const isPlan = isOperation('ExplorerStockingPlan')
const usd = (value: number) => value.toLocaleString('en-US', { style: 'currency', currency: 'USD' })
const isOptions = isOperation('ExplorerPlantingOptions')

const inputOf = (response: Response) =>
  (response.request().postDataJSON() as { variables: { input: Record<string, unknown> } }).variables.input

async function dataOf<T>(response: Response, field: string): Promise<T> {
  const body = (await response.json()) as { data: Record<string, T | null>; errors?: unknown[] }
  const value = body.data[field]
  if (!value) throw new Error(`no ${field}: ${JSON.stringify(body.errors)}`)
  return value
}

describe('the explorer Plan tab: treatments, costs and options (offline)', () => {
  let database: TestDatabase
  let server: TestServer
  let session: OfflineSession
  let page: Page
  let apiKey: string
  let untreated: PlanAnswer
  const asked: Response[] = []

  const { shoot } = screenshotter(() => page)

  beforeAll(async () => {
    database = await createSeededDatabase()
    apiKey = (await issueKey(database, 'mycel')).key
    server = await startTestServer({ database })
    session = await openOfflinePage({
      viewport: { width: 1280, height: 900 },
      onResponse: (response) => {
        if (isPlan(response) || isOptions(response)) asked.push(response)
      },
    })
    page = session.page
  })

  afterAll(async () => {
    await session?.close()
    await server?.close()
    await database?.drop()
  })

  it('plans a point with its cost: per acre, per established tree with its interval, the parts', async () => {
    await page.goto(`${server.url}/?panel=plan`, { waitUntil: 'load' })
    const coverage = page.waitForResponse(isOperation('ExplorerCoverage'))
    await page.getByLabel('API key', { exact: true }).fill(apiKey)
    await page.getByRole('button', { name: 'Use key' }).click()
    await coverage
    // The Options view's Weigh boxes name the same treatments: these are the plan form's.
    for (const name of [
      'Vegetation control',
      'Stock type',
      'Mesh tubes',
      'Shade cards',
      'Seedlings ($/tree)',
      'Planting labour ($/tree)',
      'Tube, installed ($/tree)',
      'Drone flight ($/acre)',
    ])
      await expect(page.locator('#plan-form').getByLabel(name, { exact: true }).count(), name).resolves.toBe(
        1,
      )
    // Each default is shown with its status and year.
    expect(await page.locator('#plan-cost-planting-default').textContent()).toMatch(
      /^Default: 0\.46 \(synthesis, (undated|\d{4})\)$/,
    )
    expect(await page.locator('#plan-cost-seedlings-default').textContent()).toContain('PSME 0.37 (published')

    const first = page.waitForResponse(isPlan)
    await clickMapAt(page, FOREST)
    const response = await first
    expect(inputOf(response).treatments).toBeUndefined()
    expect(inputOf(response).costs).toBeUndefined()
    untreated = await dataOf<PlanAnswer>(response, 'stockingPlan')
    const cost = page.locator('#plan-cost')
    await expect.poll(() => cost.isVisible()).toBe(true)
    const summary = await page.locator('#plan-cost-summary').textContent()
    expect(summary).toContain(`${usd(untreated.cost.perAcre)} per acre planted`)
    expect(summary).toMatch(/\$\d+\.\d\d per established tree \(90% interval \$\d+\.\d\d–\$\d+\.\d\d\)/)
    expect(await page.locator('#plan-cost-body tr').count()).toBe(untreated.cost.parts.length)
    expect(await page.locator('#plan-cost-body').textContent()).toContain('Seedlings (PSME)')
    expect(await page.locator('#plan-treated').textContent()).toBe('Untreated.')
    await page.locator('#plan-cost').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-1-plan-cost')
  })

  it('sends the treatments toggled with the plan, and the plan changes', async () => {
    await page.getByLabel('Vegetation control', { exact: true }).selectOption('RELEASE_2YR')
    await page.locator('#plan-treatments').getByLabel('Mesh tubes', { exact: true }).check()
    await page.locator('#plan-treatments').getByLabel('Shade cards', { exact: true }).check()
    const next = page.waitForResponse(isPlan)
    await page.getByRole('button', { name: 'Plan', exact: true }).click()
    const response = await next
    expect(inputOf(response).treatments).toEqual({
      vegetationControl: 'RELEASE_2YR',
      animalProtection: 'MESH_TUBES',
      shade: 'SHADE_CARDS',
    })
    const treated = await dataOf<PlanAnswer>(response, 'stockingPlan')
    // Two releases, tubes and cards cost more per acre; survival is never lower, and the parts say why.
    expect(treated.cost.perAcre).toBeGreaterThan(untreated.cost.perAcre)
    const at = (plan: PlanAnswer) => plan.horizons[plan.horizons.length - 1]?.expectedTreesPerAcre ?? 0
    expect(at(treated)).toBeGreaterThanOrEqual(at(untreated) - 1e-9)
    expect(treated.treatments?.effects.length).toBeGreaterThan(0)
    await expect
      .poll(() => page.locator('#plan-cost-summary').textContent())
      .toContain(`${usd(treated.cost.perAcre)} per acre planted`)
    const parts = await page.locator('#plan-cost-body').textContent()
    for (const part of ['Release', 'Mesh tubes, installed', 'Shade cards']) expect(parts).toContain(part)
    expect(await page.locator('#plan-treated').textContent()).toMatch(
      /^Treatments: two releases \(its effect: /,
    )

    // Drone seeding takes only vegetation control: the others are disabled and not sent.
    await page.locator('#method').selectOption('drone_seeded')
    const drone = await page.waitForResponse(isPlan)
    expect(
      await page.locator('#plan-treatments').getByLabel('Mesh tubes', { exact: true }).isDisabled(),
    ).toBe(true)
    expect(inputOf(drone).treatments).toEqual({ vegetationControl: 'RELEASE_2YR' })
    expect(drone.status()).toBe(200)
    await page.locator('#method').selectOption('manual')
    await page.waitForResponse(isPlan)
    await page.locator('#plan-treatments').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-2-treatments')
  })

  it('sends the costs given, checks them first, and labels them given', async () => {
    await page.locator('#plan-costs summary').click()
    const tubes = page.getByLabel('Tube, installed ($/tree)', { exact: true })
    await tubes.fill('-1')
    const before = asked.length
    await page.getByRole('button', { name: 'Plan', exact: true }).click()
    await expect.poll(() => page.locator('#plan-error').isVisible()).toBe(true)
    expect(await page.locator('#plan-error').textContent()).toContain('Tube, installed')
    expect(await tubes.getAttribute('aria-invalid')).toBe('true')
    expect(asked.length).toBe(before)
    await tubes.fill('2.9')
    await page.getByLabel('Seedlings ($/tree)', { exact: true }).fill('0.5')
    const next = page.waitForResponse(isPlan)
    await page.getByRole('button', { name: 'Plan', exact: true }).click()
    const response = await next
    expect(inputOf(response).costs).toEqual({
      seedlings: [{ speciesCode: 'PSME', perTree: 0.5 }],
      tubesPerTree: 2.9,
    })
    const plan = await dataOf<PlanAnswer>(response, 'stockingPlan')
    expect(plan.cost.parts.filter((p) => p.status === 'GIVEN').map((p) => p.item)).toEqual([
      'seedlings',
      'tubes',
    ])
    await expect.poll(() => page.locator('#plan-cost-body').textContent()).toContain('given')
    await page.locator('#plan-costs').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-3-costs')
    // Back to the defaults and no treatment, for the options.
    for (const field of ['Tube, installed ($/tree)', 'Seedlings ($/tree)'])
      await page.getByLabel(field, { exact: true }).fill('')
  })

  it('finds the options: a table sorted by cost, the cheapest failing option, and the chart', async () => {
    const found = page.waitForResponse(isOptions)
    await page.getByRole('tab', { name: 'Options' }).click()
    const response = await found
    const input = inputOf(response)
    expect(input).toMatchObject({ speciesMix: [{ speciesCode: 'PSME', share: 1 }], confidence: 0.9 })
    for (const absent of ['plantingMethod', 'treesPerAcre', 'treatments', 'costs'])
      expect(input[absent], absent).toBeUndefined()
    const answer = await dataOf<OptionsAnswer>(response, 'plantingOptions')
    expect(answer.options.length).toBeGreaterThan(1)
    expect(await page.locator('#plan-result').isVisible()).toBe(false)

    // The table: the first ten, cheapest first; "Show all" lists every option.
    const rows = page.locator('#plan-options-body tr')
    await expect.poll(() => rows.count()).toBe(Math.min(10, answer.options.length))
    const costs = async () =>
      await rows.evaluateAll((trs) => trs.map((tr) => Number((tr as HTMLElement).dataset.costPerAcre)))
    expect(await costs()).toEqual([...(await costs())].sort((a, b) => a - b))
    if (answer.options.length > 10) {
      await page.getByRole('button', { name: `Show all ${answer.options.length} options` }).click()
      expect(await rows.count()).toBe(answer.options.length)
      expect(await costs()).toEqual(answer.options.map((o) => o.cost.perAcre))
    }
    const cheapest = answer.options[0]
    if (!cheapest) throw new Error('no option')
    const firstRow = await rows.first().locator('td').allTextContents()
    expect(firstRow[0]).toMatch(cheapest.plantingMethod === 'MANUAL' ? /^Hand planting/ : /^Drone seeding/)
    // Its cost per acre, with the cost per established tree (and its interval) under it.
    const costCell = rows.first().locator('td').nth(3)
    expect(await costCell.evaluate((td) => td.firstChild?.textContent)).toBe(usd(cheapest.cost.perAcre))
    expect(await costCell.locator('small').textContent()).toMatch(
      /^\$\d+\.\d\d\/tree \(\d+\.\d\d–\d+\.\d\d\)$/,
    )
    expect(await page.locator('#plan-options-summary').textContent()).toContain(
      `${answer.options.length} of ${answer.candidates} ways to plant meet the standard`,
    )

    // The chart: one dot per option, the confidence line, the cheapest failing one when there is one.
    const chart = page.locator('#plan-options-chart')
    expect(await chart.locator('svg').count()).toBeGreaterThan(0)
    expect(await chart.locator('g[aria-description="option"] circle').count()).toBe(answer.options.length)
    expect(await chart.locator('g[aria-description="confidence line"] line').count()).toBe(1)
    expect(await chart.textContent()).toContain('90% confidence')
    expect(await chart.locator('g[aria-description="failing option"] path').count()).toBe(
      answer.cheapestFailing ? 1 : 0,
    )
    expect(await page.locator('#plan-options-failing').isVisible()).toBe(answer.cheapestFailing !== null)
    await page.locator('#plan-view-options').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-4-options')
    await page.locator('#plan-options-table').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-4-options-table')
  })

  it('names the cheapest failing option and its shortfall at a high confidence', async () => {
    await page.getByLabel('Confidence (%)', { exact: true }).fill('99')
    const found = page.waitForResponse(isOptions)
    await page.getByRole('button', { name: 'Find options' }).click()
    const answer = await dataOf<OptionsAnswer>(await found, 'plantingOptions')
    expect(answer.confidence).toBe(0.99)
    if (answer.cheapestFailing) {
      const text = await page.locator('#plan-options-failing').textContent()
      expect(text).toContain('Cheapest failing:')
      expect(text).toContain(`${(answer.cheapestFailing.shortfall * 100).toFixed(1)} points short of 99%`)
      await expect
        .poll(() => page.locator('#plan-options-chart g[aria-description="failing option"] path').count())
        .toBe(1)
    }
    await page.locator('#plan-view-options').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-5-high-confidence')
  })

  it('weighs only the methods and treatment values ticked, and asks for one of each', async () => {
    await page.getByLabel('Confidence (%)', { exact: true }).fill('90')
    const weigh = page.locator('#options-weigh')
    await weigh.getByLabel('Drone seeding').uncheck()
    for (const value of ['None', 'Site preparation', 'One release', 'Site prep + one release'])
      await page.locator('#options-weigh-vegetationControl').getByLabel(value, { exact: true }).uncheck()
    await page.locator('#options-weigh-stockType').getByLabel('Container').check()
    expect(await page.locator('#plan-options-status').textContent()).toContain('Inputs changed')
    const found = page.waitForResponse(isOptions)
    await page.getByRole('button', { name: 'Find options' }).click()
    const response = await found
    expect(inputOf(response)).toMatchObject({
      methods: ['MANUAL'],
      treatments: { vegetationControl: ['RELEASE_2YR', 'SITE_PREP_RELEASE_2YR'], stockType: ['CONTAINER'] },
    })
    const answer = await dataOf<OptionsAnswer>(response, 'plantingOptions')
    // Two vegetation values × tubes or not × shade or not, container stock, hand planting only.
    expect(answer.candidates).toBe(8)
    expect(answer.options.every((o) => o.plantingMethod === 'MANUAL')).toBe(true)
    await page.locator('#options-weigh').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-6-weigh')

    // Nothing ticked under a method: no request, and the view says why.
    await weigh.getByLabel('Hand planting').uncheck()
    const before = asked.length
    await page.getByRole('button', { name: 'Find options' }).click()
    await expect.poll(() => page.locator('#options-weigh-error').isVisible()).toBe(true)
    expect(await page.locator('#options-weigh-error').textContent()).toContain(
      'Tick at least one under “Methods”',
    )
    expect(asked.length).toBe(before)

    // Back to the defaults: nothing is sent, so the server weighs everything.
    await weigh.getByLabel('Hand planting').check()
    await weigh.getByLabel('Drone seeding').check()
    for (const value of ['None', 'Site preparation', 'One release', 'Site prep + one release'])
      await page.locator('#options-weigh-vegetationControl').getByLabel(value, { exact: true }).check()
    await page.locator('#options-weigh-stockType').getByLabel('Container').uncheck()
    const again = page.waitForResponse(isOptions)
    await page.getByRole('button', { name: 'Find options' }).click()
    const input = inputOf(await again)
    expect(input.methods).toBeUndefined()
    expect(input.treatments).toBeUndefined()
    expect(await page.locator('#options-weigh-error').isVisible()).toBe(false)
  })

  it('fits a phone’s screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByLabel('Confidence (%)', { exact: true }).fill('90')
    const found = page.waitForResponse(isOptions)
    await page.getByRole('button', { name: 'Find options' }).click()
    await found
    await expect.poll(() => page.locator('#plan-options-body tr').count()).toBeGreaterThan(0)
    await page.locator('#plan-options-chart').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-7-phone')
    await page.locator('#plan-options-table').evaluate((node) => node.scrollIntoView({ block: 'start' }))
    await shoot('options-7-phone-table')
    expect(await elementsWiderThan(page, 390)).toEqual([])
    expect(session.consoleErrors).toEqual([])
    expect(session.blocked).toEqual([])
  })
})
