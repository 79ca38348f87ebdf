import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { projectFile } from '../project-files.ts'

const nonNegative = z.number().finite().nonnegative()
const finite = z.number().finite()

const perMethod = <T extends z.ZodType>(schema: T) => z.strictObject({ manual: schema, drone_seeded: schema })

const horizonParameters = z.strictObject({
  /** α: log-odds of survival at a site where every penalty is zero. */
  intercept: finite,
  /** κ: multiplies the summed penalties; grows with horizon so penalties compound over time. */
  scale: z.number().finite().positive(),
})

const horizonSet = z
  .strictObject({ '1': horizonParameters, '3': horizonParameters, '5': horizonParameters })
  .refine((h) => h['1'].intercept >= h['3'].intercept && h['3'].intercept >= h['5'].intercept, {
    message: 'horizon intercepts must be non-increasing (1 ≥ 3 ≥ 5) so survival never rises with time',
  })
  .refine((h) => h['1'].scale <= h['3'].scale && h['3'].scale <= h['5'].scale, {
    message: 'horizon scales must be non-decreasing (1 ≤ 3 ≤ 5) so survival never rises with time',
  })

const toleranceLevels = z.strictObject({ low: nonNegative, moderate: nonNegative, high: nonNegative })

const traitMultiplier = z.discriminatedUnion('trait', [
  z.strictObject({ trait: z.literal('droughtTolerance'), levels: toleranceLevels }),
  z.strictObject({ trait: z.literal('frostTolerance'), levels: toleranceLevels }),
  z.strictObject({
    trait: z.literal('shadeTolerance'),
    levels: z.strictObject({
      very_low: nonNegative,
      low: nonNegative,
      moderate: nonNegative,
      high: nonNegative,
      very_high: nonNegative,
    }),
  }),
  z.strictObject({
    trait: z.literal('group'),
    levels: z.strictObject({ conifer: nonNegative, hardwood: nonNegative }),
  }),
])

const factorCommon = {
  name: z.string().trim().min(1),
  description: z.string().trim().min(1),
  /** Weight of the factor per planting method (log-odds per unit of severity). */
  methodWeight: perMethod(nonNegative),
  /** Species-trait multiplier on the weight. */
  traitMultiplier: traitMultiplier.optional(),
  /** Per-species multiplier on the weight, for traits not captured by the tolerance classes. */
  speciesMultiplier: z.record(z.string().regex(/^[A-Z]{4}$/), nonNegative).optional(),
  /** Severity is capped here so one extreme input cannot dominate without bound. */
  maxSeverity: z.number().finite().positive(),
}

const factorSpec = z.discriminatedUnion('key', [
  z.strictObject({
    key: z.literal('summer_water_deficit'),
    ...factorCommon,
    params: z.strictObject({ onsetMmByDroughtTolerance: toleranceLevels, unitMm: z.number().positive() }),
  }),
  z.strictObject({
    key: z.literal('precipitation_range'),
    ...factorCommon,
    params: z.strictObject({ belowRangePerLogRatio: nonNegative, aboveRangePerLogRatio: nonNegative }),
  }),
  z.strictObject({
    key: z.literal('elevation_range'),
    ...factorCommon,
    params: z.strictObject({ belowRangePer100m: nonNegative, aboveRangePer100m: nonNegative }),
  }),
  z.strictObject({
    key: z.literal('frost_exposure'),
    ...factorCommon,
    params: z.strictObject({ unitDays: z.number().positive() }),
  }),
  z.strictObject({
    key: z.literal('heat_load'),
    ...factorCommon,
    params: z.strictObject({
      onsetIndex: z.number().min(0).lt(1),
      dryFloor: z.number().min(0).max(1),
      fullDryDeficitMm: z.number().positive(),
    }),
  }),
  z.strictObject({
    key: z.literal('competing_vegetation'),
    ...factorCommon,
    params: z.strictObject({ controlledCoverPct: z.number().min(0).lt(100) }),
  }),
  z.strictObject({ key: z.literal('browse_predation'), ...factorCommon, params: z.strictObject({}) }),
  z.strictObject({
    key: z.literal('shallow_soil'),
    ...factorCommon,
    params: z
      .strictObject({ adequateDepthCm: z.number().positive(), shallowestDepthCm: nonNegative })
      .refine((p) => p.shallowestDepthCm < p.adequateDepthCm, {
        message: 'shallowestDepthCm must be below adequateDepthCm',
      }),
  }),
  z.strictObject({
    key: z.literal('rock_fraction'),
    ...factorCommon,
    params: z.strictObject({ fullEffectPct: z.number().positive() }),
  }),
  z.strictObject({
    key: z.literal('slope'),
    ...factorCommon,
    params: z.strictObject({ onsetDeg: nonNegative, unitDeg: z.number().positive() }),
  }),
  z.strictObject({ key: z.literal('native_range'), ...factorCommon, params: z.strictObject({}) }),
])

