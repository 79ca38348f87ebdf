/** The site data version answers come from (docs/site-data.md). */
export interface SiteDataHealth {
  version: string
  rows: number
  /** The file it was imported from (its name), or the synthetic generator. */
  source: string
  activated_at: string | null
}

/** Where each site data version came from (docs/site-data.md), for what a report says of its data. */
export interface SiteDataOrigins {
  /** Whether a version holds the synthetic sites (`npm run db:seed`); an unknown version counts as synthetic. */
  synthetic(version: string): Promise<boolean>
}
