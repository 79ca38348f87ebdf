import { around } from 'geokdbush'
import KDBush from 'kdbush'
import { EARTH_RADIUS_KM } from './great-circle.ts'

const RADIANS_PER_DEGREE = Math.PI / 180
const EARTH_RADIUS_M = EARTH_RADIUS_KM * 1000

/**
 * The great-circle distance the database's nearest-site statement gives (src/db/sites.ts): from the
 * chord between the two points on earthdistance's sphere, 2R·asin(chord / 2R), in km.
 */
export function chordDistanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const cosLat1 = Math.cos(lat1 * RADIANS_PER_DEGREE)
  const cosLat2 = Math.cos(lat2 * RADIANS_PER_DEGREE)
  const dx =
    EARTH_RADIUS_M *
    (cosLat1 * Math.cos(lon1 * RADIANS_PER_DEGREE) - cosLat2 * Math.cos(lon2 * RADIANS_PER_DEGREE))
  const dy =
    EARTH_RADIUS_M *
    (cosLat1 * Math.sin(lon1 * RADIANS_PER_DEGREE) - cosLat2 * Math.sin(lon2 * RADIANS_PER_DEGREE))
  const dz = EARTH_RADIUS_M * (Math.sin(lat1 * RADIANS_PER_DEGREE) - Math.sin(lat2 * RADIANS_PER_DEGREE))
  const chord = Math.sqrt(dx * dx + dy * dy + dz * dz)
  return (2 * EARTH_RADIUS_M * Math.asin(Math.min(1, chord / (2 * EARTH_RADIUS_M)))) / 1000
}

/** Bytes the index holds a site in: the k-d tree's coordinates and position, its id and where it sits. */
export const INDEX_BYTES_PER_SITE = 28

/** Fills a NearestSiteIndex a site at a time, as the rows are read. */
export class NearestSiteIndexBuilder {
  private readonly tree: KDBush
  private readonly siteIds: Int32Array
  private added = 0

  constructor(readonly capacity: number) {
    // kdbush refuses an empty index: one of no sites answers null without a tree.
    this.tree = new KDBush(Math.max(1, capacity))
    this.siteIds = new Int32Array(capacity)
  }

  add(siteId: number, latitude: number, longitude: number): void {
    if (this.added === this.capacity) throw new RangeError(`the index was made for ${this.capacity} sites`)
    this.siteIds[this.tree.add(longitude, latitude)] = siteId
    this.added += 1
  }

  finish(): NearestSiteIndex {
    if (this.added !== this.capacity) {
      throw new RangeError(`the index was made for ${this.capacity} sites and ${this.added} were added`)
    }
    if (this.capacity === 0) return new NearestSiteIndex(null, this.siteIds, new Uint32Array(0))
    this.tree.finish()
    // The tree sorts its points: where each added one went, to read its coordinates back.
    const positions = new Uint32Array(this.capacity)
    const order = this.tree.ids
    for (let position = 0; position < order.length; position++)
      positions[order[position] as number] = position
    return new NearestSiteIndex(this.tree, this.siteIds, positions)
  }
}

/**
 * The nearest site to a point among a fixed set, found in memory: a k-d tree over the sites'
 * coordinates searched by great-circle distance (geokdbush), the distance then given as the database
 * gives it. Ties between sites equally far (to the last bit) may be broken otherwise than there.
 */
export class NearestSiteIndex {
  constructor(
    private readonly tree: KDBush | null,
    private readonly siteIds: Int32Array,
    private readonly positions: Uint32Array,
  ) {}

  get size(): number {
    return this.siteIds.length
  }

  /** The nearest site's id and distance in km; null when there are no sites. */
  nearest(latitude: number, longitude: number): { siteId: number; distanceKm: number } | null {
    if (!this.tree) return null
    const [added] = around(this.tree, longitude, latitude, 1)
    if (added === undefined) return null
    const position = this.positions[added] as number
    const coords = this.tree.coords
    return {
      siteId: this.siteIds[added] as number,
      distanceKm: chordDistanceKm(
        latitude,
        longitude,
        coords[2 * position + 1] as number,
        coords[2 * position] as number,
      ),
    }
  }
}
