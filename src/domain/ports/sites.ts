import type { Coordinates, NearestSite, Site, SiteBox } from '../../types.ts'

export interface NearestSiteLookup {
  /** The nearest site within the search radius, or null when there is none. */
  one(point: Coordinates): Promise<NearestSite | null>
  /** The same for many points, answered in the order of `points`. */
  many(points: readonly Coordinates[]): Promise<(NearestSite | null)[]>
}

/** The sites inside an area (a stocking plan's stand). */
export interface SitesInArea {
  /** Every site whose coordinates lie in the box, ordered by id, and their data version (null when none). */
  within(box: SiteBox): Promise<{ sites: Site[]; dataVersion: string | null }>
}

/** Where a page of sites starts: after a site id (a cursor), or after skipping a number of sites. */
export type SitePageStart = { afterId: number } | { skip: number }

/** One page of the active site data, read in one snapshot with what it belongs to. */
export interface SitePage {
  /** Ordered by id. */
  sites: Site[]
  /** How many sites lie in the box (all the data when no box) in the snapshot the page was read from. */
  matched: number
  dataVersion: string | null
}

/** The active site data a page at a time (OGC API – Features). */
export interface SitePages {
  /** The sites in `box` (every site when null) ordered by id, from `start` on, at most `limit`. */
  page(box: SiteBox | null, start: SitePageStart, limit: number): Promise<SitePage>
  /** One site by id, or null. */
  one(id: number): Promise<{ site: Site | null; dataVersion: string | null }>
}

/** The whole site table at once, for answers derived from every site (the survival map). */
export interface SiteTable {
  /** An opaque token that changes whenever the sites table changes (insert, update, delete, truncate). */
  revision(): Promise<string>
  /** Every site, with the revision they were read at (one consistent snapshot). */
  all(): Promise<{ revision: string; dataVersion: string | null; sites: Site[] }>
}
