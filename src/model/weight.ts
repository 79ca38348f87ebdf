import type { PlantingMethod, Species } from '../types.ts'
import type { FactorSpec } from './artifact.ts'

/** Log-odds penalty per unit of severity for one species and method. */
export function factorWeight(spec: FactorSpec, species: Species, method: PlantingMethod): number {
  const speciesMultiplier = spec.speciesMultiplier?.[species.code] ?? 1
  return spec.methodWeight[method] * traitMultiplier(spec, species) * speciesMultiplier
}

function traitMultiplier(spec: FactorSpec, species: Species): number {
  const multiplier = spec.traitMultiplier
  if (multiplier === undefined) return 1
  switch (multiplier.trait) {
    case 'droughtTolerance':
      return multiplier.levels[species.droughtTolerance]
    case 'frostTolerance':
      return multiplier.levels[species.frostTolerance]
    case 'shadeTolerance':
      return multiplier.levels[species.shadeTolerance]
    case 'group':
      return multiplier.levels[species.group]
  }
}
