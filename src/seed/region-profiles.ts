import type { ForestZone } from '../types.ts'
import { bump, clamp, interpolate, kmEastOfCascadeCrest, kmInlandFromPacific } from './geography.ts'

/** Smooth noise values (about −1…1) sampled at one site. */
export interface TerrainNoise {
  relief: number
  ridge: number
  moisture: number
  texture: number
  soil: number
  vegetation: number
  browse: number
  frost: number
  deficit: number
}

export interface SiteContext {
  latitude: number
  longitude: number
  noise: TerrainNoise
}

/** How one forest region shapes its sites. Raw values are mapped into the region's ranges afterwards. */
export interface RegionProfile {
  /** Elevation before the soft squeeze into the region's elev_min_m…elev_max_m. */
  rawElevationM(site: SiteContext): number
  /** 0 = region's precip_min_mm, 1 = precip_max_mm (log scale); soft-squeezed afterwards. */
  wetness(site: SiteContext, elevationM: number): number
  /** Summer water deficit at low elevation on a neutral aspect. */
  baseDeficitMm(site: SiteContext): number
  /** Deficit drops by mmPerKm for every km of elevation above fromM. */
  deficitCooling: { fromM: number; mmPerKm: number }
  /** Frost days = baseDays + daysPerKm × km above 200 m + frost-pocket bonus (flat ground) × pocketWeight. */
  frost: { baseDays: number; daysPerKm: number; pocketWeight: number }
  /** Multiplier on the generic slope model (1 = typical mountain terrain). */
  ruggedness(site: SiteContext): number
  soilBaseCm: number
  rockBonusPct: number
  /** Region-specific browse on top of the deer/elk baseline (mountain beaver, pocket gophers, elk herds). */
  extraBrowse(site: SiteContext, elevationM: number, precipMm: number): number
  zone(elevationM: number): ForestZone
}

/** Mountain beaver: wet, low-to-mid elevation westside forest. */
function mountainBeaver(precipMm: number, elevationM: number): number {
  return 0.35 * clamp((precipMm - 1200) / 1500) * clamp((1300 - elevationM) / 700)
}

/** Pocket gophers peak in mid-elevation openings (grand fir mosaic, pumice flats). */
function pocketGophers(elevationM: number, peakM: number, strength: number): number {
  return strength * Math.exp(-(((elevationM - peakM) / 450) ** 2))
}

function zoneAbove(base: ForestZone, subalpineFromM: number): (elevationM: number) => ForestZone {
  return (elevationM) => (elevationM >= subalpineFromM ? 'subalpine' : base)
}

function westCascadesZone(subalpineFromM: number): (elevationM: number) => ForestZone {
  return (elevationM) => {
    if (elevationM >= subalpineFromM) return 'subalpine'
    return elevationM < 300 ? 'westside_lowland' : 'westside_cascades'
  }
}

/** 0 on the crest, 1 about 70 km to the west: the westside elevation profile. */
function westsideRise(site: SiteContext): number {
  return clamp(1 + kmEastOfCascadeCrest(site.latitude, site.longitude) / 70) ** 1.5
}

/** Dry-side floor elevation east of the Cascades by latitude (pumice plateau, Columbia Gorge, WA foothills). */
const EASTSIDE_FLOOR_M: readonly (readonly [number, number])[] = [
  [42.0, 1300],
  [43.0, 1350],
  [44.0, 1150],
  [44.6, 900],
  [45.2, 500],
  [45.6, 200],
  [45.8, 300],
  [46.3, 700],
  [47.0, 650],
  [47.6, 600],
  [48.2, 500],
  [49.0, 600],
]

function isPumicePlateau(site: SiteContext): boolean {
  return (
    site.latitude > 42.8 && site.latitude < 44.1 && kmEastOfCascadeCrest(site.latitude, site.longitude) > 12
  )
}

