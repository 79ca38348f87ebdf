import type { SitesInArea } from '../../src/domain/ports/sites.ts'
import { StockingPlanService } from '../../src/domain/stocking/stocking-service.ts'
import type { StockingPlanRequest } from '../../src/domain/stocking/stocking-types.ts'
import type { Coordinates, Horizon, PlantingMethod, Site, SiteBox } from '../../src/types.ts'
import { FAKE_DATA_VERSION, FakeSiteLookup, FOREST_POINTS, forestSite, NO_DATA_POINT } from './fakes.ts'
import { model, species } from './survival-model.ts'

/** The StockingPlanService unit tests' fixtures: sites, a planner over fakes, a point plan, the model's odds. */

/** The planner's clock. */
export const NOW = new Date('2026-11-24T12:00:00Z')

/** An Oregon Coast Range site (coast zone, site class I–III). */
export const COAST_SITE = forestSite(FOREST_POINTS.coastRange, { zone: 'coast' })
/** Dry, shallow and frosty enough for site class IV–V (productivity 82). */
export const POORER = {
  annualPrecipMm: 600,
  summerWaterDeficitMm: 300,
  soilDepthCm: 60,
  growingSeasonFrostDays: 5,
}

const samePoint = (a: Coordinates, b: Coordinates) => a.latitude === b.latitude && a.longitude === b.longitude

/** SitesInArea over a list: the sites in the box, ordered by id, as the store answers; records the boxes. */
export class FakeSitesInArea implements SitesInArea {
  readonly boxes: SiteBox[] = []
  constructor(private readonly sites: readonly Site[] = []) {}

  async within(box: SiteBox): Promise<{ sites: Site[]; dataVersion: string | null }> {
    this.boxes.push(box)
    const sites = this.sites
      .filter(
        (s) =>
          s.longitude >= box.west &&
          s.longitude <= box.east &&
          s.latitude >= box.south &&
          s.latitude <= box.north,
      )
      .sort((a, b) => a.id - b.id)
    return { sites, dataVersion: sites.length > 0 ? FAKE_DATA_VERSION : null }
  }
}

/** A planner whose nearest-site lookup answers `site` (null at NO_DATA_POINT) and whose area holds `sites`. */
export function planner(options: { site?: Site | null; sites?: Site[] } = {}) {
  const site = options.site === undefined ? COAST_SITE : options.site
  const lookup = new FakeSiteLookup((point) =>
    site === null || samePoint(point, NO_DATA_POINT)
      ? null
      : { site, distanceKm: 1.2, dataVersion: FAKE_DATA_VERSION },
  )
  const area = new FakeSitesInArea(options.sites ?? [])
  return { plans: new StockingPlanService(model, lookup, area, () => NOW), lookup, area }
}

/** Douglas-fir planted by hand at 300 trees per acre at the Coast Range point. */
export const pointPlan: StockingPlanRequest = {
  ...FOREST_POINTS.coastRange,
  plantingMethod: 'manual',
  speciesMix: [{ speciesCode: 'PSME', share: 1 }],
  treesPerAcre: 300,
}

export const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals

/** The model's log-odds of one species at the sites, at one horizon. */
export function logOddsAt(
  sites: readonly Site[],
  code: string,
  method: PlantingMethod,
  horizon: Horizon,
): number[] {
  return sites.map(
    (site) =>
      model.predict(site, species(code), method, [horizon]).find((p) => p.horizonYears === horizon)
        ?.logOdds as number,
  )
}
