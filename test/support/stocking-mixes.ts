import type { MixMember } from '../../src/domain/stocking/stocking-math.ts'
import type { UncertaintyTerms } from '../../src/types.ts'

// The stocking-math tests' stands: the model's uncertainty terms and mixes of species over sites.

/** The model's uncertainty terms (mycel 0.2: model.uncertainty). */
export const TERMS: UncertaintyTerms = { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 }

export const member = (logOddsBySite: number[], share = 1, countsInFull = true): MixMember => ({
  share,
  countsInFull,
  logOddsBySite,
})

/** Eight sites of a stand, from poor to very good. */
export const STAND_LOG_ODDS = [0.2, 1.1, 2.5, -0.4, 1.8, 0.9, 3.0, 1.4]
