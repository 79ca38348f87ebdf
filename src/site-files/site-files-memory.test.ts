import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manySites } from '../../test/support/many-sites.ts'
import { generateSites } from '../seed/generate-sites.ts'
import type { Site } from '../types.ts'
import { readSiteFile } from './site-readers.ts'
import { SiteValidator } from './site-validation.ts'
import { writeSiteFile } from './site-writers.ts'

/*
 * A million CSV rows, written on the fly to a temporary file, then read and checked row by row: the
 * process's memory must stay flat (nothing but the point keys of the duplicate check grows with the
 * rows), whatever the file's size.
 */

const ROWS = 1_000_000
/** RSS may grow this much over the baseline: the point keys (25 MB), buffers and garbage not yet collected. */
const MAX_GROWTH_BYTES = 150 * 1024 * 1024

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'site-files-memory-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('a million CSV rows', () => {
  it('are read and checked in flat memory', { timeout: 300_000 }, async () => {
    const path = join(dir, 'million.csv')
    const base = generateSites()
    expect(ROWS / base.length).toBeLessThanOrEqual(64)
    gc()
    const baseline = process.memoryUsage().rss
    let peak = baseline
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }

    // Written a site at a time from a generator: the writer streams too.
    function* sampled(): Generator<Site> {
      let count = 0
      for (const site of manySites(base, ROWS)) {
        if (++count % 25_000 === 0) sample()
        yield site
      }
    }
    const writeStarted = performance.now()
    expect((await writeSiteFile(sampled(), path)).rows).toBe(ROWS)
    const writeSeconds = (performance.now() - writeStarted) / 1000

    const validator = new SiteValidator({ name: path })
    const started = performance.now()
    let rows = 0
    let outOfOrder = 0
    for await (const checked of validator.validate(readSiteFile(path))) {
      rows += 1
      if (checked.row !== rows) outOfOrder += 1
      if (rows % 25_000 === 0) sample()
    }
    const seconds = (performance.now() - started) / 1000
    const summary = validator.summary()
    console.info(
      `site files: ${ROWS} CSV rows written in ${writeSeconds.toFixed(1)} s, read and checked in ${seconds.toFixed(1)} s; RSS ${(baseline / 2 ** 20).toFixed(0)} MB + at most ${((peak - baseline) / 2 ** 20).toFixed(0)} MB`,
    )
    expect(rows).toBe(ROWS)
    expect(outOfOrder).toBe(0)
    // A few coastal sites moved off the land by their steps are refused; everything else is accepted.
    expect(summary.accepted).toBeGreaterThan(ROWS * 0.999)
    expect(Object.keys(summary.problemsByRule)).toEqual(summary.refused > 0 ? ['outside_coverage'] : [])
    expect(summary.pointKeyBytes).toBe(2 ** 21 * 12)
    expect(peak - baseline).toBeLessThan(MAX_GROWTH_BYTES)
  })
})
