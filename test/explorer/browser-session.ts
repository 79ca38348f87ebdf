import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page, Response } from 'playwright-core'
import { staysOnLoopback } from '../graphiql/loopback.ts'
import { launchChromium } from '../support/browser.ts'

/**
 * Screenshots of each step of every explorer browser test (`plan-*.png` and `results-*.png` beside the
 * main tour's): test artefacts, kept after the run.
 */
export const ARTEFACTS =
  process.env.EXPLORER_SCREENSHOTS ?? join(import.meta.dirname, '../../.artifacts/explorer')

export type Point = { latitude: number; longitude: number }

export interface OfflinePageOptions {
  viewport: { width: number; height: number }
  acceptDownloads?: boolean
  /** The browser's language (navigator.language, Accept-Language), e.g. es-MX; Chromium's own by default. */
  locale?: string
  /** Called with every response of every watched page. */
  onResponse?: (response: Response) => void
  /** An error answer asked for on purpose, by its URL: neither recorded nor its console line. */
  isExpectedError?: (url: string) => boolean
}

export interface OfflineSession {
  browser: Browser
  context: BrowserContext
  /** The first page, watched, its default timeout 20 s. */
  page: Page
  /** Requests that would have left the machine, aborted. */
  blocked: string[]
  consoleErrors: string[]
  failedRequests: string[]
  /** Answers of 400 or more. */
  errorResponses: string[]
  /** Records a page's console errors, page errors, failed requests and error answers with the rest. */
  watch(page: Page): void
  close(): Promise<void>
}

/**
 * Chromium with one context whose requests may not leave this machine (any that would is aborted and
 * recorded in `blocked`), and a first page, watched.
 */
export async function openOfflinePage(options: OfflinePageOptions): Promise<OfflineSession> {
  const { viewport, acceptDownloads, locale, onResponse, isExpectedError } = options
  const blocked: string[] = []
  const consoleErrors: string[] = []
  const failedRequests: string[] = []
  const errorResponses: string[] = []

  function watch(target: Page): void {
    target.on('console', (message) => {
      // Chromium logs every answer of 400 or more, the expected ones too.
      if (message.type() === 'error' && !isExpectedError?.(message.location().url || 'http://x/'))
        consoleErrors.push(message.text())
    })
    target.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`))
    target.on('requestfailed', (request) =>
      failedRequests.push(`${request.url()}: ${request.failure()?.errorText}`),
    )
    target.on('response', (response) => {
      if (response.status() >= 400 && !isExpectedError?.(response.url()))
        errorResponses.push(`${response.status()} ${response.url()}`)
      onResponse?.(response)
    })
  }

  const browser = await launchChromium()
  try {
    const context = await browser.newContext({
      viewport,
      ...(acceptDownloads === undefined ? {} : { acceptDownloads }),
      ...(locale === undefined ? {} : { locale }),
    })
    await context.route('**/*', async (route) => {
      if (staysOnLoopback(route.request().url())) return route.continue()
      blocked.push(route.request().url())
      return route.abort('blockedbyclient')
    })
    const page = await context.newPage()
    page.setDefaultTimeout(20_000)
    watch(page)
    return {
      browser,
      context,
      page,
      blocked,
      consoleErrors,
      failedRequests,
      errorResponses,
      watch,
      close: () => browser.close(),
    }
  } catch (error) {
    await browser.close()
    throw error
  }
}

/**
 * Screenshots into ARTEFACTS, of `page()` unless another page is given. A getter, since the page is
 * opened in `beforeAll`, after the helpers are made.
 */
export function screenshotter(page: () => Page) {
  mkdirSync(ARTEFACTS, { recursive: true })
  return {
    /** The screen as it is. */
    shoot: (name: string, target: Page = page()) =>
      target.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: false }),
    /** One region of the page, whole, however far it reaches below the screen. */
    shootRegion: (name: string, selector: string, target: Page = page()) =>
      target.locator(selector).screenshot({ path: join(ARTEFACTS, `${name}.png`) }),
  }
}

/** Where a point is in the map's box: Web Mercator between the bounds the page publishes. */
export async function pixelOf(page: Page, point: Point): Promise<{ x: number; y: number }> {
  const map = page.locator('#map')
  const bounds = (await map.getAttribute('data-bounds'))?.split(',').map(Number)
  const box = await map.boundingBox()
  if (bounds?.length !== 4 || !box) throw new Error('the map publishes no view')
  const [south, west, north, east] = bounds as [number, number, number, number]
  const mercator = (latitude: number) => Math.log(Math.tan(Math.PI / 4 + (latitude * Math.PI) / 360))
  return {
    x: ((point.longitude - west) / (east - west)) * box.width,
    y: ((mercator(north) - mercator(point.latitude)) / (mercator(north) - mercator(south))) * box.height,
  }
}

export async function clickMapAt(page: Page, point: Point): Promise<void> {
  const position = await pixelOf(page, point)
  await page.locator('#map').click({ position })
}

/** True for the answer to the page's GraphQL query of that name. */
export const isOperation = (name: string) => (response: Response) =>
  response.url().endsWith('/graphql') &&
  new RegExp(`query ${name}\\b`).test(response.request().postData() ?? '')

/**
 * Drags a GeoJSON file over an element as a browser would (a DataTransfer holding it: dragenter, then
 * dragover); the function returned drops it.
 */
export async function dragFileOver(
  page: Page,
  selector: string,
  name: string,
  text: string,
): Promise<() => Promise<void>> {
  const dataTransfer = await page.evaluateHandle(
    ([fileName, content]) => {
      const transfer = new DataTransfer()
      transfer.items.add(new File([content as string], fileName as string, { type: 'application/geo+json' }))
      return transfer
    },
    [name, text],
  )
  const target = page.locator(selector)
  await target.dispatchEvent('dragenter', { dataTransfer })
  await target.dispatchEvent('dragover', { dataTransfer })
  return () => target.dispatchEvent('drop', { dataTransfer })
}

/** Drops a GeoJSON file on an element as a browser would: dragged over, then dropped. */
export async function dropFile(page: Page, selector: string, name: string, text: string): Promise<void> {
  const drop = await dragFileOver(page, selector, name, text)
  await drop()
}

/** What on the page (the map's own panes aside) reaches past `width`, the right edge of a phone's screen. */
export const elementsWiderThan = (page: Page, width: number): Promise<string[]> =>
  page.evaluate(
    (limit) =>
      [...document.querySelectorAll('body *')]
        .filter((node) => !node.closest('#map') && node.getBoundingClientRect().right > limit + 0.5)
        .map((node) => `${node.tagName.toLowerCase()}#${node.id}.${node.className}`),
    width,
  )
