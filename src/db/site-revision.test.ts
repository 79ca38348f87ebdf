import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestDatabase,
  openEmbeddedDatabase,
  release,
  type TestDatabase,
} from '../../test/support/database.ts'
import { forestSite } from '../../test/support/fakes.ts'
import { seedSites } from '../seed/load.ts'
import type { Site } from '../types.ts'
import type { Database } from './connect.ts'
import { migrate } from './migrate.ts'
import { allSites, findNearestSites, siteRevision } from './sites.ts'

/** A few sites along the Coast Range with distinct ids. */
function sites(count: number, firstId = 1): Site[] {
  return Array.from({ length: count }, (_, i) => {
    const point = { latitude: 44 + i * 0.05, longitude: -123.6 }
    return { ...forestSite(point), ...point, id: firstId + i }
  })
}

/** sql/004_site_revision.sql on either store: every kind of change to `sites` gives a new revision. */
function revisionContract(open: () => Promise<Database>) {
  let db: Database
  beforeAll(async () => {
    db = await open()
    await migrate(db.sql)
  })
  afterAll(() => release(db))

  it('changes with every insert, update, delete and truncate, and only then', async () => {
    const seen = [await siteRevision(db.sql)]
    expect(await siteRevision(db.sql)).toBe(seen[0])
    const changes = [
      () => seedSites(db.sql, sites(5)),
      () => db.sql`UPDATE sites SET slope_deg = 30 WHERE id = 2`,
      () => db.sql`DELETE FROM sites WHERE id = 3`,
      () => db.sql`TRUNCATE sites`,
    ]
    for (const change of changes) {
      await change()
      const revision = await siteRevision(db.sql)
      expect(seen).not.toContain(revision)
      seen.push(revision)
    }
    // A statement that touches no row still counts (statement-level trigger): safe, never stale.
    await db.sql`DELETE FROM sites WHERE id = -1`
    expect(seen).not.toContain(await siteRevision(db.sql))
  })

  it('a reseed with the same data writes nothing and keeps the revision; changed data changes it', async () => {
    await seedSites(db.sql, sites(8, 100))
    const before = await siteRevision(db.sql)
    expect((await seedSites(db.sql, sites(8, 100))).changed).toBe(false)
    expect(await siteRevision(db.sql)).toBe(before)
    expect((await seedSites(db.sql, sites(7, 100))).changed).toBe(true)
    expect(await siteRevision(db.sql)).not.toBe(before)
  })

  it('allSites: every site with its attributes, by id, and the revision they belong to', async () => {
    const expected = sites(6, 200).map((site) => (site.id === 205 ? { ...site, state: undefined } : site))
    await seedSites(db.sql, expected)
    const read = await allSites(db.sql)
    expect(read.revision).toBe(await siteRevision(db.sql))
    expect(read.sites).toEqual(expected)
    // The same objects a nearest lookup gives (the site cache holds both kinds side by side).
    const nearest = await findNearestSites(db.sql, read.sites, 1)
    expect(read.sites).toStrictEqual(nearest.nearest.map((match) => match?.site))
  })
}

describe('site revision on PostgreSQL', () => {
  let test: TestDatabase
  revisionContract(async () => {
    test = await createTestDatabase()
    return { ...test, close: () => test.drop() }
  })
})

describe('site revision on embedded PGlite', () => {
  revisionContract(openEmbeddedDatabase)
})
