import { CLIMATE_DATA_NOTE, type ClimateFuture } from '../climate.ts'
import type { AppliedTreatments } from '../treatment-types.ts'
import type { CheckedShare } from './plan-request.ts'
import { STOCKING_STANDARDS, type StockingRule } from './standards.ts'
import { MAX_REQUIRED_TREES_PER_ACRE, round } from './stocking-math.ts'
import { type PlanPointSite, type PlanStand, STAND_SITES_LISTED } from './stocking-types.ts'

const NOTE_SURVIVAL_ONLY =
  'Survival only: whether the trees will be free to grow (ahead of competing vegetation) is not assessed, and the rules count only free-to-grow trees'
const NOTE_ASSUMPTIONS =
  'The interval and the probability come from stated assumptions (a planting-year and a site effect on the logit scale, and clumped plot counts), not fitted values: see the model card'

/**
 * What a plan says of itself: the standards' caveat, that it judges survival only, its assumptions,
 * and whatever applies here (figures to verify, the hardwood cap, a stand planned from a site outside
 * it, the climate data, no density that meets the target, the interval for carbon use).
 */
export function planNotes(plan: {
  rule: StockingRule
  mix: readonly CheckedShare[]
  cap: number | null
  climate: ClimateFuture | null
  treatments?: AppliedTreatments | null
  where: PlanPointSite | PlanStand
  requiredTpa: number | null
  halfWidthShare: number | null
  target: number
}): string[] {
  const notes = [STOCKING_STANDARDS.description, NOTE_SURVIVAL_ONLY, NOTE_ASSUMPTIONS]
  if (plan.rule.verify)
    notes.push(
      `The minimum of ${plan.rule.minimumTreesPerAcre} trees per acre for site class ${plan.rule.siteClass} came from secondary summaries: verify it against ${plan.rule.citation} before relying on it`,
    )
  if (plan.cap !== null && plan.mix.some((item) => item.species.group === 'hardwood'))
    notes.push(
      `Hardwoods count toward the standard for at most ${Math.round((plan.rule.hardwoodShareCap ?? 0) * 100)} % of it (${round(plan.cap, 1)} trees per acre): a conservative reading of OAR 629-610-0050`,
    )
  if (plan.where.kind === 'stand' && plan.where.nearestSiteUsed)
    notes.push(
      `No data site lies inside the stand: the nearest one, ${plan.where.nearestSiteDistanceKm} km from its centre, stands for it`,
    )
  if (plan.where.kind === 'stand' && plan.where.sitesInside > STAND_SITES_LISTED)
    notes.push(
      `The stand holds ${plan.where.sitesInside} data sites; the first ${STAND_SITES_LISTED} by id are listed`,
    )
  if (plan.climate) notes.push(CLIMATE_DATA_NOTE)
  if (plan.treatments)
    notes.push(
      `Treatments: ${plan.treatments.effects.map((e) => `${e.treatment} ${e.value} (${e.status})`).join(', ')}. Each removes a share of its factors' penalty, read from the reference's figures; the figures' ranges widen the interval and enter the probability (docs/treatments.md)`,
    )
  if (plan.requiredTpa === null)
    notes.push(
      `No density up to ${MAX_REQUIRED_TREES_PER_ACRE} trees per acre meets ${plan.target} per acre at this confidence here: choose other species or another method`,
    )
  if (plan.halfWidthShare !== null)
    notes.push(
      `For carbon use: the 90 % interval's half-width is ${round(plan.halfWidthShare * 100, 1)} % of the expected survivors at ${plan.rule.horizonYears} year(s) (Verra VM0047 issues no credits above 100 %)`,
    )
  return notes
}
