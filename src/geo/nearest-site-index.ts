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

/** Fills a NearestSiteIndex a site at a time, as the rows are read. */
export class NearestSiteIndexBuilder {
  private readonly tree: KDBush
  private readonly siteIds: Int32Array
  private added = 0

  constructor(readonly capacity: number) {
    // kdbush refuses an empty index: one of no sites answers null without a tree.
    this.tree = new KDBush(Math.max(1, capacity), LEAF_SITES)
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
    if (this.capacity === 0) return new NearestSiteIndex(null, this.siteIds, new Float64Array(0))
    this.tree.finish()
    // The tree sorts its points: the ids in the tree's order, read at the position a search ends on.
    const added = this.tree.ids
    const inTreeOrder = new Int32Array(this.capacity)
    for (let at = 0; at < added.length; at++) inTreeOrder[at] = this.siteIds[added[at] as number] as number
    return new NearestSiteIndex(this.tree, inTreeOrder, unitVectors(this.tree.coords))
  }
}

/** sin²(θ/2): haversine terms, monotonic in the angle for 0 ≤ θ ≤ π. */
function haversine(radians: number): number {
  const half = Math.sin(radians / 2)
  return half * half
}

/** Each point (longitude, latitude pairs) on the unit sphere, x y z in turn. */
function unitVectors(coords: ArrayLike<number>): Float64Array {
  const vectors = new Float64Array((coords.length / 2) * 3)
  for (let at = 0; 2 * at < coords.length; at++) {
    const longitude = (coords[2 * at] as number) * RADIANS_PER_DEGREE
    const latitude = (coords[2 * at + 1] as number) * RADIANS_PER_DEGREE
    vectors[3 * at] = Math.cos(latitude) * Math.cos(longitude)
    vectors[3 * at + 1] = Math.cos(latitude) * Math.sin(longitude)
    vectors[3 * at + 2] = Math.sin(latitude)
  }
  return vectors
}

/**
 * A lower bound of sin²(θ/2) for 0 ≤ θ ≤ π with no trigonometry: sin y ≥ y − y³/6 for y ≥ 0, and
 * y − y³/6 ≥ 0 up to y = √6 > π/2.
 */
function haversineAtLeast(radians: number): number {
  const half = radians / 2
  const sine = half - (half * half * half) / 6
  return sine * sine
}

/** A lower bound of cos φ for |φ| ≤ π/2 with no trigonometry: the series cut after a negative term. */
function cosineAtLeast(radians: number): number {
  const square = radians * radians
  return Math.max(0, 1 - square / 2 + (square * square) / 24 - (square * square * square) / 720)
}

/** Bounds are shaded down this much, so that rounding never lets one exceed the value it bounds. */
const BOUND_SHADE = 1 - 1e-12

/** Points in a k-d tree leaf: small leaves keep a search to few distance computations. */
const LEAF_SITES = 16

/**
 * The nearest site to a point among a fixed set, found in memory: a k-d tree over the sites'
 * longitudes and latitudes (kdbush), searched depth first for the least squared chord between the
 * points on the unit sphere (each site's vector worked out once), which orders sites as great-circle
 * distance does and as the database's KNN operator does (a chord on earthdistance's sphere). A subtree
 * is skipped when a lower bound of the chord over its box, from the haversine formula
 * chord² = 4·(sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2)) with each sine and cosine bounded by a polynomial,
 * is no less than the best found. The distance is then given as the database gives it. Ties between
 * sites equally far (to the last bit) may be broken otherwise than there.
 */
export class NearestSiteIndex {
  /** The least squared chord found so far (unit sphere), and where. */
  private bestChord = Number.POSITIVE_INFINITY
  private bestAt = -1
  private queryLatitude = 0
  private queryLongitude = 0
  private queryCos = 1
  private queryX = 0
  private queryY = 0
  private queryZ = 0

  constructor(
    private readonly tree: KDBush | null,
    /** In the tree's order. */
    private readonly siteIds: Int32Array,
    /** Each site on the unit sphere, x y z in turn, in the tree's order. */
    private readonly vectors: Float64Array,
  ) {}

  get size(): number {
    return this.siteIds.length
  }

