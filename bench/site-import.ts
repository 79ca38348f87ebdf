/**
 * `npm run bench:sites`: `npm run sites -- import` end to end at scale. For each format a file of
 * BENCH_SITE_ROWS (1,000,000) distinct sites is written (streamed from the synthetic generator), then
 * imported by the sites CLI into a fresh, migrated database: read, checked, loaded, indexed and kept
 * as a version. Prints the wall time and the CLI's peak RSS (GNU time's maximum resident set size)
 * against the targets: ≤ 90 s and ≤ 400 MB per import.
 *
 * Env: BENCH_SITE_ROWS (1000000), BENCH_SITE_IMPORT_FORMATS (csv,geojson), BENCH_ADMIN_DATABASE_URL.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import { generateSites } from '../src/seed/generate-sites.ts'
import { writeSiteFile } from '../src/site-files/site-writers.ts'
import { manySites } from '../test/support/many-sites.ts'
import { createDatabase, ROOT } from './support.ts'

const ROWS = Number(process.env.BENCH_SITE_ROWS ?? 1_000_000)
const FORMATS = (process.env.BENCH_SITE_IMPORT_FORMATS ?? 'csv,geojson').split(',').map((f) => f.trim())
const TARGET_SECONDS = 90
const TARGET_MB = 400

interface Measured {
  format: string
  fileMb: number
  seconds: number
  peakMb: number
  loaded: number
}

async function measure(format: string, dir: string): Promise<Measured> {
  const file = join(dir, `sites.${format}`)
  await writeSiteFile(manySites(generateSites(), ROWS), file)
  const database = await createDatabase('bench_site_import')
  try {
    const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 2 })
    try {
      await migrate(db.sql)
    } finally {
      await db.close()
    }
    const timeLog = join(dir, `${format}.time`)
    const started = performance.now()
    const output = execFileSync(
      '/usr/bin/time',
      [
        '-v',
        '-o',
        timeLog,
        process.execPath,
        '--import',
        'tsx',
        'src/cli/sites.ts',
        'import',
        file,
        '--json',
        '--no-progress',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    )
    const seconds = (performance.now() - started) / 1000
    const peakKb = Number(
      /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeLog, 'utf8'))?.[1] ?? Number.NaN,
    )
    const report = JSON.parse(output) as Record<string, unknown>
    return {
      format,
      fileMb: statSync(file).size / 2 ** 20,
      seconds,
      peakMb: peakKb / 1024,
      loaded: Number(report.rows_loaded ?? Number.NaN),
    }
  } finally {
    await database.drop()
    rmSync(file, { force: true })
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-site-import-'))
  console.log(
    `npm run sites -- import: ${ROWS.toLocaleString('en-US')} sites a format, into a fresh database`,
  )
  let failed = false
  try {
    for (const format of FORMATS) {
      const m = await measure(format, dir)
      const pass = m.seconds <= TARGET_SECONDS && m.peakMb <= TARGET_MB && m.loaded === ROWS
      failed ||= !pass
      console.log(
        `  ${pass ? 'PASS' : 'FAIL'}  ${m.format.padEnd(8)} ${m.fileMb.toFixed(0).padStart(5)} MB file: ` +
          `${m.seconds.toFixed(1)} s (≤ ${TARGET_SECONDS} s), peak RSS ${m.peakMb.toFixed(0)} MB (≤ ${TARGET_MB} MB), ` +
          `${m.loaded.toLocaleString('en-US')} rows loaded`,
      )
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  if (failed) process.exitCode = 1
}

await main()
