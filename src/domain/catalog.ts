import { distance } from 'fastest-levenshtein'
import { PLANTING_METHODS, type PlantingMethod } from '../model/index.ts'
import { ApiError } from './errors.ts'
import { findSpecies, SPECIES, type Species } from './species.ts'

export interface PlantingMethodInfo {
  id: PlantingMethod
  name: string
  description: string
}

export const PLANTING_METHOD_INFO: readonly PlantingMethodInfo[] = [
  { id: 'manual', name: 'Hand planting', description: 'Hand-planted seedlings installed by field crews' },
  {
    id: 'drone_seeded',
    name: 'Drone seeding',
    description: 'Aerial dispersal of seed pods or seedling capsules by drone',
  },
]

/** The closest species code to a mistyped one, when it is close enough to be a plausible typo. */
export function closestSpecies(candidate: string): Species | undefined {
  const wanted = candidate.trim().toUpperCase()
  let best: { species: Species; score: number } | undefined
  for (const species of SPECIES) {
    const score = Math.min(distance(wanted, species.code), distance(wanted, species.commonName.toUpperCase()))
    if (!best || score < best.score) best = { species, score }
  }
  return best && best.score <= 2 ? best.species : undefined
}

export function resolveSpecies(code: string): Species {
  const species = findSpecies(code)
  if (species) return species
  const close = closestSpecies(code)
  const hint = close ? ` Did you mean ${close.code} (${close.commonName})?` : ''
  throw new ApiError('invalid_species', `Species code "${code}" is not recognized.${hint}`, {
    suggestion: 'GET /v1/species lists the recognized species codes',
    ...(close ? { closest_code: close.code } : {}),
  })
}

export function resolvePlantingMethod(value: string): PlantingMethod {
  if ((PLANTING_METHODS as readonly string[]).includes(value)) return value as PlantingMethod
  throw new ApiError(
    'invalid_method',
    `Planting method "${value}" is not available; use one of: ${PLANTING_METHODS.join(', ')}`,
  )
}