const OLYMPIC_CORE: readonly [number, number] = [47.8, -123.6]
const OLYMPIC_RAIN_SHADOW: readonly [number, number] = [48.0, -123.15]
const SAN_JUAN_RAIN_SHADOW: readonly [number, number] = [48.25, -123.0]

function westCascades(state: 'wa' | 'or'): RegionProfile {
  const southernDryness = (site: SiteContext) => (state === 'or' ? clamp((44.0 - site.latitude) / 2) : 0)
  return {
    rawElevationM: (site) =>
      250 +
      (state === 'wa' ? 1550 : 1450) * westsideRise(site) +
      300 * site.noise.relief +
      150 * site.noise.ridge,
    wetness: (site, elevationM) =>
      0.25 +
      0.45 * clamp(elevationM / 1800) +
      0.15 * westsideRise(site) +
      0.1 * site.noise.moisture -
      0.2 * southernDryness(site),
    baseDeficitMm: (site) => (state === 'wa' ? 175 : 190) + 60 * southernDryness(site),
    deficitCooling: { fromM: 300, mmPerKm: 70 },
    frost: { baseDays: 1, daysPerKm: 9, pocketWeight: 0.15 },
    ruggedness: () => 0.95,
    soilBaseCm: 105,
    rockBonusPct: 0,
    extraBrowse: (_site, elevationM, precipMm) => mountainBeaver(precipMm, elevationM),
    zone: westCascadesZone(state === 'wa' ? 1300 : 1400),
  }
}

const eastCascades: RegionProfile = {
  rawElevationM: (site) => {
    const floor = interpolate(EASTSIDE_FLOOR_M, site.latitude)
    const crest = site.latitude > 45.7 ? 1650 : 1750
    const descent = Math.exp(-Math.max(0, kmEastOfCascadeCrest(site.latitude, site.longitude)) / 22)
    return floor + (crest - floor) * descent + 250 * site.noise.relief + 120 * site.noise.ridge
  },
  wetness: (site, elevationM) =>
    0.92 * Math.exp(-Math.max(0, kmEastOfCascadeCrest(site.latitude, site.longitude)) / 25) +
    0.12 * clamp((elevationM - 900) / 1000) +
    0.08 * site.noise.moisture -
    0.05,
  baseDeficitMm: (site) => 300 + 180 * clamp(kmEastOfCascadeCrest(site.latitude, site.longitude) / 45),
  deficitCooling: { fromM: 900, mmPerKm: 90 },
  frost: { baseDays: 5, daysPerKm: 11, pocketWeight: 1 },
  ruggedness: (site) => (isPumicePlateau(site) ? 0.35 : 0.7),
  soilBaseCm: 80,
  rockBonusPct: 5,
  extraBrowse: (site, elevationM) => (isPumicePlateau(site) ? 0.2 : pocketGophers(elevationM, 1300, 0.1)),
  zone: zoneAbove('eastside_cascades', 1700),
}

const BLUE_MOUNTAIN_RANGES: readonly {
  centre: readonly [number, number]
  radiusKm: number
  heightM: number
}[] = [
  { centre: [45.25, -117.35], radiusKm: 30, heightM: 1200 }, // Wallowa Mountains
  { centre: [44.85, -118.05], radiusKm: 20, heightM: 900 }, // Elkhorn Range
  { centre: [44.33, -118.72], radiusKm: 22, heightM: 800 }, // Strawberry Range
  { centre: [44.72, -118.5], radiusKm: 18, heightM: 600 }, // Greenhorn Mountains
  { centre: [45.8, -117.95], radiusKm: 40, heightM: 500 }, // northern Blue Mountains
  { centre: [44.4, -119.3], radiusKm: 25, heightM: 300 }, // Aldrich Mountains
]

