import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { migrate } from '../db/migrate.ts'
import { SPECIES } from '../domain/species.ts'
import { generateSites } from './generate-sites.ts'
import { seedSites, seedSpecies } from './load.ts'
import { seedAll } from './seed-all.ts'

describe('seed loading (PostgreSQL)', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql)
  })
  afterAll(() => db.drop())

  it('loads species and every generated site, and a second run changes nothing', async () => {
    const first = await seedAll(db.sql)
    expect(first.map((r) => [r.dataset, r.changed])).toEqual([
      ['species', true],
      ['sites', true],
    ])
    const [before] = await db.sql`SELECT count(*)::int AS n, max(xmin::text::bigint) AS x FROM sites`
    const second = await seedAll(db.sql)
    expect(second.every((r) => !r.changed)).toBe(true)
    const [after] = await db.sql`SELECT count(*)::int AS n, max(xmin::text::bigint) AS x FROM sites`
    expect(after).toEqual(before)
    expect(after?.n).toBe(generateSites().length)
    const [species] = await db.sql`SELECT count(*)::int AS n FROM species`
    expect(species?.n).toBe(SPECIES.length)
  })

  it('stores each site exactly as generated, with its earth point', async () => {
    const site = generateSites()[4321]
    const [row] = await db.sql`
      SELECT id, latitude, longitude, zone, elevation_m,
             earth_distance(earth_point::earth, ll_to_earth(latitude, longitude)) AS drift_m
      FROM sites WHERE id = ${site?.id ?? 0}`
    expect(row).toMatchObject({
      id: site?.id,
      latitude: site?.latitude,
      longitude: site?.longitude,
      zone: site?.zone,
    })
    expect(row?.driftM).toBeLessThan(1e-6)
  })

  it('replaces a data set whose content changed, without leaving stale rows', async () => {
    const fewer = generateSites().slice(0, 100)
    expect((await seedSites(db.sql, fewer)).changed).toBe(true)
    const [count] = await db.sql`SELECT count(*)::int AS n FROM sites`
    expect(count?.n).toBe(100)
    expect((await seedSpecies(db.sql, SPECIES.slice(0, 5))).changed).toBe(true)
    const [species] = await db.sql`SELECT count(*)::int AS n FROM species`
    expect(species?.n).toBe(5)
  })
})
