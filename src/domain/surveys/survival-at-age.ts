import { logit, sigmoid } from '../../stats/logistic.ts'

/** The model's survival at 1, 3 and 5 years for one site, species and method. */
export interface HorizonSurvival {
  1: number
  3: number
  5: number
}

/**
 * Survival at any age from the three horizons (docs/model-card.md, "Checking the model against your
 * surveys"):
 * - from 1 to 5 years, linear in the logit between the neighbouring horizons;
 * - past 5 years, the 3→5 decline in the logit carried on at the same rate;
 * - before 1 year, S₁^age: a constant mortality rate over the first year, from survival 1 at planting.
 *   (The logit of survival 1 is infinite, so the first year cannot be interpolated on that scale.)
 */
export function survivalAtAge(survival: HorizonSurvival, ageYears: number): number {
  if (!(ageYears > 0)) throw new RangeError(`age must be positive, got ${ageYears}`)
  if (ageYears < 1) return survival[1] ** ageYears
  const [from, to, fromAge] = ageYears <= 3 ? [survival[1], survival[3], 1] : [survival[3], survival[5], 3]
  const slope = (logit(to) - logit(from)) / 2
  return sigmoid(logit(from) + slope * (ageYears - fromAge))
}

const DAY_MS = 86_400_000
const DAYS_PER_YEAR = 365.25

/** Whole days between two UTC dates, in years of 365.25 days. */
export function ageInYears(plantedOn: Date, surveyedOn: Date): number {
  return Math.round((surveyedOn.getTime() - plantedOn.getTime()) / DAY_MS) / DAYS_PER_YEAR
}

/**
 * How far logit(survivalAtAge) moves per unit of a parameter that moves the horizons' logits by
 * `slopes` (∂logit S_h/∂θ at 1, 3 and 5 years): the derivative of survivalAtAge's rule, exactly.
 */
export function logitSlopeAtAge(
  survival: HorizonSurvival,
  slopes: HorizonSurvival,
  ageYears: number,
): number {
  if (!(ageYears > 0)) throw new RangeError(`age must be positive, got ${ageYears}`)
  if (ageYears < 1) {
    // p = S₁^age: dlogit p = age (1 − S₁) / (1 − p) · dlogit S₁.
    const p = survival[1] ** ageYears
    return p < 1 ? (ageYears * (1 - survival[1]) * slopes[1]) / (1 - p) : slopes[1]
  }
  const [from, to, fromAge] = ageYears <= 3 ? [slopes[1], slopes[3], 1] : [slopes[3], slopes[5], 3]
  return from + ((to - from) / 2) * (ageYears - fromAge)
}
