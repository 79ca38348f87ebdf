import { createHash } from 'node:crypto'
import { isInCoverage } from '../../geo/coverage.ts'
import type { Horizon, SurvivalModel } from '../../types.ts'
import { modelInfo, resolvePlantingMethod, resolveSpecies } from '../catalogue.ts'
import { CLIMATE_FUTURES, type ClimateRequest } from '../climate.ts'
import { invalidField } from '../errors.ts'
import { COVERAGE_EXTENT } from '../features/feature-collections.ts'
import type { MapSeries, SitesSnapshot, SurvivalMapService } from '../survival-map.ts'
import { treatmentsKey } from '../treatment-fields.ts'
import type { TreatmentsRequest } from '../treatment-values.ts'
import { TREATMENTS } from '../treatments.ts'
import { ByteBoundedCache } from './byte-bounded-cache.ts'
import { gridOverBox, type PixelGrid } from './pixel-grid.ts'
import { NO_SITE, PixelSiteFinder } from './pixel-sites.ts'
import { type RasterSubject, rasterFileName, rasterMetadata } from './raster-description.ts'

/** Degrees per pixel: 0.01° (about 1.1 km north–south) unless asked; 0.005° to 0.5°. */
export const RASTER_RESOLUTION_DEFAULT = 0.01
export const RASTER_RESOLUTION_MIN = 0.005
export const RASTER_RESOLUTION_MAX = 0.5
/** Written where a pixel has no value: outside the coverage region, or no site within the search radius. */
export const RASTER_NODATA = -9999

/** A grid of Float32 values as the GeoTIFF writer takes it (src/raster-files RasterGrid). */
export interface SurvivalGrid extends PixelGrid {
  values: Float32Array
  nodata: number
  metadata: Record<string, string>
}

/** Writes a grid as a Cloud-Optimized GeoTIFF (src/raster-files, given by the wiring). */
export type GeoTiffWriter = (grid: SurvivalGrid) => Promise<Buffer>

export interface SurvivalRasterRequest {
  speciesCode: string
  plantingMethod: string
  horizon: Horizon
  climate: ClimateRequest | null
  /** Establishment treatments at every pixel; absent, null or all `none`: untreated. */
  treatments?: TreatmentsRequest | null
  /** Degrees per pixel. */
  resolution: number
}

/** A finished raster: its bytes and how they are named. */
export interface SurvivalRaster {
  bytes: Buffer
  /** A strong validator: a hash of the bytes, quoted. */
  etag: string
  fileName: string
  /** The site data version its sites came from (null before any is active). */
  dataVersion: string | null
}

/** A raster asked for: whether it is ready, and the way to it. */
export interface RasterOrder {
  /** Everything that decides the bytes, the site table's revision included. */
  readonly key: string
  /** The raster when the cache holds it already. */
  readonly ready: SurvivalRaster | undefined
  /** The raster: the one held, or made now (concurrent orders of one key share the making). */
  raster(): Promise<SurvivalRaster>
}

export interface SurvivalRasterOptions {
  searchRadiusKm: number
  /** Bytes of finished rasters held (default 64 MiB: a dozen at 0.005°, fifty or more at 0.01°). */
  cacheBytes?: number
  /**
   * Bytes of pixel → site tables held, one per site table revision and resolution (4 bytes a pixel:
   * 2.3 MB at 0.01°, 9.3 MB at 0.005°; default 32 MiB). Every species, method, horizon, climate and
   * model version at that resolution shares one.
   */
  pixelSiteBytes?: number
}

const MIB = 1024 * 1024

/**
 * Survival surfaces as GeoTIFFs: each pixel is the survival POST /v1/predict answers at the pixel's
 * centre (the nearest data site within the search radius, in coverage), from the survival map's
 * snapshot of the sites and its per-site survival values, so a raster costs the model nothing a map
 * of the same series has not already paid.
 */
export class SurvivalRasterService {
  private readonly rasters: ByteBoundedCache<string, SurvivalRaster>
  private readonly making = new Map<string, Promise<SurvivalRaster>>()
  private readonly pixelSiteTables: ByteBoundedCache<string, Int32Array>
  private readonly findingSites = new Map<string, Promise<Int32Array>>()
  private readonly finders = new WeakMap<SitesSnapshot, PixelSiteFinder>()
  private revision: string | undefined

  constructor(
    private readonly maps: SurvivalMapService,
    private readonly writeGeoTiff: GeoTiffWriter,
    private readonly options: SurvivalRasterOptions,
  ) {
    this.rasters = new ByteBoundedCache(options.cacheBytes ?? 64 * MIB, (raster) => raster.bytes.length)
    this.pixelSiteTables = new ByteBoundedCache(
      options.pixelSiteBytes ?? 32 * MIB,
      (table) => table.byteLength,
    )
  }

