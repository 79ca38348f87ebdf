import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { databaseForBlock, ENGINES } from '../../test/support/database.ts'
import { seedAll } from '../seed/seed-all.ts'
import type { Site, SiteBox } from '../types.ts'
import type { Database } from './connect.ts'
import { SitePageReads } from './site-pages.ts'
import { allSites } from './sites.ts'

describe.each(ENGINES)('the sites a page at a time (%s)', (_name, open) => {
  const database = databaseForBlock(open, (db) => seedAll(db.sql))
  let db: Database
  let every: Site[]
  beforeAll(async () => {
    db = database()
    every = (await allSites(db.sql)).sites
  })

  const inBox = (box: SiteBox | null) =>
    box
      ? every.filter(
          (s) =>
            s.latitude >= box.south &&
            s.latitude <= box.north &&
            s.longitude >= box.west &&
            s.longitude <= box.east,
        )
      : every

  it('pages by cursor and by skip give the sites of the box in id order, with the number in the box', async () => {
    const reads = new SitePageReads()
    const boxes = fc.option(
      fc
        .record({
          west: fc.double({ min: -125, max: -116, noNaN: true }),
          south: fc.double({ min: 41.5, max: 49, noNaN: true }),
          width: fc.double({ min: 0.01, max: 3, noNaN: true }),
          height: fc.double({ min: 0.01, max: 3, noNaN: true }),
        })
        .map(({ west, south, width, height }) => ({
          west,
          south,
          east: west + width,
          north: south + height,
        })),
      { nil: null },
    )
    await fc.assert(
      fc.asyncProperty(boxes, fc.integer({ min: 1, max: 300 }), fc.nat(400), async (box, limit, skip) => {
        const expected = inBox(box)
        const skipped = await reads.page(db.sql, box, { skip }, limit)
        expect(skipped.matched).toBe(expected.length)
        expect(skipped.sites.map((s) => s.id)).toEqual(expected.slice(skip, skip + limit).map((s) => s.id))
        const afterId = skip === 0 ? 0 : (expected[Math.min(skip, expected.length) - 1]?.id ?? 0)
        const after = await reads.page(db.sql, box, { afterId }, limit)
        expect(after.sites).toEqual(skipped.sites)
        expect(after.dataVersion).toMatch(/^sites_[0-9a-f]{12}$/)
      }),
      { numRuns: 25 },
    )
  })

  it('reads one site by id, or none', async () => {
    const reads = new SitePageReads()
    const site = every[123] as Site
    expect((await reads.one(db.sql, site.id)).site).toEqual(site)
    const missing = await reads.one(db.sql, 999_999_999)
    expect(missing.site).toBeNull()
    expect(missing.dataVersion).toMatch(/^sites_/)
  })
})
