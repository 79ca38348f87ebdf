import type { Sql } from '../../src/db/connect.ts'
import {
  activeSiteVersion,
  beginSiteImport,
  finishSiteImport,
  insertSites,
  SiteContentHash,
} from '../../src/db/site-data-versions.ts'
import { allSites } from '../../src/db/sites.ts'
import type { Site } from '../../src/types.ts'

/** The active version's name; throws when none is active. */
export async function activeVersionName(sql: Sql): Promise<string> {
  const active = await activeSiteVersion(sql)
  if (!active) throw new Error('no site data version is active')
  return active.version
}

/**
 * A second data version beside the active one: the same points with `change` applied to each site
 * (kept, not activated), as an import would make it. Its name.
 */
export async function keepChangedVersion(sql: Sql, change: (site: Site) => Site, source = 'changed.csv') {
  const { sites } = await allSites(sql)
  const staging = await beginSiteImport(sql, source)
  const hash = new SiteContentHash()
  const changed = sites.map(change)
  for (let start = 0; start < changed.length; start += 5000) {
    const batch = changed.slice(start, start + 5000)
    await insertSites(sql, staging, batch)
    for (const site of batch) hash.add(site)
  }
  const { version } = await finishSiteImport(sql, staging, hash.finish(), { source, defaults: {} })
  return version.version
}
