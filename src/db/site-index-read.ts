import { type NearestSiteIndex, NearestSiteIndexBuilder } from '../geo/nearest-site-index.ts'
import type { Sql } from './connect.ts'
import { type SiteRevision, siteRevisionRead } from './sites.ts'

/** A nearest-site index of one revision of the sites table. */
export interface RevisionIndex extends SiteRevision {
  index: NearestSiteIndex
}

/**
 * Reading millions of sites takes longer than a request's statement may: the read has its own bound,
 * 120 s for one statement (the count, a cursor's batch), far more than 6 million sites need. A simple
 * statement, so that it runs even under a request timeout of a millisecond.
 */
const OWN_STATEMENT_TIMEOUT = "SET LOCAL statement_timeout = '120s'"

/** Rows the cursor reads at a time: the rows are added to the index and let go of as they come. */
const CURSOR_ROWS = 20_000

/**
 * Every site's id and coordinates, read into a NearestSiteIndex with the revision they belong to, in
 * one repeatable-read transaction. The sites are read first, as allSites does: the lock that read
 * holds keeps an activation's rename of the table waiting until the revision is read too.
 */
export async function readSiteIndex(sql: Sql): Promise<RevisionIndex> {
  const read = await sql.begin('isolation level repeatable read read only', async (tx) => {
    await tx.unsafe(OWN_STATEMENT_TIMEOUT)
    const [counted] = await tx<{ sites: number }[]>`SELECT count(*)::int AS sites FROM sites`
    const builder = new NearestSiteIndexBuilder(counted?.sites ?? 0)
    const cursor = tx<{ id: number; latitude: number; longitude: number }[]>`
      SELECT id, latitude, longitude FROM sites`.cursor(CURSOR_ROWS)
    for await (const rows of cursor) for (const row of rows) builder.add(row.id, row.latitude, row.longitude)
    const revision = await siteRevisionRead(tx as unknown as Sql)
    return { ...revision, index: builder.finish() }
  })
  return read as RevisionIndex
}
