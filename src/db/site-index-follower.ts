import type { Coordinates } from '../types.ts'
import type { RevisionIndex } from './site-index-read.ts'
import type { NearestSiteIdsRead } from './sites.ts'

/** How often the follower asks for the sites table's revision: an activation is followed within it. */
export const SITE_INDEX_POLL_MS = 250

export interface SiteIndexSource {
  /** The sites table's revision now (one tiny query). */
  revision(): Promise<string>
  /** The whole index, read in one snapshot. */
  read(): Promise<RevisionIndex>
}

export interface SiteIndexEvents {
  loaded?(index: RevisionIndex, milliseconds: number): void
  failed?(error: unknown): void
}

/**
 * Keeps a nearest-site index of the sites table's current revision in memory. It asks for the revision
 * every SITE_INDEX_POLL_MS; once another is seen the index it holds is let go at once, so lookups go
 * to the database until the new one is read, and an index read meanwhile is kept only if it is of the
 * revision last seen. Lookups therefore answer from the revision the database had at most one poll ago.
 */
export class SiteIndexFollower {
  private held: RevisionIndex | null = null
  private lastSeen: string | undefined
  private loading = false
  private checking = false
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly source: SiteIndexSource,
    private readonly events: SiteIndexEvents = {},
    private readonly pollMs = SITE_INDEX_POLL_MS,
  ) {}

  /** The index held, or null while none of the current revision is. */
  current(): RevisionIndex | null {
    return this.held
  }

  /** Reads the first index in the background and follows the revision from then on. */
  start(): void {
    if (this.timer || this.stopped) return
    this.timer = setInterval(() => void this.check(), this.pollMs)
    this.timer.unref()
    void this.check()
  }

  stop(): void {
    this.stopped = true
    clearInterval(this.timer)
    this.held = null
  }

  /** One poll: a revision other than the index's lets the index go and reads the new one. */
  async check(): Promise<void> {
    if (this.checking || this.stopped) return
    this.checking = true
    try {
      this.lastSeen = await this.source.revision()
      if (this.held?.revision === this.lastSeen) return
      this.held = null
      this.load()
    } catch (error) {
      this.events.failed?.(error)
    } finally {
      this.checking = false
    }
  }

  private load(): void {
    if (this.loading) return
    this.loading = true
    const started = performance.now()
    this.source
      .read()
      .then((read) => {
        if (this.stopped || read.revision !== this.lastSeen) return
        this.held = read
        this.events.loaded?.(read, performance.now() - started)
      })
      .catch((error: unknown) => this.events.failed?.(error))
      .finally(() => {
        this.loading = false
      })
  }
}

/** The nearest site's id per point from an index in memory, as findNearestSiteIds reads them. */
export function nearestIdsInMemory(
  held: RevisionIndex,
  points: readonly Coordinates[],
  radiusKm: number,
): NearestSiteIdsRead {
  const nearest = new Array<NearestSiteIdsRead['nearest'][number]>(points.length)
  for (let i = 0; i < points.length; i++) {
    const { latitude, longitude } = points[i] as Coordinates
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) {
      throw new RangeError(
        `coordinate ${Number.isFinite(latitude) ? longitude : latitude} is not a finite number`,
      )
    }
    const found = held.index.nearest(latitude, longitude, radiusKm)
    nearest[i] = found && found.distanceKm <= radiusKm ? found : null
  }
  return { revision: held.revision, dataVersion: held.dataVersion, nearest }
}
