import { cellBoundary, cellCentre, cellOf, loadHexagons, resolutionForCellKm } from '../geo/hexagons.ts'
import { LruCache } from '../lru-cache.ts'
import type {
  Coordinates,
  Horizon,
  ModelInfo,
  PlantingMethod,
  Site,
  Species,
  SurvivalModel,
} from '../types.ts'
import { modelInfo, resolvePlantingMethod, resolveSpecies } from './catalogue.ts'
import { CLIMATE_FUTURES, type ClimateFuture, ProjectedSite } from './climate.ts'
import type { SiteTable } from './ports/sites.ts'
import type { SurvivalCell, SurvivalMap, SurvivalMapRequest } from './prediction-types.ts'
import { treatmentsKey } from './treatment-fields.ts'
import type { AppliedTreatments } from './treatment-types.ts'
import { TREATMENTS } from './treatments.ts'

/** One series of per-site survival values: a species, planted one way, at one horizon, in one climate. */
export interface MapSeries {
  species: Species
  method: PlantingMethod
  horizon: Horizon
  climate: ClimateFuture | null
  /** The model version mapped: a version's name names its content, so it keys the caches. */
  model: SurvivalModel
  /** Establishment treatments, resolved for the method; absent or null: untreated. */
  treatments?: AppliedTreatments | null
}

/** An untreated series keeps the key it had before treatments; a treated one adds its values. */
export function seriesKey(what: MapSeries): string {
  const climate = what.climate ? `${what.climate.period}:${what.climate.scenario}` : 'today'
  const treated = treatmentsKey(what.treatments)
  return `${what.model.version}:${what.species.code}:${what.method}:${what.horizon}:${climate}${treated ? `:${treated}` : ''}`
}

/** Sites evaluated between two yields to the event loop (~8 ms of model work), so other requests keep flowing. */
const SITES_PER_SLICE = 2048

/** Each site's H3 cell at `resolution`, in the order of `sites`. */
export function cellsOfSites(sites: readonly Coordinates[], resolution: number): string[] {
  return sites.map((site) => cellOf(site.latitude, site.longitude, resolution))
}

/** Where a cell is: its centre and its outline (see SurvivalCell). */
type CellGeometry = Pick<SurvivalCell, 'latitude' | 'longitude' | 'boundary'>

function cellGeometry(h3Index: string): CellGeometry {
  return { ...cellCentre(h3Index), boundary: cellBoundary(h3Index) }
}

/**
 * Each cell's geometry worked out once: every map at a resolution has the same cells, and a cell's
 * outline (7 positions) weighs more than its numbers, so the maps held in the cache share it.
 */
function geometryOnce(): (h3Index: string) => CellGeometry {
  const known = new Map<string, CellGeometry>()
  return (h3Index) => {
    let geometry = known.get(h3Index)
    if (!geometry) {
      geometry = cellGeometry(h3Index)
      known.set(h3Index, geometry)
    }
    return geometry
  }
}

/**
 * Sites grouped by cell: per cell the mean, minimum and maximum survival and the number of sites, with
 * the cell's centre and outline. Only cells holding a site appear, ordered by H3 index.
 */
export function aggregateCells(
  cellOfSite: readonly string[],
  survival: ArrayLike<number>,
  today?: ArrayLike<number>,
  geometryOf: (h3Index: string) => CellGeometry = cellGeometry,
): SurvivalCell[] {
  if (cellOfSite.length !== survival.length) throw new RangeError('one survival value per site')
  if (today && today.length !== survival.length) throw new RangeError('one value of today per site')
  const totals = new Map<string, { sum: number; min: number; max: number; sites: number; today: number }>()
  for (let i = 0; i < cellOfSite.length; i++) {
    const cell = cellOfSite[i] as string
    const value = survival[i] as number
    const before = today ? (today[i] as number) : 0
    const total = totals.get(cell)
    if (total) {
      total.sum += value
      if (value < total.min) total.min = value
      if (value > total.max) total.max = value
      total.sites += 1
      total.today += before
    } else {
      totals.set(cell, { sum: value, min: value, max: value, sites: 1, today: before })
    }
  }
  return [...totals.keys()].sort().map((h3Index) => {
    const total = totals.get(h3Index) as {
      sum: number
      min: number
      max: number
      sites: number
      today: number
    }
    const { latitude, longitude, boundary } = geometryOf(h3Index)
    return {
      h3Index,
      latitude,
      longitude,
      boundary,
      // Clamped: a float sum can put the mean of identical values a hair outside [min, max].
      meanSurvival: Math.min(total.max, Math.max(total.min, total.sum / total.sites)),
      minSurvival: total.min,
      maxSurvival: total.max,
      sites: total.sites,
      changeFromToday: today ? (total.sum - total.today) / total.sites : null,
    }
  })
}

