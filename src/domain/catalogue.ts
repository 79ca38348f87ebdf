import { distance } from 'fastest-levenshtein'
import { COVERAGE_REGION, coverageGeoJson } from '../geo/coverage.ts'
import type { CoverageCollection } from '../geo/coverage-types.ts'
import {
  type FactorDescription,
  type ModelInfo,
  PLANTING_METHODS,
  type PlantingMethod,
  type Species,
  type SpeciesGroup,
  type SurvivalModel,
} from '../types.ts'
import { apiError } from './errors.ts'
import { findSpecies, SPECIES } from './species.ts'
import { TREATMENTS, type Treatments } from './treatments.ts'

export interface PlantingMethodInfo {
  id: PlantingMethod
  name: string
  description: string
}

const PLANTING_METHOD_INFO: readonly PlantingMethodInfo[] = [
  { id: 'manual', name: 'Hand planting', description: 'Hand-planted seedlings installed by field crews' },
  {
    id: 'drone_seeded',
    name: 'Drone seeding',
    description: 'Aerial dispersal of seed pods or seedling capsules by drone',
  },
]

export interface SpeciesFilter {
  group?: SpeciesGroup | null
  /** Case-insensitive substring of the code, common or scientific name. */
  search?: string | null
  /** Only species native to this ecological zone. */
  zone?: string | null
}

export interface CoverageInfo {
  region: string
  searchRadiusKm: number
  geojson: CoverageCollection
}

const infoByModel = new WeakMap<ModelInfo, ModelInfo>()

/** What answers say of the model version (one frozen object per version, made once). */
export function modelInfo(model: ModelInfo): ModelInfo {
  let info = infoByModel.get(model)
  if (!info) {
    info = Object.freeze({ version: model.version, codename: model.codename, series: model.series })
    infoByModel.set(model, info)
  }
  return info
}

/** The species catalogue, the planting methods, the coverage area and the model's description. */
export class Catalogue {
  readonly model: ModelInfo

  constructor(
    private readonly survivalModel: SurvivalModel,
    private readonly searchRadiusKm: number,
  ) {
    this.model = modelInfo(survivalModel)
  }

  species(filter: SpeciesFilter = {}): Species[] {
    const needle = filter.search?.trim().toLowerCase()
    return SPECIES.filter(
      (s) =>
        (!filter.group || s.group === filter.group) &&
        (!filter.zone || (s.rangeZones as string[]).includes(filter.zone)) &&
        (!needle ||
          s.code.toLowerCase().includes(needle) ||
          s.commonName.toLowerCase().includes(needle) ||
          s.scientificName.toLowerCase().includes(needle)),
    )
  }

  plantingMethods(): readonly PlantingMethodInfo[] {
    return PLANTING_METHOD_INFO
  }

  coverage(): CoverageInfo {
    return { region: COVERAGE_REGION, searchRadiusKm: this.searchRadiusKm, geojson: coverageGeoJson() }
  }

  modelFactors(): readonly FactorDescription[] {
    return this.survivalModel.factors
  }

  /** The establishment treatments: their values, and every effect with its figure and sources. */
  treatments(): Treatments {
    return TREATMENTS
  }
}

/** The closest species code to a mistyped one, when it is close enough to be a plausible typo. */
function closestSpecies(candidate: string): Species | undefined {
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
  const closest = closestSpecies(code)
  throw apiError(
    'invalid_species',
    { code, closest },
    {
      details: {
        suggestion: 'GET /v1/species lists the recognized species codes',
        ...(closest ? { closest_code: closest.code } : {}),
      },
    },
  )
}

export function resolvePlantingMethod(value: string): PlantingMethod {
  if ((PLANTING_METHODS as readonly string[]).includes(value)) return value as PlantingMethod
  throw apiError('invalid_method', { method: value, allowed: PLANTING_METHODS })
}
