import {
  chordDistanceKm,
  type NearestSiteIndex,
  NearestSiteIndexBuilder,
} from '../../geo/nearest-site-index.ts'
import type { Coordinates } from '../../types.ts'
import { columnCentre, type PixelGrid, rowCentre } from './pixel-grid.ts'
import { SiteBuckets } from './site-buckets.ts'

/** No site: the pixel lies outside the coverage region or farther than the search radius from every site. */
export const NO_SITE = -1

const RADIANS_PER_DEGREE = Math.PI / 180

/** Kilometres per degree of latitude on the earthdistance sphere are 111.32: less makes a box larger, never too small. */
const KM_PER_DEGREE_AT_MOST = 111
/** Added to every distance bound: far above the rounding of chordDistanceKm, far below any gap between sites. */
const SLACK_KM = 0.001
/** A block of pixels spans about this many degrees: small enough for few candidates, large enough to share them. */
const BLOCK_DEGREES = 0.04
/**
 * Two sites whose terms for a pixel lie within this share of each other are a tie as far as rounding
 * goes (the index compares chords, this finder haversine terms): the index then decides, so that a
 * pixel takes the site a prediction at its centre takes.
 */
const NEAR_TIE = 1e-9
/** Work between two yields to the event loop, so other requests keep flowing. */
const SLICE_MS = 8

