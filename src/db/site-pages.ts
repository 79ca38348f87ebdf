import type { SitePage, SitePageStart } from '../domain/ports/sites.ts'
import { LruCache } from '../lru-cache.ts'
import type { Site, SiteBox } from '../types.ts'
import type { Sql } from './connect.ts'
import { siteColumns, siteOf, siteRevisionRead, withinBox } from './sites.ts'

/** Counts kept per revision and box: a client paging a layer asks for the same count on every page. */
const COUNTS_KEPT = 1000

/**
 * The active site data a page at a time: the page, the number of sites in the box and the data version,
 * read in one repeatable-read snapshot, so a page never mixes two data versions. A cursor page (after
 * an id) walks the primary key; a skip is PostgreSQL's OFFSET, for clients that page by offset.
 */
export class SitePageReads {
  private readonly counts = new LruCache<string, number>(COUNTS_KEPT)

  async page(sql: Sql, box: SiteBox | null, start: SitePageStart, limit: number): Promise<SitePage> {
    return sql.begin('isolation level repeatable read read only', async (tx) => {
      const db = tx as unknown as Sql
      const where = box ? db`WHERE ${withinBox(db, box)}` : db``
      const sites =
        'afterId' in start
          ? await db<Site[]>`
            SELECT ${siteColumns(db)} FROM sites s ${where} ${box ? db`AND` : db`WHERE`} s.id > ${start.afterId}
            ORDER BY s.id LIMIT ${limit}`
          : await db<Site[]>`
            SELECT ${siteColumns(db)} FROM sites s ${where}
            ORDER BY s.id LIMIT ${limit} OFFSET ${start.skip}`
      const { revision, dataVersion } = await siteRevisionRead(db)
      const countKey = `${revision}\n${box ? `${box.west},${box.south},${box.east},${box.north}` : 'all'}`
      let matched = this.counts.get(countKey)
      if (matched === undefined) {
        const [row] = await db<{ count: number }[]>`SELECT count(*)::int AS count FROM sites s ${where}`
        matched = row?.count ?? 0
        this.counts.set(countKey, matched)
      }
      return { sites: sites.map(siteOf), matched, dataVersion }
    })
  }

  async one(sql: Sql, id: number): Promise<{ site: Site | null; dataVersion: string | null }> {
    type Row = Site & { dataVersion: string | null }
    const [row] = await sql<Row[]>`
      SELECT (SELECT data_version FROM site_revision) AS data_version, ${siteColumns(sql)}
      FROM sites s WHERE s.id = ${id}`
    if (row) return { site: siteOf(row), dataVersion: row.dataVersion }
    return { site: null, dataVersion: (await siteRevisionRead(sql)).dataVersion }
  }
}
