import { readFileSync } from 'node:fs'
import { projectFile } from '../project-files.ts'
import { FOREST_ZONES, SHADE_TOLERANCE_LEVELS, type Species, TOLERANCE_LEVELS, US_STATES } from '../types.ts'

const SPECIES_CSV = projectFile('data/species.csv')

function oneOf<T extends string>(allowed: readonly T[], value: string, column: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`species.csv: ${column} "${value}" is not one of ${allowed.join(', ')}`)
  }
  return value as T
}

/** Parses data/species.csv (a copy of the project reference species list: no quoted fields). */
function parseSpeciesCsv(text: string): Species[] {
  const [header, ...rows] = text.trim().split(/\r?\n/)
  const columns = header?.split(',') ?? []
  return rows.map((row) => {
    const cells = row.split(',')
    const get = (name: string): string => {
      const value = cells[columns.indexOf(name)]
      if (value === undefined) throw new Error(`species.csv: missing column ${name}`)
      return value
    }
    return {
      code: get('code'),
      commonName: get('common_name'),
      scientificName: get('scientific_name'),
      group: oneOf(['conifer', 'hardwood'] as const, get('group'), 'group'),
      elevMinM: Number(get('elev_min_m')),
      elevMaxM: Number(get('elev_max_m')),
      precipMinMm: Number(get('precip_min_mm')),
      precipMaxMm: Number(get('precip_max_mm')),
      droughtTolerance: oneOf(TOLERANCE_LEVELS, get('drought_tolerance'), 'drought_tolerance'),
      shadeTolerance: oneOf(SHADE_TOLERANCE_LEVELS, get('shade_tolerance'), 'shade_tolerance'),
      frostTolerance: oneOf(TOLERANCE_LEVELS, get('frost_tolerance'), 'frost_tolerance'),
      rangeZones: get('range_zones')
        .split(';')
        .map((zone) => oneOf(FOREST_ZONES, zone, 'range_zones')),
      rangeStates: get('range_states')
        .split(';')
        .map((state) => oneOf(US_STATES, state, 'range_states')),
      notes: get('notes'),
    }
  })
}

/** The 20 species of the model, in species.csv order. */
export const SPECIES: readonly Species[] = Object.freeze(parseSpeciesCsv(readFileSync(SPECIES_CSV, 'utf8')))

const BY_CODE = new Map(SPECIES.map((species) => [species.code, species]))

export function findSpecies(code: string): Species | undefined {
  return BY_CODE.get(code)
}
