import { beforeAll, describe, expect, it } from 'vitest'
import { databaseForBlock, ENGINES } from '../../test/support/database.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { seedAll } from '../seed/seed-all.ts'
import type { Site } from '../types.ts'
import type { Database } from './connect.ts'
import {
  abandonSiteImport,
  activateSiteVersion,
  activeSiteVersion,
  beginSiteImport,
  dropSiteVersion,
  dropStaleImports,
  finishSiteImport,
  insertSites,
  listSiteVersions,
  rollbackSiteVersion,
  SiteContentHash,
  SiteVersionError,
} from './site-data-versions.ts'
import { findNearestSites, siteRevision } from './sites.ts'

/** Site data versions: the same SQL on PostgreSQL and on embedded PGlite. */
const SYNTHETIC = generateSites()

/** An import of `sites` (ids renumbered from 1), finished: its version. */
async function imported(sql: Database['sql'], sites: readonly Site[], source = 'test.csv') {
  const hash = new SiteContentHash()
  const staging = await beginSiteImport(sql, source)
  const rows = sites.map((site, i) => ({ ...site, id: i + 1 }))
  for (const site of rows) hash.add(site)
  await insertSites(sql, staging, rows)
  return finishSiteImport(sql, staging, hash.finish(), { source, defaults: { browse_pressure_index: 2 } })
}

describe.each(ENGINES)('site data versions (%s)', (name, open) => {
  const database = databaseForBlock(open, (db) => seedAll(db.sql))
  let db: Database
  beforeAll(() => {
    db = database()
  })

  it('seeds the synthetic sites as the active version, and seeding again changes nothing', async () => {
    const [synthetic] = await listSiteVersions(db.sql)
    expect(synthetic).toMatchObject({ active: true, rowCount: SYNTHETIC.length })
    expect(synthetic?.version).toMatch(/^sites_[0-9a-f]{12}$/)
    const [{ version } = { version: null }] = await db.sql<{ version: string }[]>`
      SELECT data_version AS version FROM site_revision`
    expect(version).toBe(synthetic?.version)
    const revision = await siteRevision(db.sql)
    await seedAll(db.sql)
    expect(await siteRevision(db.sql)).toBe(revision)
    expect(await listSiteVersions(db.sql)).toHaveLength(1)
  })

  it('imports a version beside it, activates it for every query, rolls back and drops', async () => {
    const synthetic = (await activeSiteVersion(db.sql))?.version as string
    // The coast range's sites with their elevation raised by 100 m: another data set.
    const changed = SYNTHETIC.slice(0, 500).map((site) => ({ ...site, elevationM: site.elevationM + 100 }))
    const { version, created } = await imported(db.sql, changed)
    expect(created).toBe(true)
    expect(version).toMatchObject({
      rowCount: 500,
      source: 'test.csv',
      active: false,
      defaults: { browse_pressure_index: 2 },
    })
    expect(version.bounds?.[0]).toBeLessThan(version.bounds?.[2] as number)
    // The same rows again: the same version, kept once.
    expect((await imported(db.sql, changed)).created).toBe(false)

    const probe = SYNTHETIC[10] as Site
    const before = await findNearestSites(db.sql, [probe], 10)
    expect(before.nearest[0]?.site.elevationM).toBe(probe.elevationM)
    await activateSiteVersion(db.sql, version.version)
    const after = await findNearestSites(db.sql, [probe], 10)
    expect(after.revision).not.toBe(before.revision)
    expect(after.nearest[0]?.site.elevationM).toBe(probe.elevationM + 100)
    expect((await activeSiteVersion(db.sql))?.version).toBe(version.version)

    await expect(dropSiteVersion(db.sql, version.version)).rejects.toThrow(SiteVersionError)
    expect((await rollbackSiteVersion(db.sql)).version).toBe(synthetic)
    expect((await findNearestSites(db.sql, [probe], 10)).nearest[0]?.site.elevationM).toBe(probe.elevationM)
    await dropSiteVersion(db.sql, version.version)
    expect((await listSiteVersions(db.sql)).map((v) => v.version)).toEqual([synthetic])
    await expect(activateSiteVersion(db.sql, 'sites_000000000000')).rejects.toThrow(/no site data version/)
    await expect(activateSiteVersion(db.sql, 'pg_class')).rejects.toThrow(/not a site data version name/)
  })

  it('cleans up an import whose process died, and one given up', async () => {
    const staging = await beginSiteImport(db.sql, 'killed.csv')
    await insertSites(db.sql, staging, SYNTHETIC.slice(0, 10))
    expect(await dropStaleImports(db.sql)).toBe(0)
    expect(await dropStaleImports(db.sql, new Date(Date.now() + 61_000))).toBe(1)
    const [table] = await db.sql`SELECT 1 FROM pg_class WHERE relname = ${staging}`
    expect(table).toBeUndefined()
    const given = await beginSiteImport(db.sql, 'given-up.csv')
    await abandonSiteImport(db.sql, given)
    expect(await db.sql`SELECT * FROM site_data_imports`).toHaveLength(0)
  })

  it('keeps an import whose lock is held, and drops it as soon as its holder is gone', async () => {
    const staging = await beginSiteImport(db.sql, 'held.csv')
    await insertSites(db.sql, staging, SYNTHETIC.slice(0, 10))
    expect(await dropStaleImports(db.sql)).toBe(0)
    expect(await listSiteVersions(db.sql)).toHaveLength(1)
    expect(await db.sql`SELECT 1 FROM site_data_imports WHERE staging = ${staging}`).toHaveLength(1)
    if (name === 'PostgreSQL') {
      // The lock's connection ends, as a killed process's do: no minute's wait.
      const [holder] = await db.sql<{ pid: number }[]>`
        SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext(${staging})::oid`
      await db.sql`SELECT pg_terminate_backend(${holder?.pid as number})`
      await expect
        .poll(() => db.sql`SELECT 1 FROM pg_locks WHERE pid = ${holder?.pid as number}`.then((r) => r.length))
        .toBe(0)
      expect(await dropStaleImports(db.sql)).toBe(1)
      expect(await db.sql`SELECT 1 FROM pg_class WHERE relname = ${staging}`).toHaveLength(0)
    } else {
      await abandonSiteImport(db.sql, staging)
    }
    expect(await db.sql`SELECT * FROM site_data_imports`).toHaveLength(0)
  })
})