export const FACTOR_KEYS = [
  'summer_water_deficit',
  'precipitation_range',
  'elevation_range',
  'frost_exposure',
  'heat_load',
  'competing_vegetation',
  'browse_predation',
  'shallow_soil',
  'rock_fraction',
  'slope',
  'native_range',
] as const

const range = z
  .tuple([finite, finite])
  .refine(([min, max]) => min <= max, { message: 'range minimum must not exceed maximum' })

const inputRanges = z.strictObject({
  elevationM: range,
  slopeDeg: range,
  aspectDeg: range,
  heatLoadIndex: range,
  soilDepthCm: range,
  rockFractionPct: range,
  vegetationCoverPct: range,
  annualPrecipMm: range,
  summerWaterDeficitMm: range,
  growingSeasonFrostDays: range,
  browsePressureIndex: range,
})

/**
 * The reference site against which explanations are measured. Physical attributes are fixed;
 * the species-relative ones (zone, elevation, precipitation) sit inside each species' own niche,
 * so the range factors never explain a prediction "positively" merely because the reference lay
 * outside a species' range.
 */
const referenceSite = z.strictObject({
  zone: z.literal('species_native_zone'),
  elevationM: z.literal('species_range_midpoint'),
  annualPrecipMm: z.literal('species_range_midpoint'),
  slopeDeg: finite,
  aspectDeg: finite,
  heatLoadIndex: finite,
  soilDepthCm: finite,
  rockFractionPct: finite,
  vegetationCoverPct: finite,
  summerWaterDeficitMm: finite,
  growingSeasonFrostDays: finite,
  browsePressureIndex: finite,
})

/**
 * Variance terms on the logit scale (assumptions, not fitted: docs/model-card.md → uncertainty). A
 * prediction's own survival probability is the median of the distribution they describe.
 */
const uncertainty = z.strictObject({
  description: z.string().trim().min(1),
  /** SD of the planting-year effect, shared by every tree planted in one stand in one year. */
  plantingYearSd: nonNegative,
  /** SD of the unexplained site effect: what the site's attributes do not tell. */
  siteSd: nonNegative,
  /** Variance of a per-acre count of survivors over the binomial's (≥ 1): seedlings die in clumps. */
  clumpingDispersion: z.number().finite().min(1),
})

const artifactSchema = z
  .strictObject({
    series: z.string().trim().min(1),
    version: z.string().trim().min(1),
    codename: z.string().trim().min(1),
    description: z.string().trim().min(1),
    referenceSite,
    inputRanges,
    horizons: perMethod(horizonSet),
    factors: z.array(factorSpec).min(1),
    uncertainty,
  })
  .refine((a) => FACTOR_KEYS.every((key) => a.factors.filter((f) => f.key === key).length === 1), {
    message: `factors must list each of ${FACTOR_KEYS.join(', ')} exactly once`,
  })
  .refine((a) => new Set(a.factors.map((f) => f.name)).size === a.factors.length, {
    message: 'factor names must be unique',
  })

export type ModelArtifact = z.infer<typeof artifactSchema>
export type FactorSpec = ModelArtifact['factors'][number]
export type FactorKey = FactorSpec['key']
export type InputRanges = ModelArtifact['inputRanges']
export type ReferenceSiteSpec = ModelArtifact['referenceSite']

export const DEFAULT_ARTIFACT_URL = projectFile('src/model/artifacts/mycel-0.2.json')

export function parseArtifact(json: unknown, source = 'model artifact'): ModelArtifact {
  const result = artifactSchema.safeParse(json)
  if (!result.success) {
    throw new Error(`${source} is invalid:\n${z.prettifyError(result.error)}`)
  }
  return result.data
}

export function readArtifact(path: string | URL = DEFAULT_ARTIFACT_URL): ModelArtifact {
  const text = readFileSync(path, 'utf8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(`model artifact ${String(path)} is not valid JSON: ${(error as Error).message}`)
  }
  return parseArtifact(json, `model artifact ${String(path)}`)
}