/** sin²(θ/2), written as NearestSiteIndex writes it so that the same inputs give the same bits. */
function haversine(radians: number): number {
  const half = Math.sin(radians / 2)
  return half * half
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Scratch arrays a block reuses, grown as needed. */
class Scratch {
  inside = new Uint8Array(0)
  latitudeTerms = new Float64Array(0)
  cosineProducts = new Float64Array(0)
  longitudeTerms = new Float64Array(0)
  readonly near: number[] = []
  readonly candidates: number[] = []

  fit(pixels: number, terms: number): void {
    if (this.inside.length < pixels) this.inside = new Uint8Array(pixels)
    if (this.latitudeTerms.length < terms) {
      this.latitudeTerms = new Float64Array(terms)
      this.cosineProducts = new Float64Array(terms)
      this.longitudeTerms = new Float64Array(terms)
    }
  }
}

/**
 * The nearest site to every pixel centre of a grid, as POST /v1/predict finds it for one point: the
 * site of least great-circle distance by NearestSiteIndex's haversine term (src/geo/nearest-site-index.ts,
 * the index the API's lookups use), kept when its distance (chordDistanceKm, as PostgreSQL gives it) is
 * within the radius, and only for centres inside the coverage region.
 *
 * Asking the index once per pixel costs about 5 µs (2.4 s for the 580,000 pixels at 0.01°), so pixels
 * go by blocks: the index gives the nearest site to the block's centre at d₀, and with ρ the farthest
 * pixel centre from it, the nearest site to any pixel within the radius lies within min(d₀ + 2ρ,
 * radius + ρ) of the centre (the triangle inequality), and no pixel has one when d₀ − ρ exceeds the
 * radius. Within a block every pixel then takes the candidate of least haversine term, computed as the
 * index computes it (its terms shared by the block's rows and columns), so the site is the index's but
 * for sites equally far to the last bit.
 */
export class PixelSiteFinder {
  private readonly latitudes: Float64Array
  private readonly longitudes: Float64Array
  private readonly cosines: Float64Array
  private readonly index: NearestSiteIndex
  private readonly buckets: SiteBuckets
  private readonly scratch = new Scratch()

  constructor(sites: readonly Coordinates[]) {
    const count = sites.length
    this.latitudes = new Float64Array(count)
    this.longitudes = new Float64Array(count)
    this.cosines = new Float64Array(count)
    const builder = new NearestSiteIndexBuilder(count)
    for (let i = 0; i < count; i++) {
      const { latitude, longitude } = sites[i] as Coordinates
      this.latitudes[i] = latitude
      this.longitudes[i] = longitude
      this.cosines[i] = Math.cos(latitude * RADIANS_PER_DEGREE)
      // The index names each site by its position in `sites`.
      builder.add(i, latitude, longitude)
    }
    this.index = builder.finish()
    this.buckets = new SiteBuckets(this.latitudes, this.longitudes)
  }

  /**
   * Per pixel (rows north first, each west to east) the position in `sites` of its site, or NO_SITE.
   * `covers` says whether a point lies in the coverage region.
   */
  async find(
    grid: PixelGrid,
    radiusKm: number,
    covers: (latitude: number, longitude: number) => boolean,
    pause: () => Promise<void> = yieldToEventLoop,
  ): Promise<Int32Array> {
    const { width, height } = grid
    const out = new Int32Array(width * height).fill(NO_SITE)
    const rowLatitudes = Float64Array.from({ length: height }, (_, row) => rowCentre(grid, row))
    const columnLongitudes = Float64Array.from({ length: width }, (_, column) => columnCentre(grid, column))
    const side = Math.max(1, Math.round(BLOCK_DEGREES / grid.resolution))
    let sliceStarted = performance.now()
    for (let top = 0; top < height; top += side) {
      const bottom = Math.min(height, top + side)
      for (let left = 0; left < width; left += side) {
        const right = Math.min(width, left + side)
        this.block({ out, width, rowLatitudes, columnLongitudes, top, bottom, left, right, radiusKm, covers })
      }
      if (performance.now() - sliceStarted >= SLICE_MS) {
        await pause()
        sliceStarted = performance.now()
      }
    }
    return out
  }

  private block(at: {
    out: Int32Array
    width: number
    rowLatitudes: Float64Array
    columnLongitudes: Float64Array
    top: number
    bottom: number
    left: number
    right: number
    radiusKm: number
    covers: (latitude: number, longitude: number) => boolean
  }): void {
    const { out, width, rowLatitudes, columnLongitudes, top, bottom, left, right, radiusKm } = at
    const rows = bottom - top
    const columns = right - left
    const scratch = this.scratch
    scratch.fit(rows * columns, 0)
    const inside = scratch.inside
    let covered = 0
    for (let row = top; row < bottom; row++) {
      for (let column = left; column < right; column++) {
        const isIn = at.covers(rowLatitudes[row] as number, columnLongitudes[column] as number)
        inside[(row - top) * columns + (column - left)] = isIn ? 1 : 0
        if (isIn) covered++
      }
    }
    if (covered === 0) return

    const north = rowLatitudes[top] as number
    const south = rowLatitudes[bottom - 1] as number
    const west = columnLongitudes[left] as number
    const east = columnLongitudes[right - 1] as number
    const centreLatitude = (north + south) / 2
    const centreLongitude = (west + east) / 2
    const spread =
      Math.max(
        chordDistanceKm(centreLatitude, centreLongitude, north, west),
        chordDistanceKm(centreLatitude, centreLongitude, north, east),
        chordDistanceKm(centreLatitude, centreLongitude, south, west),
        chordDistanceKm(centreLatitude, centreLongitude, south, east),
      ) *
        1.001 +
      SLACK_KM
    const nearest = this.index.nearest(centreLatitude, centreLongitude)
    if (!nearest || nearest.distanceKm - spread > radiusKm + SLACK_KM) return
    const reach = Math.min(nearest.distanceKm + 2 * spread, radiusKm + spread) + SLACK_KM

    const candidates = this.candidates(centreLatitude, centreLongitude, reach)
    if (candidates.length === 0) return
    if (candidates.length === 1) {
      const site = candidates[0] as number
      for (let row = top; row < bottom; row++)
        for (let column = left; column < right; column++)
          if (inside[(row - top) * columns + (column - left)])
            out[row * width + column] = this.within(
              rowLatitudes[row] as number,
              columnLongitudes[column] as number,
              site,
              radiusKm,
            )
      return
    }

    // The index's term for site s and centre (φ, λ): hav((φs − φ)·k) + (cos φ · cos φs) · hav((λs − λ)·k),
    // its two parts worked out once per row and once per column of the block.
    const count = candidates.length
    scratch.fit(rows * columns, Math.max(rows, columns) * count)
    const { latitudeTerms, cosineProducts, longitudeTerms } = scratch
    for (let row = 0; row < rows; row++) {
      const latitude = rowLatitudes[top + row] as number
      const cosine = Math.cos(latitude * RADIANS_PER_DEGREE)
      for (let j = 0; j < count; j++) {
        const site = candidates[j] as number
        latitudeTerms[row * count + j] = haversine(
          ((this.latitudes[site] as number) - latitude) * RADIANS_PER_DEGREE,
        )
        cosineProducts[row * count + j] = cosine * (this.cosines[site] as number)
      }
    }
    for (let column = 0; column < columns; column++) {
      const longitude = columnLongitudes[left + column] as number
      for (let j = 0; j < count; j++) {
        const site = candidates[j] as number
        longitudeTerms[column * count + j] = haversine(
          ((this.longitudes[site] as number) - longitude) * RADIANS_PER_DEGREE,
        )
      }
    }
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column < columns; column++) {
        if (!inside[row * columns + column]) continue
        let best = Number.POSITIVE_INFINITY
        let second = Number.POSITIVE_INFINITY
        let bestAt = 0
        for (let j = 0; j < count; j++) {
          const term =
            (latitudeTerms[row * count + j] as number) +
            (cosineProducts[row * count + j] as number) * (longitudeTerms[column * count + j] as number)
          if (term < best) {
            second = best
            best = term
            bestAt = j
          } else if (term < second) second = term
        }
        const latitude = rowLatitudes[top + row] as number
        const longitude = columnLongitudes[left + column] as number
        out[(top + row) * width + left + column] =
          second - best <= best * NEAR_TIE + Number.MIN_VALUE
            ? this.asTheIndexFinds(latitude, longitude, radiusKm)
            : this.within(latitude, longitude, candidates[bestAt] as number, radiusKm)
      }
    }
  }

  /** The sites within `reach` km of a point (scratch.candidates, valid until the next call). */
  private candidates(latitude: number, longitude: number, reach: number): number[] {
    const { near, candidates } = this.scratch
    near.length = 0
    candidates.length = 0
    const latitudeSpan = reach / KM_PER_DEGREE_AT_MOST
    const poleward = Math.min(
      90,
      Math.max(Math.abs(latitude - latitudeSpan), Math.abs(latitude + latitudeSpan)),
    )
    const cosine = Math.cos(poleward * RADIANS_PER_DEGREE)
    const longitudeSpan = cosine > 1e-6 ? latitudeSpan / cosine : 360
    this.buckets.collect(
      latitude - latitudeSpan,
      longitude - longitudeSpan,
      latitude + latitudeSpan,
      longitude + longitudeSpan,
      near,
    )
    for (const site of near) {
      const distance = chordDistanceKm(
        latitude,
        longitude,
        this.latitudes[site] as number,
        this.longitudes[site] as number,
      )
      if (distance <= reach) candidates.push(site)
    }
    return candidates
  }

  /** The nearest site as the index breaks a (near) tie, within the radius; else NO_SITE. */
  private asTheIndexFinds(latitude: number, longitude: number, radiusKm: number): number {
    const found = this.index.nearest(latitude, longitude)
    return found && found.distanceKm <= radiusKm ? found.siteId : NO_SITE
  }

  /** The site when it lies within the radius of the point, by the distance the API reports; else NO_SITE. */
  private within(latitude: number, longitude: number, site: number, radiusKm: number): number {
    const distance = chordDistanceKm(
      latitude,
      longitude,
      this.latitudes[site] as number,
      this.longitudes[site] as number,
    )
    return distance <= radiusKm ? site : NO_SITE
  }
}
