import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestDatabase,
  databaseForBlock,
  ENGINES,
  release,
  type TestDatabase,
} from '../../test/support/database.ts'
import { keepChangedVersion } from '../../test/support/site-versions.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { seedAll } from '../seed/seed-all.ts'
import type { Coordinates } from '../types.ts'
import { type Database, openDatabase } from './connect.ts'
import { migrate } from './migrate.ts'
import { activateSiteVersion, rollbackSiteVersion } from './site-data-versions.ts'
import { nearestIdsInMemory, SiteIndexFollower } from './site-index-follower.ts'
import { type RevisionIndex, readSiteIndex } from './site-index-read.ts'
import { findNearestSiteIds, siteRevision } from './sites.ts'

const RADIUS_KM = 10

/** 1,000 points about the synthetic sites, some far enough from any to find none within the radius. */
function randomPoints(count: number): Coordinates[] {
  const sites = generateSites()
  let seed = 20261127
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  return Array.from({ length: count }, () => {
    const site = sites[Math.floor(next() * sites.length)] as Coordinates
    return {
      latitude: site.latitude + (next() - 0.5) * 0.3,
      longitude: site.longitude + (next() - 0.5) * 0.3,
    }
  })
}

describe.each(ENGINES)('the nearest-site index in memory (%s)', (_name, open) => {
  const database = databaseForBlock(open, (db) => seedAll(db.sql))
  let db: Database
  beforeAll(() => {
    db = database()
  })

  it('finds, at 1,000 points, the sites and distances the KNN statement finds', async () => {
    const points = randomPoints(1000)
    const held = await readSiteIndex(db.sql)
    expect(held.index.size).toBe(generateSites().length)
    const fromDatabase = await findNearestSiteIds(db.sql, points, RADIUS_KM)
    const fromMemory = nearestIdsInMemory(held, points, RADIUS_KM)
    expect(fromMemory.revision).toBe(fromDatabase.revision)
    expect(fromMemory.dataVersion).toBe(fromDatabase.dataVersion)
    expect(fromMemory.nearest.filter((found) => found === null).length).toBeGreaterThan(0)
    for (const [i, found] of fromDatabase.nearest.entries()) {
      const inMemory = fromMemory.nearest[i]
      expect(inMemory?.siteId).toBe(found?.siteId)
      if (found) expect(Math.abs((inMemory?.distanceKm as number) - found.distanceKm)).toBeLessThan(1e-9)
    }
    expect(() => nearestIdsInMemory(held, [{ latitude: Number.NaN, longitude: -122 }], RADIUS_KM)).toThrow(
      RangeError,
    )
  })

  it('follows an activation and a rollback within a second', async () => {
    const version = await keepChangedVersion(db.sql, (site) => ({ ...site, latitude: site.latitude + 0.001 }))
    const follower = new SiteIndexFollower(
      { revision: () => siteRevision(db.sql), read: () => readSiteIndex(db.sql) },
      {},
      50,
    )
    follower.start()
    try {
      await expect
        .poll(() => follower.current()?.revision, { timeout: 5000 })
        .toBe(await siteRevision(db.sql))
      await activateSiteVersion(db.sql, version)
      const activated = await siteRevision(db.sql)
      await expect.poll(() => follower.current()?.revision, { timeout: 1000 }).toBe(activated)
      expect(follower.current()?.dataVersion).toBe(version)
      const point = randomPoints(1)[0] as Coordinates
      expect(nearestIdsInMemory(follower.current() as RevisionIndex, [point], RADIUS_KM).nearest).toEqual(
        (await findNearestSiteIds(db.sql, [point], RADIUS_KM)).nearest.map(
          (found) => found && expect.objectContaining({ siteId: found.siteId }),
        ),
      )
      await rollbackSiteVersion(db.sql)
      const rolledBack = await siteRevision(db.sql)
      await expect.poll(() => follower.current()?.revision, { timeout: 1000 }).toBe(rolledBack)
    } finally {
      follower.stop()
    }
    expect(follower.current()).toBeNull()
  })
})

describe('the index read on PostgreSQL', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
    await seedAll(db.sql)
  }, 180_000)
  afterAll(() => release(db))

  it('is bounded by its own statement timeout, not the requests’ one', async () => {
    const hurried = await openDatabase({ DATABASE_URL: db.url, DB_POOL_MAX: 2 }, { statementTimeoutMs: 1 })
    try {
      await expect(hurried.sql`SELECT count(*) FROM sites, pg_sleep(0.01)`).rejects.toThrow(
        /statement timeout/,
      )
      expect((await readSiteIndex(hurried.sql)).index.size).toBe(generateSites().length)
    } finally {
      await hurried.close()
    }
  })
})
