/**
 * `npm run bench:ogc`: OGC API – Features as a GIS client reads it, against the compiled server on a
 * seeded database. Measured: an items page of 1,000 `survival` features, warm (median of
 * BENCH_OGC_REPEATS calls after one warming call, each for the same page), against ≤ 150 ms; paging
 * every site at `limit=1000` by next links, features a second, against ≥ 20,000; and the first and a
 * warm page of `survival-hexagons`. Each call is timed from the request to the parsed answer.
 *
 * Env: BENCH_OGC_REPEATS (20), BENCH_ADMIN_DATABASE_URL, BENCH_REDIS_URL.
 */
import { seededDatabase } from './seeded-database.ts'
import { buildProject, type MeasuredProcess, startProjectServer } from './servers.ts'
import { deleteRedisKeys, listRedisKeys, median, REDIS_URL, randomSuffix, round } from './support.ts'

const REPEATS = Math.max(1, Number(process.env.BENCH_OGC_REPEATS ?? 20))
const TARGETS = { survivalPageMs: 150, sitesPerSecond: 20_000 } as const

type Log = (message: string) => void

interface Page {
  features: unknown[]
  numberMatched: number
  links: { rel: string; href: string }[]
}

async function timedPage(
  server: MeasuredProcess,
  key: string,
  path: string,
): Promise<{ ms: number; page: Page }> {
  const started = performance.now()
  const response = await fetch(server.url + path, { headers: { 'x-api-key': key } })
  const text = await response.text()
  const ms = performance.now() - started
  if (response.status !== 200) throw new Error(`GET ${path} → ${response.status}: ${text.slice(0, 300)}`)
  return { ms, page: JSON.parse(text) as Page }
}

async function medianOf(server: MeasuredProcess, key: string, path: string, expected: number) {
  const first = await timedPage(server, key, path)
  if (first.page.features.length !== expected)
    throw new Error(`${path}: ${first.page.features.length} features, not ${expected}`)
  const runs: number[] = []
  for (let i = 0; i < REPEATS; i++) runs.push((await timedPage(server, key, path)).ms)
  return { firstMs: round(first.ms, 1), warmMs: round(median(runs), 1) }
}

/** Every page from `path` on by next links: features and seconds. */
async function pageAll(server: MeasuredProcess, key: string, path: string) {
  const started = performance.now()
  let features = 0
  let pages = 0
  let next: string | undefined = path
  while (next) {
    const { page } = await timedPage(server, key, next)
    features += page.features.length
    pages += 1
    next = page.links.find((link) => link.rel === 'next')?.href.slice(server.url.length)
  }
  return { features, pages, seconds: (performance.now() - started) / 1000 }
}

async function main(): Promise<void> {
  const started = performance.now()
  const log: Log = (message) =>
    console.error(`[ogc ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}`)
  const database = await seededDatabase('survival_bench_ogc', log)
  const quotaKeyPrefix = `bench:${randomSuffix()}:`
  try {
    buildProject(log)
    const key = database.apiKeys[0] as string
    const server = await startProjectServer(
      'server',
      {
        databaseUrl: database.url,
        apiKey: key,
        quotaKeyPrefix,
        metricsToken: `bench-${randomSuffix()}${randomSuffix()}`,
      },
      { REDIS_URL },
      () => {},
    )
    try {
      const survival = await medianOf(server, key, '/ogc/collections/survival/items?limit=1000', 1000)
      const psme = await medianOf(
        server,
        key,
        '/ogc/collections/survival/items?limit=1000&species=PSME&method=manual&period=2071-2100&scenario=ssp585',
        1000,
      )
      log(`survival pages: ${JSON.stringify({ survival, psme })}`)
      // Twice: the first pass also reads every page's sites into PostgreSQL's cache.
      await pageAll(server, key, '/ogc/collections/sites/items?limit=1000')
      const sites = await pageAll(server, key, '/ogc/collections/sites/items?limit=1000')
      const sitesPerSecond = Math.round(sites.features / sites.seconds)
      const hexagons = await timedPage(
        server,
        key,
        '/ogc/collections/survival-hexagons/items?limit=1000&species=TSHE',
      )
      const hexagonsWarm = await timedPage(
        server,
        key,
        '/ogc/collections/survival-hexagons/items?limit=1000&species=TSHE',
      )
      console.log(
        `\nOGC API – Features, ${REPEATS} warm calls each (peak RSS ${round(server.rss.max(), 1)} MB):`,
      )
      console.log(
        `  survival, 1,000 features (every species and method): first ${survival.firstMs} ms, warm median ${survival.warmMs} ms`,
      )
      console.log(
        `  survival, 1,000 features (PSME manual, 2071-2100 ssp585): first ${psme.firstMs} ms, warm median ${psme.warmMs} ms`,
      )
      console.log(
        `  sites, every page at limit=1000: ${sites.features.toLocaleString('en-US')} features in ${sites.pages} pages, ${round(sites.seconds, 2)} s: ${sitesPerSecond.toLocaleString('en-US')} features/s`,
      )
      console.log(
        `  survival-hexagons, a map's ${hexagons.page.features.length} cells: first ${round(hexagons.ms, 1)} ms, warm ${round(hexagonsWarm.ms, 1)} ms`,
      )
      console.log('\nOGC targets (bench/ogc.ts):')
      const slowest = Math.max(survival.warmMs, psme.warmMs)
      console.log(
        `  ${slowest <= TARGETS.survivalPageMs ? 'PASS' : 'FAIL'}  a page of 1,000 survival features, warm ≤ ${TARGETS.survivalPageMs} ms: ${slowest} ms`,
      )
      console.log(
        `  ${sitesPerSecond >= TARGETS.sitesPerSecond ? 'PASS' : 'FAIL'}  paging every site at limit=1000 ≥ ${TARGETS.sitesPerSecond.toLocaleString('en-US')} features/s: ${sitesPerSecond.toLocaleString('en-US')}`,
      )
    } finally {
      server.rss.stop()
      await server.child.stop()
    }
  } finally {
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${quotaKeyPrefix}*`))
    await database.drop()
    log(`dropped database ${database.name}`)
  }
}

await main()