/** Every site of one revision of the site table: one object per revision, so it may key what is derived from it. */
export interface SitesSnapshot {
  readonly revision: string
  /** The site data version the sites belong to (null before any is active). */
  readonly dataVersion: string | null
  readonly sites: readonly Site[]
}

/** A snapshot, and what has been worked out from its sites so far. */
interface SiteSnapshot extends SitesSnapshot {
  sites: Site[]
  /** Each site's cell and the cells' geometry, per H3 resolution asked for (the input rules allow four: 2–5). */
  cellsByResolution: Map<number, { cellOfSite: string[]; geometryOf: (h3Index: string) => CellGeometry }>
  /** Each site's survival probability per species × method × horizon, in `sites` order. */
  survival: LruCache<string, Float64Array>
  /** Survival computations under way, so concurrent requests for one key share one. */
  computing: Map<string, Promise<Float64Array>>
  /** The aggregated cells per species × method × horizon × resolution. */
  maps: LruCache<string, readonly SurvivalCell[]>
}

export interface SurvivalMapOptions {
  /**
   * Entries kept in each cache (per-site survival arrays, 8 bytes × sites each; aggregated maps). Every
   * species × method × horizon is 120 keys; a bound keeps memory flat when the site table grows.
   */
  cacheEntries: number
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * "Where does this species survive best?": the model evaluated at every site of the data set, once per
 * species, method and horizon, aggregated into H3 hexagons of about the requested size.
 *
 * Caching: the sites, each key's per-site survival and each aggregation are kept in this process
 * (bounded LRU caches) for the site table's current revision. Every call reads the revision (one tiny
 * query; sql/004_site_revision.sql bumps it on any change to the table) and starts over from a fresh
 * read of the sites when it changed, e.g. after `npm run db:seed` from another process.
 */
export class SurvivalMapService {
  readonly model: ModelInfo
  private loaded: SiteSnapshot | undefined
  private loading: Promise<SiteSnapshot> | undefined

  constructor(
    private readonly survivalModel: SurvivalModel,
    private readonly siteTable: SiteTable,
    private readonly options: SurvivalMapOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = modelInfo(survivalModel)
    if (!Number.isInteger(options.cacheEntries) || options.cacheEntries < 1) {
      throw new RangeError('cacheEntries must be a positive integer')
    }
  }

  /**
   * Species first, then method, climate and treatments (the order predict reports them in), then the sites.
   * `model`: the version to map (ModelRegistry.resolve); without one, the service's own.
   */
  async map(request: SurvivalMapRequest, model = this.survivalModel): Promise<SurvivalMap> {
    const species = resolveSpecies(request.speciesCode)
    const plantingMethod = resolvePlantingMethod(request.plantingMethod)
    const climate = CLIMATE_FUTURES.resolve(request.climate)
    const treatments = TREATMENTS.resolve(request.treatments, plantingMethod)
    await loadHexagons()
    const resolution = resolutionForCellKm(request.cellKm)
    const snapshot = await this.current()
    const what: MapSeries = {
      species,
      method: plantingMethod,
      horizon: request.horizon,
      climate,
      model,
      treatments,
    }
    const cells = await this.cells(snapshot, what, resolution, false)
    return {
      ...(climate
        ? {
            climate: { ...climate, dataVersion: CLIMATE_FUTURES.dataVersion },
            cellsWithChange: () => this.cells(snapshot, what, resolution, true),
          }
        : {}),
      ...(treatments ? { treatments } : {}),
      species,
      plantingMethod,
      horizonYears: request.horizon,
      cellKm: request.cellKm,
      h3Resolution: resolution,
      siteCount: snapshot.sites.length,
      siteDataVersion: snapshot.dataVersion,
      cells,
      model: modelInfo(model),
      generatedAt: this.now(),
    }
  }

  /** Every site of the table's current revision, for other products drawn from them (rasters). */
  sitesNow(): Promise<SitesSnapshot> {
    return this.current()
  }

