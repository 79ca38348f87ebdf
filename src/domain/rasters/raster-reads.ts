import { LruCache } from '../../lru-cache.ts'

/** How a request reads a raster. */
export type RasterRead =
  | { method: 'HEAD' }
  /** `firstByte`: where the bytes sent start; null for the whole file. */
  | { method: 'GET'; firstByte: number | null }

/** How long after a counted HEAD the account's first GET from byte 0 of that raster still belongs to it. */
export const HEAD_PAIRING_MS = 60_000
/** Accounts × rasters whose HEAD is remembered; beyond, the oldest are forgotten (and their GET counted). */
const REMEMBERED_HEADS = 10_000
/**
 * How long after the account's last counted read of a raster (or free range of it) its ranges from
 * elsewhere than byte 0 stay free: a GIS that keeps a layer open reads tiles as the view moves.
 */
export const READ_WINDOW_MS = 3_600_000
const REMEMBERED_READS = 10_000

/**
 * Which requests for a raster count against the daily quota, so that reading one raster counts one
 * request, as a download or the way GDAL reads a Cloud-Optimized GeoTIFF over HTTP (/vsicurl/: a HEAD
 * for the size, a GET of the first 16 KiB, then ranges of the tiles it needs).
 *
 * - A HEAD counts: it starts a read.
 * - A GET from byte 0 (the whole file: no Range, or one not served as a range; or a range from byte 0)
 *   counts, unless it is the account's first one for that raster since its HEAD of that raster, within
 *   HEAD_PAIRING_MS: the HEAD counted for both.
 * - A GET from anywhere else is free when the raster is in the cache and the account read it, counted,
 *   within READ_WINDOW_MS (each free range renews the window): the rest of a read already counted.
 *   Otherwise it counts, so no part of a raster is had without paying for one read of it.
 *
 * HEADs are remembered in this process only: behind several processes a read whose HEAD and GET reach
 * different ones counts two (GDAL sends them over one kept-alive connection, so to one process).
 */
export class RasterReadCounter {
  private readonly heads = new LruCache<string, number>(REMEMBERED_HEADS)
  private readonly reading = new LruCache<string, number>(REMEMBERED_READS)

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether the request counts; a GET from byte 0 that a HEAD paid for uses that HEAD up. */
  counts(accountId: string, rasterKey: string, read: RasterRead, cached: boolean): boolean {
    if (read.method === 'HEAD') return true
    if (read.firstByte === null || read.firstByte === 0) {
      const pairing = pairingOf(accountId, rasterKey)
      const until = this.heads.get(pairing)
      if (until === undefined) return true
      this.heads.delete(pairing)
      return until < this.now()
    }
    const pairing = pairingOf(accountId, rasterKey)
    const until = this.reading.get(pairing)
    const now = this.now()
    if (!cached || until === undefined || until < now) return true
    this.reading.set(pairing, now + READ_WINDOW_MS)
    return false
  }

  /** A read of the raster was counted (not refused): its ranges are free for READ_WINDOW_MS. */
  readCounted(accountId: string, rasterKey: string): void {
    this.reading.set(pairingOf(accountId, rasterKey), this.now() + READ_WINDOW_MS)
  }

  /** A HEAD was counted (not refused): it pays for the account's next GET of the raster from byte 0. */
  headCounted(accountId: string, rasterKey: string): void {
    this.heads.set(pairingOf(accountId, rasterKey), this.now() + HEAD_PAIRING_MS)
  }
}

const pairingOf = (accountId: string, rasterKey: string) => `${accountId}\n${rasterKey}`
