import { z } from 'zod'
import {
  catalogueCode,
  confidence,
  ruleSetId,
  SPECIES_MIX_MAX,
  siteClassName,
  speciesShare,
  stand,
  treesPerAcre,
  treesPerHectare,
} from '../domain/input-rules.ts'
import type { InputRow } from '../domain/jobs/file-formats.ts'
import { standCentroid } from '../domain/stocking/stand.ts'
import type { StockingPlanRequest } from '../domain/stocking/stocking-types.ts'
import {
  namesTreatmentsOnce,
  oneTreatments,
  rowTreatments,
  TREATMENT_FIELDS,
  treatmentsObject,
} from '../domain/treatment-fields.ts'
import {
  type CheckedFeature,
  climateFields,
  climateOf,
  featureId,
  issueText,
  namesOneClimate,
  oneClimate,
  ownProperties,
  refused,
} from './feature-checks.ts'

const StandProperties = z
  .object({
    id: featureId.optional(),
    species_code: catalogueCode.min(1, 'is required').optional(),
    species_mix: z
      .array(z.strictObject({ species_code: catalogueCode, share: speciesShare }), {
        error: 'must be an array of {species_code, share}',
      })
      .min(1, 'must hold at least one species')
      .max(SPECIES_MIX_MAX, `may hold at most ${SPECIES_MIX_MAX} species`)
      .optional(),
    planting_method: catalogueCode.min(1, 'is required'),
    trees_per_acre: treesPerAcre.nullish(),
    trees_per_hectare: treesPerHectare.nullish(),
    confidence: confidence.nullish(),
    rule_set: ruleSetId.nullish(),
    site_class: siteClassName.nullish(),
    target_trees_per_acre: treesPerAcre.nullish(),
    ...climateFields,
    ...TREATMENT_FIELDS,
    treatments: treatmentsObject.nullish(),
  })
  .refine(namesOneClimate, oneClimate)
  .refine(namesTreatmentsOnce, oneTreatments)

/** The species a stand echoes: its mix as code:share|code:share, else its species_code. */
function speciesCell(properties: Record<string, unknown>): unknown {
  return Array.isArray(properties.species_mix)
    ? (properties.species_mix as { species_code?: unknown; share?: unknown }[])
        .map((item) => `${String(item?.species_code)}:${String(item?.share)}`)
        .join('|')
    : (properties.species_code ?? null)
}

/** A stand's centre to 6 decimals (about 0.1 m): enough to find it, without float residue. */
function rounded(value: number | undefined): number | null {
  return value === undefined ? null : Math.round(value * 1e6) / 1e6
}

/**
 * A Polygon or MultiPolygon feature as a stocking plan to make (`p`): its properties carry the fields
 * of POST /v1/plans/stocking, and it echoes its centre as its position. Or the reason it fails alone;
 * a ring's own checks (closed, no crossings, size) are the plan's, when it is scored.
 */
export function standRow(feature: CheckedFeature): InputRow {
  const { geometry, properties } = feature
  const checkedGeometry = stand.safeParse(geometry, { reportInput: true })
  const centre = checkedGeometry.success
    ? standCentroid(
        checkedGeometry.data.type === 'Feature' ? checkedGeometry.data.geometry : checkedGeometry.data,
      )
    : null
  const cells = feature.cells(
    geometry.type,
    rounded(centre?.latitude),
    rounded(centre?.longitude),
    speciesCell(properties),
  )
  if (!checkedGeometry.success) return refused(feature, cells, issueText(checkedGeometry.error, 'geometry'))
  const parsed = StandProperties.safeParse(properties, { reportInput: true })
  if (!parsed.success) return refused(feature, cells, issueText(parsed.error, 'properties'), geometry)
  const fields = parsed.data
  const mix = fields.species_mix
  const speciesMix = mix
    ? mix.map((item) => ({ speciesCode: item.species_code, share: item.share }))
    : fields.species_code
      ? [{ speciesCode: fields.species_code, share: 1 }]
      : null
  if (!speciesMix)
    return refused(feature, cells, 'properties.species_mix (or species_code) is required', geometry)
  const plan: StockingPlanRequest = {
    stand: checkedGeometry.data,
    plantingMethod: fields.planting_method,
    speciesMix,
    treesPerAcre: fields.trees_per_acre,
    treesPerHectare: fields.trees_per_hectare,
    confidence: fields.confidence,
    ruleSet: fields.rule_set,
    siteClass: fields.site_class,
    targetTreesPerAcre: fields.target_trees_per_acre,
    climate: climateOf(fields) ?? null,
  }
  const treatments = rowTreatments(fields)
  if (treatments) plan.treatments = treatments
  return { r: feature.row, c: cells, p: plan, g: geometry, ...ownProperties(feature.checkedOwn) }
}
