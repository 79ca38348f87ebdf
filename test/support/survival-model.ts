import { findSpecies, SPECIES } from '../../src/domain/species.ts'
import { loadSurvivalModel } from '../../src/model/index.ts'
import type { Species } from '../../src/types.ts'

/** The survival model over the species catalogue, as the services load it. */
export const model = loadSurvivalModel(SPECIES)

/** A species of the catalogue by its code (throws when the catalogue lacks it). */
export function species(code: string): Species {
  const found = findSpecies(code)
  if (!found) throw new Error(`${code} is missing from the catalogue`)
  return found
}
