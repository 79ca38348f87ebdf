/**
 * What the job benchmarks send and how they follow a job: portfolio files written to disk (CSV rows, GeoJSON
 * point features, GeoJSON stands) and a job run end to end — streamed up, polled until it ends, its results
 * streamed down and counted. Used by `npm run bench:jobs` (jobs.ts) and `npm run bench:soak` (soak.ts).
 */
import { once } from 'node:events'
import { createReadStream, createWriteStream, statSync } from 'node:fs'
import { Readable } from 'node:stream'
import { SPECIES } from '../src/domain/species.ts'

export interface Site {
  latitude: number
  longitude: number
}

/** The portfolio's rows: the seeded sites in turn, each moved by up to ~300 m, every species and method. */
export function* portfolioRows(sites: readonly Site[], rows: number) {
  let seed = 12_345
  const jitter = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return (seed / 2 ** 31 - 0.5) * 0.006
  }
  for (let row = 1; row <= rows; row++) {
    const site = sites[row % sites.length] as Site
    yield {
      row,
      species: SPECIES[row % SPECIES.length]?.code,
      method: row % 2 ? 'manual' : 'drone_seeded',
      latitude: (site.latitude + jitter()).toFixed(5),
      longitude: (site.longitude + jitter()).toFixed(5),
    }
  }
}

/** Writes `head`, the texts in 64 KiB batches (waiting for the file to drain), then `tail`; returns the size. */
export async function writeFile(
  path: string,
  head: string,
  texts: Iterable<string>,
  tail = '',
): Promise<number> {
  const out = createWriteStream(path)
  out.write(head)
  let batch = ''
  for (const text of texts) {
    batch += text
    if (batch.length > 1 << 16) {
      if (!out.write(batch)) await once(out, 'drain')
      batch = ''
    }
  }
  out.end(batch + tail)
  await once(out, 'finish')
  return statSync(path).size
}

/** Writes the upload as CSV. */
export function writePortfolio(path: string, sites: readonly Site[], rows: number): Promise<number> {
  return writeFile(
    path,
    'id,latitude,longitude,species_code,planting_method\n',
    (function* () {
      for (const r of portfolioRows(sites, rows))
        yield `p${r.row},${r.latitude},${r.longitude},${r.species},${r.method}\n`
    })(),
  )
}

/** The same points as writePortfolio, as GeoJSON Point features (species and method in properties). */
export function writePointCollection(path: string, sites: readonly Site[], rows: number): Promise<number> {
  return writeFile(
    path,
    '{"type":"FeatureCollection","features":[\n',
    (function* () {
      for (const r of portfolioRows(sites, rows))
        yield `${r.row > 1 ? ',\n' : ''}{"type":"Feature","id":"p${r.row}","geometry":{"type":"Point","coordinates":[${r.longitude},${r.latitude}]},"properties":{"species_code":"${r.species}","planting_method":"${r.method}"}}`
    })(),
    '\n]}\n',
  )
}

/**
 * Stands of 10–500 ha (squares, turned and stretched a little) around the seeded sites in turn, with a
 * few mixes; method and density come from the query string.
 */
export function writeStandCollection(path: string, sites: readonly Site[], stands: number): Promise<number> {
  const mixes = [
    '[{"species_code":"PSME","share":1}]',
    '[{"species_code":"PSME","share":0.8},{"species_code":"THPL","share":0.2}]',
    '[{"species_code":"PIPO","share":0.7},{"species_code":"PSME","share":0.3}]',
    '[{"species_code":"PSME","share":0.6},{"species_code":"ALRU","share":0.4}]',
  ]
  let seed = 54_321
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed / 2 ** 31
  }
  function* features() {
    for (let n = 1; n <= stands; n++) {
      const site = sites[(n * 7919) % sites.length] as Site
      const hectares = 10 + random() * 490
      const halfSideM = Math.sqrt(hectares * 10_000) / 2
      const angle = random() * Math.PI
      const stretch = 0.7 + random() * 0.6
      const corners = [
        [-1, -1],
        [1, -1],
        [1, 1],
        [-1, 1],
        [-1, -1],
      ].map(([x = 0, y = 0]) => {
        const dx = x * halfSideM * stretch
        const dy = (y * halfSideM) / stretch
        const east = dx * Math.cos(angle) - dy * Math.sin(angle)
        const north = dx * Math.sin(angle) + dy * Math.cos(angle)
        const lat = site.latitude + north / 111_195
        const lon = site.longitude + east / (111_195 * Math.cos((site.latitude * Math.PI) / 180))
        return `[${lon.toFixed(6)},${lat.toFixed(6)}]`
      })
      yield `${n > 1 ? ',\n' : ''}{"type":"Feature","id":"s${n}","geometry":{"type":"Polygon","coordinates":[[${corners.join(',')}]]},"properties":{"species_mix":${mixes[n % mixes.length]}}}`
    }
  }
  return writeFile(path, '{"type":"FeatureCollection","features":[\n', features(), '\n]}\n')
}

export interface JobRun {
  id: string
  uploadMs: number
  queuedToDoneMs: number
  scoringMs: number
  downloadMs: number
  totalMs: number
  resultRows: number
  rowsFailed: number
}

export async function runJob(
  url: string,
  key: string,
  file: string,
  rows: number,
  as: { type: 'text/csv' | 'application/geo+json'; query?: string } = { type: 'text/csv' },
  /**
   * Called as the upload is accepted and as the job is seen finished (the scoring phase's window), and
   * every 10 s with the rows done.
   */
  phases: { scoring?: () => void; scored?: () => void; progress?: (message: string) => void } = {},
): Promise<JobRun> {
  const started = performance.now()
  const response = await fetch(`${url}/v1/jobs${as.query ?? ''}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': as.type },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit)
  if (response.status !== 202) throw new Error(`upload answered ${response.status}: ${await response.text()}`)
  const { id } = (await response.json()) as { id: string }
  const uploaded = performance.now()
  phases.scoring?.()
  let status: {
    status: string
    rows_done: number
    rows_failed: number
    started_at: string
    finished_at: string
  }
  let lastLog = 0
  for (;;) {
    status = (await (
      await fetch(`${url}/v1/jobs/${id}`, { headers: { 'x-api-key': key } })
    ).json()) as typeof status
    if (['succeeded', 'failed', 'cancelled'].includes(status.status)) break
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now()
      phases.progress?.(
        `  ${status.rows_done.toLocaleString('en-US')} / ${rows.toLocaleString('en-US')} rows`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  phases.scored?.()
  if (status.status !== 'succeeded') throw new Error(`job ${id} ended ${status.status}`)
  const done = performance.now()
  const results = await fetch(`${url}/v1/jobs/${id}/results`, {
    headers: { 'x-api-key': key, accept: as.type },
  })
  let lines = 0
  for await (const chunk of results.body as unknown as AsyncIterable<Uint8Array>) {
    for (const byte of chunk) if (byte === 10) lines += 1
  }
  const finished = performance.now()
  return {
    id,
    uploadMs: uploaded - started,
    queuedToDoneMs: done - uploaded,
    scoringMs: new Date(status.finished_at).getTime() - new Date(status.started_at).getTime(),
    downloadMs: finished - done,
    totalMs: finished - started,
    // CSV: a header line; GeoJSON: the opening line and the close's two.
    resultRows: lines - (as.type === 'text/csv' ? 1 : 2),
    rowsFailed: status.rows_failed,
  }
}