const REGION_PROFILES: Record<string, RegionProfile> = {
  coast_range: {
    rawElevationM: (site) => {
      const ridge = Math.exp(-(((kmInlandFromPacific(site.latitude, site.longitude) - 28) / 22) ** 2))
      return 120 + 500 * ridge + 300 * site.noise.relief + 120 * site.noise.ridge
    },
    wetness: (site, elevationM) =>
      0.55 +
      0.3 * clamp(elevationM / 900) -
      0.45 * clamp((kmInlandFromPacific(site.latitude, site.longitude) - 30) / 35) +
      0.12 * site.noise.moisture,
    baseDeficitMm: (site) =>
      40 +
      70 * clamp((kmInlandFromPacific(site.latitude, site.longitude) - 25) / 40) +
      50 * clamp((43.8 - site.latitude) / 1.8),
    deficitCooling: { fromM: 0, mmPerKm: 30 },
    frost: { baseDays: 0, daysPerKm: 5, pocketWeight: 0.05 },
    ruggedness: () => 0.8,
    soilBaseCm: 120,
    rockBonusPct: 0,
    extraBrowse: (_site, elevationM, precipMm) => mountainBeaver(precipMm, elevationM),
    zone: () => 'coast',
  },
  olympic_mountains: {
    rawElevationM: (site) =>
      150 +
      1500 * bump(site.latitude, site.longitude, OLYMPIC_CORE, 40) +
      300 * site.noise.relief +
      150 * site.noise.ridge,
    wetness: (site, elevationM) =>
      0.5 +
      0.35 * clamp(elevationM / 1600) +
      0.15 * clamp((-123.6 - site.longitude) / 0.8) -
      0.55 * bump(site.latitude, site.longitude, OLYMPIC_RAIN_SHADOW, 40) +
      0.1 * site.noise.moisture,
    baseDeficitMm: (site) => 30 + 70 * bump(site.latitude, site.longitude, OLYMPIC_RAIN_SHADOW, 40),
    deficitCooling: { fromM: 0, mmPerKm: 25 },
    frost: { baseDays: 0, daysPerKm: 8, pocketWeight: 0.05 },
    ruggedness: () => 1,
    soilBaseCm: 90,
    rockBonusPct: 5,
    extraBrowse: (_site, elevationM, precipMm) => mountainBeaver(precipMm, elevationM) + 0.1,
    zone: zoneAbove('coast', 1200),
  },
  west_cascades_wa: westCascades('wa'),
  west_cascades_or: westCascades('or'),
  east_cascades: eastCascades,
  klamath_siskiyou: {
    rawElevationM: (site) =>
      850 +
      450 * site.noise.relief +
      250 * site.noise.ridge +
      500 * Math.exp(-(((site.latitude - 42.05) / 0.3) ** 2)) +
      250 * clamp((site.longitude + 123.6) / 1.0),
    wetness: (site, elevationM) =>
      0.15 +
      0.45 * clamp((-123.1 - site.longitude) / 0.9) +
      0.3 * clamp((elevationM - 300) / 1500) +
      0.1 * site.noise.moisture,
    baseDeficitMm: (site) => 330 + 120 * clamp((site.longitude + 123.5) / 1.0),
    deficitCooling: { fromM: 600, mmPerKm: 70 },
    frost: { baseDays: 3, daysPerKm: 9, pocketWeight: 0.3 },
    ruggedness: () => 1.1,
    soilBaseCm: 55,
    rockBonusPct: 8,
    extraBrowse: () => 0.05,
    zone: () => 'klamath',
  },
  blue_mountains: {
    rawElevationM: (site) =>
      1050 +
      300 * site.noise.relief +
      150 * site.noise.ridge +
      BLUE_MOUNTAIN_RANGES.reduce(
        (sum, range) =>
          sum + range.heightM * bump(site.latitude, site.longitude, range.centre, range.radiusKm),
        0,
      ),
    wetness: (site, elevationM) =>
      0.05 +
      0.75 * clamp((elevationM - 700) / 1500) +
      0.15 * clamp((site.longitude + 119) / 2) +
      0.1 * site.noise.moisture,
    baseDeficitMm: () => 400,
    deficitCooling: { fromM: 900, mmPerKm: 90 },
    frost: { baseDays: 6, daysPerKm: 11, pocketWeight: 0.8 },
    ruggedness: () => 0.75,
    soilBaseCm: 65,
    rockBonusPct: 5,
    extraBrowse: (_site, elevationM) => pocketGophers(elevationM, 1500, 0.3) + 0.1,
    zone: zoneAbove('blue_mountains', 1900),
  },
  ochoco_mountains: {
    rawElevationM: (site) =>
      1250 +
      280 * site.noise.relief +
      120 * site.noise.ridge +
      350 * bump(site.latitude, site.longitude, [44.45, -120.35], 25),
    wetness: (site, elevationM) => 0.1 + 0.7 * clamp((elevationM - 900) / 1100) + 0.1 * site.noise.moisture,
    baseDeficitMm: () => 430,
    deficitCooling: { fromM: 1000, mmPerKm: 90 },
    frost: { baseDays: 7, daysPerKm: 11, pocketWeight: 0.8 },
    ruggedness: () => 0.6,
    soilBaseCm: 50,
    rockBonusPct: 5,
    extraBrowse: (_site, elevationM) => pocketGophers(elevationM, 1500, 0.15),
    zone: zoneAbove('blue_mountains', 1900),
  },
  okanogan_selkirk: {
    rawElevationM: (site) => {
      const kettleCrestKm = (site.longitude + 118.45) * 75
      return (
        650 +
        450 * clamp((site.longitude + 119.5) / 2.4) +
        400 * Math.exp(-((kettleCrestKm / 15) ** 2)) +
        380 * site.noise.relief +
        160 * site.noise.ridge
      )
    },
    wetness: (site, elevationM) =>
      0.7 * clamp((site.longitude + 119.5) / 2.2) +
      0.3 * clamp((elevationM - 500) / 1500) +
      0.1 * site.noise.moisture -
      0.05,
    baseDeficitMm: (site) => 420 - 150 * clamp((site.longitude + 119.5) / 2.4),
    deficitCooling: { fromM: 600, mmPerKm: 80 },
    frost: { baseDays: 5, daysPerKm: 11, pocketWeight: 0.6 },
    ruggedness: () => 0.75,
    soilBaseCm: 80,
    rockBonusPct: 3,
    extraBrowse: (_site, elevationM) => pocketGophers(elevationM, 1200, 0.1),
    zone: zoneAbove('okanogan_selkirk', 1800),
  },
  puget_lowland_forest: {
    rawElevationM: (site) =>
      80 +
      230 * clamp((site.longitude + 122.25) / 0.35) +
      150 * clamp((-123.0 - site.longitude) / 0.3) +
      110 * site.noise.relief +
      40 * site.noise.ridge,
    wetness: (site, elevationM) =>
      0.45 +
      0.3 * clamp((site.longitude + 122.35) / 0.45) +
      0.15 * clamp(elevationM / 500) -
      0.55 * bump(site.latitude, site.longitude, SAN_JUAN_RAIN_SHADOW, 45) +
      0.1 * site.noise.moisture,
    baseDeficitMm: (site) => 190 + 50 * bump(site.latitude, site.longitude, SAN_JUAN_RAIN_SHADOW, 45),
    deficitCooling: { fromM: 0, mmPerKm: 40 },
    frost: { baseDays: 1, daysPerKm: 6, pocketWeight: 0.1 },
    ruggedness: () => 0.35,
    soilBaseCm: 150,
    rockBonusPct: 0,
    extraBrowse: (_site, elevationM, precipMm) => mountainBeaver(precipMm, elevationM),
    zone: () => 'westside_lowland',
  },
}

export function regionProfile(regionId: string): RegionProfile {
  const profile = REGION_PROFILES[regionId]
  if (!profile) throw new Error(`no terrain profile for forest region ${regionId}`)
  return profile
}
