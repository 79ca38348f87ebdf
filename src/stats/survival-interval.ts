import type { UncertaintyTerms } from '../types.ts'
import { sigmoid } from './logistic.ts'
import { normalQuantile } from './normal.ts'

/** The levels an interval or a plan's confidence may take. */
export const INTERVAL_LEVEL_MIN = 0.5
export const INTERVAL_LEVEL_MAX = 0.99

export interface SurvivalInterval {
  lower: number
  upper: number
  level: number
}

/**
 * The central interval of survival for one planting at a site like this one: the prediction's log-odds
 * shifted by a planting-year and a site effect (independent normals on the logit scale). The
 * prediction's own probability is the median, so it always lies inside.
 */
export function survivalInterval(logOdds: number, terms: UncertaintyTerms, level: number): SurvivalInterval {
  if (!(level >= INTERVAL_LEVEL_MIN && level <= INTERVAL_LEVEL_MAX))
    throw new RangeError(`interval level ${level} outside ${INTERVAL_LEVEL_MIN}–${INTERVAL_LEVEL_MAX}`)
  const spread = Math.hypot(terms.plantingYearSd, terms.siteSd) * normalQuantile((1 + level) / 2)
  return { lower: sigmoid(logOdds - spread), upper: sigmoid(logOdds + spread), level }
}
