import type { SiteAttributes } from '../types.ts'
import { clamp, softUnit, toPlanarKm } from './geography.ts'
import { heatLoadIndex } from './heat-load.ts'
import { createNoiseField, type NoiseField } from './noise-fields.ts'
import { SITE_SEED } from './random.ts'
import type { ForestRegion } from './reference-data.ts'
import { regionProfile, type SiteContext, type TerrainNoise } from './region-profiles.ts'

/** One independent smooth field per attribute family; wavelengths set how far similarity reaches. */
const NOISE_FIELDS: Record<keyof TerrainNoise, NoiseField> = {
  relief: createNoiseField(SITE_SEED + 1, 45, 4),
  ridge: createNoiseField(SITE_SEED + 2, 12, 3),
  moisture: createNoiseField(SITE_SEED + 3, 90, 2),
  texture: createNoiseField(SITE_SEED + 4, 6, 2),
  soil: createNoiseField(SITE_SEED + 5, 15, 2),
  vegetation: createNoiseField(SITE_SEED + 6, 20, 2),
  browse: createNoiseField(SITE_SEED + 7, 30, 2),
  frost: createNoiseField(SITE_SEED + 8, 10, 2),
  deficit: createNoiseField(SITE_SEED + 9, 30, 2),
}
/** Slope aspect follows the downhill direction of this small-scale surface. */
const ASPECT_SURFACE = createNoiseField(SITE_SEED + 10, 5, 2)
const GRADIENT_STEP_KM = 0.25

function sampleNoise(x: number, y: number): TerrainNoise {
  return {
    relief: NOISE_FIELDS.relief(x, y),
    ridge: NOISE_FIELDS.ridge(x, y),
    moisture: NOISE_FIELDS.moisture(x, y),
    texture: NOISE_FIELDS.texture(x, y),
    soil: NOISE_FIELDS.soil(x, y),
    vegetation: NOISE_FIELDS.vegetation(x, y),
    browse: NOISE_FIELDS.browse(x, y),
    frost: NOISE_FIELDS.frost(x, y),
    deficit: NOISE_FIELDS.deficit(x, y),
  }
}

/** Downslope direction of the aspect surface, degrees clockwise from north. */
function downslopeAspectDeg(x: number, y: number): number {
  const east = ASPECT_SURFACE(x + GRADIENT_STEP_KM, y) - ASPECT_SURFACE(x - GRADIENT_STEP_KM, y)
  const north = ASPECT_SURFACE(x, y + GRADIENT_STEP_KM) - ASPECT_SURFACE(x, y - GRADIENT_STEP_KM)
  const degrees = (Math.atan2(-east, -north) * 180) / Math.PI
  return (degrees + 360) % 360
}

function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals
  return Math.round(value * factor) / factor
}

/** Synthetic site attributes at a point of a forest region: smooth noise plus the region's geographic gradients. */
export function siteAttributes(latitude: number, longitude: number, region: ForestRegion): SiteAttributes {
  const { x, y } = toPlanarKm(latitude, longitude)
  const noise = sampleNoise(x, y)
  const site: SiteContext = { latitude, longitude, noise }
  const profile = regionProfile(region.id)

  const elevationSpan = region.elev_max_m - region.elev_min_m
  const elevationM = Math.round(
    region.elev_min_m +
      elevationSpan * softUnit((profile.rawElevationM(site) - region.elev_min_m) / elevationSpan),
  )
  const relativeElevation = (elevationM - region.elev_min_m) / elevationSpan

  const slopeDeg = roundTo(
    clamp(
      profile.ruggedness(site) *
        (6 + 26 * ((noise.texture + 1) / 2) + 12 * Math.abs(noise.ridge) + 6 * relativeElevation),
      0,
      50,
    ),
    1,
  )
  const aspectDeg = Math.round(downslopeAspectDeg(x, y)) % 360
  const heatLoad = heatLoadIndex(latitude, slopeDeg, aspectDeg)

  const wetness = softUnit(profile.wetness(site, elevationM))
  const annualPrecipMm = Math.round(
    region.precip_min_mm * (region.precip_max_mm / region.precip_min_mm) ** wetness,
  )

  const { fromM, mmPerKm } = profile.deficitCooling
  const summerWaterDeficitMm = Math.round(
    clamp(
      profile.baseDeficitMm(site) -
        (mmPerKm * Math.max(0, elevationM - fromM)) / 1000 +
        140 * (heatLoad - 0.5) +
        30 * noise.deficit,
      0,
      600,
    ),
  )

  const { baseDays, daysPerKm, pocketWeight } = profile.frost
  const frostPocket = 12 * pocketWeight * clamp((10 - slopeDeg) / 10)
  const growingSeasonFrostDays = Math.round(
    clamp(
      baseDays + (daysPerKm * Math.max(0, elevationM - 200)) / 1000 + frostPocket + 2.5 * noise.frost,
      0,
      45,
    ),
  )

  const soilDepthCm = Math.round(
    clamp(profile.soilBaseCm * (1.35 - slopeDeg / 40) * (1 + 0.35 * noise.soil), 15, 200),
  )
  const rockFractionPct = Math.round(
    clamp(
      3 +
        40 * (slopeDeg / 50) +
        30 * (1 - clamp((soilDepthCm - 15) / 150)) -
        8 * noise.soil +
        profile.rockBonusPct,
      0,
      80,
    ),
  )

  // Competing vegetation follows moisture: log-scaled precipitation over the whole 250–5000 mm span.
  const moistureShare = clamp(Math.log(annualPrecipMm / 250) / Math.log(20))
  const highElevationThinning = 20 * clamp((relativeElevation - 0.75) / 0.25)
  const vegetationCoverPct = Math.round(
    clamp(
      25 + 80 * moistureShare + 12 * noise.vegetation - 0.25 * rockFractionPct - highElevationThinning,
      5,
      100,
    ),
  )

  const deerAndElk = 0.25 + 0.1 * noise.browse
  const browsePressureIndex = roundTo(
    clamp(deerAndElk + profile.extraBrowse(site, elevationM, annualPrecipMm)),
    2,
  )

  return {
    zone: profile.zone(elevationM),
    elevationM,
    slopeDeg,
    aspectDeg,
    heatLoadIndex: roundTo(heatLoad, 3),
    soilDepthCm,
    rockFractionPct,
    vegetationCoverPct,
    annualPrecipMm,
    summerWaterDeficitMm,
    growingSeasonFrostDays,
    browsePressureIndex,
  }
}