  /**
   * The nearest site's id and distance in km; null when there are no sites, or none within `withinKm`
   * (a search radius prunes the tree from the start, so a point far from every site costs little).
   */
  nearest(
    latitude: number,
    longitude: number,
    withinKm = Number.POSITIVE_INFINITY,
  ): { siteId: number; distanceKm: number } | null {
    const tree = this.tree
    if (!tree) return null
    // A hair beyond the radius: the caller keeps to the radius by the distance the database gives.
    this.bestChord =
      withinKm < Math.PI * EARTH_RADIUS_KM
        ? 4 * haversine(withinKm / EARTH_RADIUS_KM) * (1 + 1e-9) + 1e-18
        : Number.POSITIVE_INFINITY
    this.bestAt = -1
    this.queryLatitude = latitude
    this.queryLongitude = longitude
    const phi = latitude * RADIANS_PER_DEGREE
    const lambda = longitude * RADIANS_PER_DEGREE
    this.queryCos = Math.cos(phi)
    this.queryX = this.queryCos * Math.cos(lambda)
    this.queryY = this.queryCos * Math.sin(lambda)
    this.queryZ = Math.sin(phi)
    this.search(tree, 0, tree.numItems - 1, 0, -180, -90, 180, 90)
    const at = this.bestAt
    if (at < 0) return null
    const coords = tree.coords
    return {
      siteId: this.siteIds[at] as number,
      distanceKm: chordDistanceKm(
        latitude,
        longitude,
        coords[2 * at + 1] as number,
        coords[2 * at] as number,
      ),
    }
  }

  private consider(at: number): void {
    const vectors = this.vectors
    const dx = (vectors[3 * at] as number) - this.queryX
    const dy = (vectors[3 * at + 1] as number) - this.queryY
    const dz = (vectors[3 * at + 2] as number) - this.queryZ
    const chord = dx * dx + dy * dy + dz * dz
    if (chord < this.bestChord) {
      this.bestChord = chord
      this.bestAt = at
    }
  }

  /**
   * A lower bound of the squared chord from the query to any point of the box: each haversine term at
   * its least over the box on its own (the nearest latitude, the nearest longitude, the box's smallest
   * cos φ), each bounded below without trigonometry.
   */
  private boxBound(west: number, south: number, east: number, north: number): number {
    const latitude = this.queryLatitude
    const longitude = this.queryLongitude
    const dLatitude = latitude < south ? south - latitude : latitude > north ? latitude - north : 0
    // The gap to the box's longitudes either way round the globe, whichever is shorter.
    const dLongitude =
      longitude < west
        ? Math.min(west - longitude, longitude + 360 - east)
        : longitude > east
          ? Math.min(longitude - east, west + 360 - longitude)
          : 0
    const latitudeTerm = haversineAtLeast(dLatitude * RADIANS_PER_DEGREE)
    if (dLongitude === 0) return 4 * latitudeTerm * BOUND_SHADE
    const farthest = Math.max(Math.abs(south), Math.abs(north)) * RADIANS_PER_DEGREE
    const longitudeTerm =
      this.queryCos * cosineAtLeast(farthest) * haversineAtLeast(dLongitude * RADIANS_PER_DEGREE)
    return 4 * (latitudeTerm + longitudeTerm) * BOUND_SHADE
  }

  /** Searches the tree's points left..right (split on axis, 0 for longitude), within the box given. */
  private search(
    tree: KDBush,
    left: number,
    right: number,
    axis: number,
    west: number,
    south: number,
    east: number,
    north: number,
  ): void {
    if (this.boxBound(west, south, east, north) >= this.bestChord) return
    const coords = tree.coords
    if (right - left <= tree.nodeSize) {
      for (let at = left; at <= right; at++) this.consider(at)
      return
    }
    const middle = (left + right) >> 1
    this.consider(middle)
    const split = coords[2 * middle + axis] as number
    const query = axis === 0 ? this.queryLongitude : this.queryLatitude
    // The half the query lies in first: its best makes the other half's bound more often decisive.
    if (query < split) {
      if (axis === 0) {
        this.search(tree, left, middle - 1, 1, west, south, split, north)
        this.search(tree, middle + 1, right, 1, split, south, east, north)
      } else {
        this.search(tree, left, middle - 1, 0, west, south, east, split)
        this.search(tree, middle + 1, right, 0, west, split, east, north)
      }
    } else if (axis === 0) {
      this.search(tree, middle + 1, right, 1, split, south, east, north)
      this.search(tree, left, middle - 1, 1, west, south, split, north)
    } else {
      this.search(tree, middle + 1, right, 0, west, split, east, north)
      this.search(tree, left, middle - 1, 0, west, south, east, split)
    }
  }
}
