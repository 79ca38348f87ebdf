/**
 * Site data files at scale: for each format, a million sites written to a temporary file (streamed from a
 * generator), then read and checked row by row (src/site-files). Prints the time of each step, the
 * rate, the file's size and how far RSS rose over the process's baseline. Each format runs in a process
 * of its own, so one format's garbage does not count against the next.
 *
 *   npx tsx bench/site-files.ts
 *
 * BENCH_SITE_ROWS (1000000) rows; BENCH_SITE_FORMATS (csv,ndjson,geojson,gpkg) which formats.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { generateSites } from '../src/seed/generate-sites.ts'
import { readSiteFile } from '../src/site-files/site-readers.ts'
import { SiteValidator } from '../src/site-files/site-validation.ts'
import { writeSiteFile } from '../src/site-files/site-writers.ts'
import type { Site } from '../src/types.ts'
import { manySites } from '../test/support/many-sites.ts'

const ROWS = Number(process.env.BENCH_SITE_ROWS ?? 1_000_000)
const FORMATS = (process.env.BENCH_SITE_FORMATS ?? 'csv,ndjson,geojson,gpkg').split(',').map((f) => f.trim())
const EXTENSIONS: Record<string, string> = { csv: 'csv', ndjson: 'ndjson', geojson: 'geojson', gpkg: 'gpkg' }

interface Result {
  format: string
  rows: number
  bytes: number
  writeSeconds: number
  readSeconds: number
  baselineMb: number
  writePeakMb: number
  readPeakMb: number
  accepted: number
}

async function runOne(format: string): Promise<Result> {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const dir = mkdtempSync(join(tmpdir(), 'bench-site-files-'))
  try {
    const path = join(dir, `sites.${EXTENSIONS[format] ?? format}`)
    const base = generateSites()
    gc()
    const baseline = process.memoryUsage().rss
    let peak = baseline
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }
    function* sampled(): Generator<Site> {
      let count = 0
      for (const site of manySites(base, ROWS)) {
        if (++count % 10_000 === 0) sample()
        yield site
      }
    }
    let started = performance.now()
    await writeSiteFile(sampled(), path)
    const writeSeconds = (performance.now() - started) / 1000
    const writePeak = peak
    gc()
    peak = process.memoryUsage().rss
    const validator = new SiteValidator({ name: path })
    started = performance.now()
    let rows = 0
    for await (const _ of validator.validate(readSiteFile(path))) if (++rows % 10_000 === 0) sample()
    const readSeconds = (performance.now() - started) / 1000
    return {
      format,
      rows,
      bytes: statSync(path).size,
      writeSeconds,
      readSeconds,
      baselineMb: baseline / 2 ** 20,
      writePeakMb: (writePeak - baseline) / 2 ** 20,
      readPeakMb: (peak - baseline) / 2 ** 20,
      accepted: validator.summary().accepted,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const one = process.env.BENCH_SITE_ONE
  if (one) {
    process.stdout.write(JSON.stringify(await runOne(one)))
    return
  }
  console.log(`site files: ${ROWS.toLocaleString('en-US')} rows a format (written, then read and checked)`)
  console.log(
    'format   | file MB | write s | rows/s write | read+check s | rows/s read | RSS base | + write | + read',
  )
  for (const format of FORMATS) {
    const output = execFileSync(process.execPath, [...process.execArgv, process.argv[1] as string], {
      env: { ...process.env, BENCH_SITE_ONE: format },
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    })
    const r = JSON.parse(output) as Result
    const cells = [
      r.format.padEnd(8),
      (r.bytes / 2 ** 20).toFixed(0).padStart(7),
      r.writeSeconds.toFixed(1).padStart(7),
      Math.round(r.rows / r.writeSeconds)
        .toLocaleString('en-US')
        .padStart(12),
      r.readSeconds.toFixed(1).padStart(12),
      Math.round(r.rows / r.readSeconds)
        .toLocaleString('en-US')
        .padStart(11),
      `${r.baselineMb.toFixed(0)} MB`.padStart(8),
      `${r.writePeakMb.toFixed(0)} MB`.padStart(7),
      `${r.readPeakMb.toFixed(0)} MB`.padStart(6),
    ]
    console.log(cells.join(' | '))
    if (r.rows !== ROWS) throw new Error(`${r.format}: read ${r.rows} rows of ${ROWS}`)
  }
}

await main()