  /**
   * Each site's survival in `series`, in the order of `snapshot.sites` (a snapshot sitesNow gave): worked
   * out once per snapshot and series, and shared with the maps.
   */
  siteSurvival(snapshot: SitesSnapshot, series: MapSeries): Promise<Float64Array> {
    // Snapshots are made only here, each with its caches.
    return this.survival(snapshot as SiteSnapshot, series)
  }

  /** The snapshot of the table's current revision: the one held, or a fresh read of every site. */
  private async current(): Promise<SiteSnapshot> {
    const revision = await this.siteTable.revision()
    if (this.loaded?.revision === revision) return this.loaded
    if (this.loading) {
      // A read under way may have started before the table changed: use it only if it saw this revision.
      const inFlight = await this.loading
      if (inFlight.revision === revision) return inFlight
    }
    // A read started from here on sees this revision or a later one.
    this.loading ??= this.load()
    return this.loading
  }

  private load(): Promise<SiteSnapshot> {
    return this.siteTable
      .all()
      .then(({ revision, dataVersion, sites }) => {
        const snapshot: SiteSnapshot = {
          revision,
          dataVersion,
          sites,
          cellsByResolution: new Map(),
          survival: new LruCache(this.options.cacheEntries),
          computing: new Map(),
          maps: new LruCache(this.options.cacheEntries),
        }
        this.loaded = snapshot
        return snapshot
      })
      .finally(() => {
        this.loading = undefined
      })
  }

  /**
   * The cells of a series at a resolution; `withChange`: under a future climate, each cell also says how
   * it differs from today, which needs today's values too (a series of their own, shared with today's
   * maps), so only the callers that ask for the change pay for it.
   */
  private async cells(
    snapshot: SiteSnapshot,
    what: MapSeries,
    resolution: number,
    withChange: boolean,
  ): Promise<readonly SurvivalCell[]> {
    const change = withChange && what.climate !== null
    const mapKey = `${seriesKey(what)}:${resolution}${change ? ':change' : ''}`
    const cached = snapshot.maps.get(mapKey)
    if (cached) return cached
    const [survival, today] = await Promise.all([
      this.survival(snapshot, what),
      change ? this.survival(snapshot, { ...what, climate: null }) : undefined,
    ])
    // Another request may have aggregated it while this one waited for the survival values.
    const done = snapshot.maps.get(mapKey)
    if (done) return done
    let cellsAt = snapshot.cellsByResolution.get(resolution)
    if (!cellsAt) {
      cellsAt = { cellOfSite: cellsOfSites(snapshot.sites, resolution), geometryOf: geometryOnce() }
      snapshot.cellsByResolution.set(resolution, cellsAt)
    }
    const cells = aggregateCells(cellsAt.cellOfSite, survival, today, cellsAt.geometryOf)
    snapshot.maps.set(mapKey, cells)
    return cells
  }

  private survival(snapshot: SiteSnapshot, what: MapSeries): Promise<Float64Array> {
    const key = seriesKey(what)
    const cached = snapshot.survival.get(key)
    if (cached) return Promise.resolve(cached)
    let computing = snapshot.computing.get(key)
    if (!computing) {
      computing = this.evaluate(snapshot.sites, what)
        .then((values) => {
          snapshot.survival.set(key, values)
          return values
        })
        .finally(() => snapshot.computing.delete(key))
      snapshot.computing.set(key, computing)
    }
    return computing
  }

  /** The model at every site (projected into the series' climate, if any), a slice at a time. */
  private async evaluate(sites: readonly Site[], what: MapSeries): Promise<Float64Array> {
    const { species, method, climate, model } = what
    const effects = what.treatments?.modelEffects
    const values = new Float64Array(sites.length)
    const horizons = [what.horizon]
    // The model reads a site and keeps nothing of it, so one projected site serves every site in turn.
    const projected = new ProjectedSite()
    for (let start = 0; start < sites.length; start += SITES_PER_SLICE) {
      if (start > 0) await yieldToEventLoop()
      const end = Math.min(start + SITES_PER_SLICE, sites.length)
      for (let i = start; i < end; i++) {
        const site = climate
          ? CLIMATE_FUTURES.projectSite(sites[i] as Site, climate, projected)
          : (sites[i] as Site)
        const [prediction] = model.predict(site, species, method, horizons, effects)
        if (!prediction) throw new Error(`the model gave no prediction for ${species.code}`)
        values[i] = prediction.survivalProbability
      }
    }
    return values
  }
}