  /**
   * Species, then method, climate and treatments are checked (as predict checks them), then the site
   * table's revision is read (one tiny query) to name the raster.
   */
  async order(request: SurvivalRasterRequest, model: SurvivalModel): Promise<RasterOrder> {
    const species = resolveSpecies(request.speciesCode)
    const method = resolvePlantingMethod(request.plantingMethod)
    const climate = CLIMATE_FUTURES.resolve(request.climate)
    const treatments = TREATMENTS.resolve(request.treatments, method)
    const { resolution, horizon } = request
    if (!(resolution >= RASTER_RESOLUTION_MIN && resolution <= RASTER_RESOLUTION_MAX))
      throw invalidField(
        'resolution',
        `must be from ${RASTER_RESOLUTION_MIN} to ${RASTER_RESOLUTION_MAX} degrees`,
        'query string',
      )
    const snapshot = await this.maps.sitesNow()
    this.follow(snapshot.revision)
    const series: MapSeries = { species, method, horizon, climate, model, treatments }
    const climateKey = climate ? `${climate.period}:${climate.scenario}` : 'today'
    const treated = treatmentsKey(treatments)
    const key = [
      snapshot.revision,
      model.version,
      species.code,
      method,
      horizon,
      climateKey,
      resolution,
      this.options.searchRadiusKm,
      // An untreated raster keeps the key it had before treatments.
      ...(treated ? [treated] : []),
    ].join('|')
    return {
      key,
      ready: this.rasters.get(key),
      raster: () => this.raster(key, snapshot, series, resolution),
    }
  }

  /** A new revision of the site table: what was drawn from the others is let go. */
  private follow(revision: string): void {
    if (revision === this.revision) return
    this.revision = revision
    const stale = (key: string) => !key.startsWith(`${revision}|`)
    this.rasters.deleteWhere(stale)
    this.pixelSiteTables.deleteWhere(stale)
  }

  private raster(
    key: string,
    snapshot: SitesSnapshot,
    series: MapSeries,
    resolution: number,
  ): Promise<SurvivalRaster> {
    const held = this.rasters.get(key)
    if (held) return Promise.resolve(held)
    let making = this.making.get(key)
    if (!making) {
      making = this.make(snapshot, series, resolution)
        .then((raster) => {
          if (this.revision === snapshot.revision) this.rasters.set(key, raster)
          return raster
        })
        .finally(() => this.making.delete(key))
      this.making.set(key, making)
    }
    return making
  }

  private async make(
    snapshot: SitesSnapshot,
    series: MapSeries,
    resolution: number,
  ): Promise<SurvivalRaster> {
    const grid = gridOverBox(COVERAGE_EXTENT, resolution)
    const [sites, survival] = await Promise.all([
      this.pixelSites(snapshot, grid),
      this.maps.siteSurvival(snapshot, series),
    ])
    const values = new Float32Array(sites.length)
    for (let pixel = 0; pixel < sites.length; pixel++) {
      const site = sites[pixel] as number
      values[pixel] = site === NO_SITE ? RASTER_NODATA : (survival[site] as number)
    }
    const subject: RasterSubject = { ...series, model: modelInfo(series.model) }
    const bytes = await this.writeGeoTiff({
      ...grid,
      values,
      nodata: RASTER_NODATA,
      metadata: rasterMetadata(subject, {
        dataVersion: snapshot.dataVersion,
        searchRadiusKm: this.options.searchRadiusKm,
        resolution,
        nodata: RASTER_NODATA,
      }),
    })
    const hash = createHash('sha256').update(bytes).digest('base64url')
    return {
      bytes,
      etag: `"${hash.slice(0, 32)}"`,
      fileName: rasterFileName(subject),
      dataVersion: snapshot.dataVersion,
    }
  }

  /** The pixel → site table of a grid, found once per revision and resolution. */
  private pixelSites(snapshot: SitesSnapshot, grid: PixelGrid): Promise<Int32Array> {
    const key = `${snapshot.revision}|${grid.resolution}|${this.options.searchRadiusKm}`
    const held = this.pixelSiteTables.get(key)
    if (held) return Promise.resolve(held)
    let finding = this.findingSites.get(key)
    if (!finding) {
      let finder = this.finders.get(snapshot)
      if (!finder) {
        finder = new PixelSiteFinder(snapshot.sites)
        this.finders.set(snapshot, finder)
      }
      finding = finder
        .find(grid, this.options.searchRadiusKm, isInCoverage)
        .then((table) => {
          if (this.revision === snapshot.revision) this.pixelSiteTables.set(key, table)
          return table
        })
        .finally(() => this.findingSites.delete(key))
      this.findingSites.set(key, finding)
    }
    return finding
  }
}
