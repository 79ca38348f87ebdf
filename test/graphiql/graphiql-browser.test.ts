import type { Browser, BrowserContext, Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { staysOnLoopback } from './loopback.ts'

const SCREENSHOT = '/tmp/graphiql.png'

/** The X-API-Key GraphiQL's Headers tab opens with when the server has no demo key. */
const DEFAULT_HEADERS_KEY = 'tsp_live_your_key_here'

/** Monaco renders spaces as U+00A0; normalize so text assertions read naturally. */
const editorText = (text: string | null) => (text ?? '').replace(/\u00a0/g, ' ')

const isGraphQLPost = (response: Response, url: string) =>
  response.url() === `${url}/graphql` && response.request().method() === 'POST'

const isIntrospection = (body: string | null) => body?.includes('__schema') ?? false

describe('GraphiQL in a real browser (offline)', () => {
  let database: TestDatabase
  let server: TestServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let apiKey: string
  /** Every URL the page (or its workers) asked for, in order. */
  const requested: string[] = []
  /** Requests the route blocked because they would have left the machine. */
  const blocked: string[] = []
  /** X-API-Key values the server saw on introspection requests (after the route removed any). */
  const introspectionKeys: (string | undefined)[] = []

  beforeAll(async () => {
    database = await createSeededDatabase()
    apiKey = (await issueKey(database, 'mycel')).key
    server = await startTestServer({ database, graphiql: true })
    browser = await launchChromium()
    context = await browser.newContext({ viewport: { width: 1600, height: 1000 } })
    context.on('request', (request) => requested.push(request.url()))
    await context.route('**/*', async (route) => {
      const request = route.request()
      if (!staysOnLoopback(request.url())) {
        blocked.push(request.url())
        return route.abort('blockedbyclient')
      }
      // Schema introspection goes out with no key at all: docs must load before anyone has one.
      if (request.method() === 'POST' && isIntrospection(request.postData())) {
        const { 'x-api-key': _dropped, ...headers } = request.headers()
        introspectionKeys.push(headers['x-api-key'])
        return route.continue({ headers })
      }
      return route.continue()
    })
    page = await context.newPage()
    page.setDefaultTimeout(20_000)
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await database?.drop()
  })

  it('serves a self-contained GraphiQL page with the schema loaded without a key', async () => {
    const introspection = page.waitForResponse(
      (response) => isGraphQLPost(response, server.url) && isIntrospection(response.request().postData()),
    )
    const landing = await page.goto(`${server.url}/graphql`, { waitUntil: 'load' })
    expect(landing?.status()).toBe(200)
    expect(landing?.headers()['content-type']).toMatch(/^text\/html/)
    expect(await page.title()).toBe('Survival Prediction API')

    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor .view-lines')
    await queryEditor.waitFor({ state: 'visible' })
    await expect.poll(async () => editorText(await queryEditor.textContent())).toContain('query Example {')

    const schemaResponse = await introspection
    expect(schemaResponse.status()).toBe(200)
    const schema = (await schemaResponse.json()) as { data?: { __schema?: unknown }; errors?: unknown }
    expect(schema.errors).toBeUndefined()
    expect(schema.data?.__schema).toBeTruthy()
    expect(introspectionKeys.length).toBeGreaterThan(0)
    expect(introspectionKeys.every((key) => key === undefined)).toBe(true)

    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click()
    const docs = page.locator('.graphiql-doc-explorer')
    await docs.getByRole('link', { name: 'Query' }).click()
    await docs.getByRole('link', { name: 'predict', exact: true }).waitFor({ state: 'visible' })
  })

  it('runs the example prediction with the key from the Headers tab and shows survivalProbability', async () => {
    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click()
    const headersEditor = page.locator(
      'section.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor',
    )
    await headersEditor.click()
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.press('Delete')
    const headers = `{"X-API-Key": "${apiKey}"}`
    await page.keyboard.insertText(headers)
    await expect
      .poll(async () => editorText(await headersEditor.locator('.view-lines').textContent()))
      .toBe(headers)

    const prediction = page.waitForResponse(
      (response) =>
        isGraphQLPost(response, server.url) && (response.request().postData()?.includes('predict(') ?? false),
    )
    await page.getByRole('button', { name: /^Execute query/ }).click()
    const response = await prediction
    expect(response.request().headers()['x-api-key']).toBe(apiKey)
    expect(response.status()).toBe(200)
    const body = (await response.json()) as {
      data?: { predict?: { predictions: { horizonYears: number; survivalProbability: number }[] } }
      errors?: unknown
    }
    expect(body.errors).toBeUndefined()
    const predictions = body.data?.predict?.predictions ?? []
    expect(predictions.length).toBeGreaterThan(0)
    for (const { survivalProbability } of predictions) {
      expect(survivalProbability).toBeGreaterThanOrEqual(0)
      expect(survivalProbability).toBeLessThanOrEqual(1)
    }

    const resultPane = page.locator('.graphiql-response .result-window .view-lines')
    await expect
      .poll(async () => editorText(await resultPane.textContent()))
      .toMatch(/"survivalProbability": (0(\.\d+)?|1(\.0+)?)/)
    expect(editorText(await resultPane.textContent())).not.toContain('"errors"')

    await page.screenshot({ path: SCREENSHOT })
  })

  it('keeps no trace of the typed key: nothing in the browser storage, and a reload shows the default headers', async () => {
    // The previous test typed the key into the Headers tab and ran a query with it.
    const stored = () =>
      page.evaluate(() =>
        [localStorage, sessionStorage].flatMap((storage) =>
          Object.keys(storage).map((name) => `${name}=${storage.getItem(name)}`),
        ),
      )
    // GraphiQL saves its tabs half a second after a change, with their headers only when told to
    // persist them: wait until the saved tab no longer holds the headers the page opened with.
    await expect
      .poll(async () => (await stored()).find((entry) => entry.startsWith('graphiql:tabState=')), {
        timeout: 10_000,
      })
      .not.toContain(DEFAULT_HEADERS_KEY)
    expect((await stored()).filter((entry) => entry.includes(apiKey))).toEqual([])

    await page.reload({ waitUntil: 'load' })
    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click()
    const headersText = page.locator(
      'section.graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor .view-lines',
    )
    await expect.poll(async () => editorText(await headersText.textContent())).toContain(DEFAULT_HEADERS_KEY)
    expect(editorText(await headersText.textContent())).not.toContain(apiKey)
    expect((await stored()).filter((entry) => entry.includes(apiKey))).toEqual([])
  })

  it('made no request that left the machine', () => {
    expect(requested.length).toBeGreaterThan(0)
    expect(blocked).toEqual([])
    expect(requested.filter((url) => !staysOnLoopback(url))).toEqual([])
  })
})
