import { describe, expect, it } from 'vitest'
import { readArtifact } from '../model/artifact.ts'
import { clampSiteInto, ModelSite } from '../model/site-input.ts'
import { FOREST_ZONES, NUMERIC_SITE_ATTRIBUTES, type SiteAttributes } from '../types.ts'
import {
  missingColumns,
  OPTIONAL_SITE_COLUMNS,
  REGION_IDS,
  REQUIRED_SITE_COLUMNS,
  SITE_COLUMN_NAMES,
  SITE_COLUMNS,
  type SiteColumn,
  siteColumn,
} from './site-format.ts'

describe('the site data file format', () => {
  it('names every column in snake_case, once, site_id first', () => {
    expect(SITE_COLUMN_NAMES[0]).toBe('site_id')
    for (const name of SITE_COLUMN_NAMES) expect(name).toMatch(/^[a-z]+(_[a-z]+)*$/)
    expect(new Set(SITE_COLUMN_NAMES).size).toBe(SITE_COLUMN_NAMES.length)
  })

  it('fills every attribute of a site but its id, each from one column', () => {
    const attributes = SITE_COLUMNS.map((column) => column.attribute).filter((name) => name !== null)
    expect(new Set(attributes)).toEqual(
      new Set([...NUMERIC_SITE_ATTRIBUTES, 'latitude', 'longitude', 'zone', 'regionId', 'state']),
    )
    expect(attributes).toHaveLength(new Set(attributes).size)
  })

  it('requires the point and the measured attributes; the rest have a default', () => {
    expect(REQUIRED_SITE_COLUMNS).toEqual([
      'latitude',
      'longitude',
      'elevation_m',
      'slope_deg',
      'aspect_deg',
      'soil_depth_cm',
      'rock_fraction_pct',
      'vegetation_cover_pct',
      'annual_precip_mm',
      'summer_water_deficit_mm',
      'growing_season_frost_days',
      'browse_pressure_index',
    ])
    expect(OPTIONAL_SITE_COLUMNS).toEqual(['site_id', 'heat_load_index', 'zone', 'region_id', 'state'])
    for (const name of OPTIONAL_SITE_COLUMNS) expect((siteColumn(name) as SiteColumn).default).toBeTruthy()
  })

  it('gives every number a unit and a range, and every enum its values', () => {
    for (const column of SITE_COLUMNS as readonly SiteColumn[]) {
      if (column.type === 'number' || column.type === 'integer') {
        expect(column.unit, column.name).not.toBe('')
        expect(column.min, column.name).toBeLessThan(column.max as number)
      }
      if (column.type === 'enum') expect(column.values?.length, column.name).toBeGreaterThan(0)
    }
    expect(siteColumn('zone').values).toEqual(FOREST_ZONES)
    expect(REGION_IDS).toHaveLength(10)
  })

  it('accepts at least every value of the synthetic set (docs/data-dictionary.md)', () => {
    const synthetic: Partial<Record<string, [number, number]>> = {
      elevation_m: [0, 2900],
      slope_deg: [0, 50],
      aspect_deg: [0, 359],
      heat_load_index: [0, 1],
      annual_precip_mm: [250, 5000],
      summer_water_deficit_mm: [0, 600],
      growing_season_frost_days: [0, 45],
      soil_depth_cm: [15, 200],
      rock_fraction_pct: [0, 80],
      vegetation_cover_pct: [5, 100],
      browse_pressure_index: [0, 1],
    }
    for (const [name, [low, high]] of Object.entries(synthetic) as [string, [number, number]][]) {
      const column = SITE_COLUMNS.find((each) => each.name === name) as SiteColumn
      expect(column.min, name).toBeLessThanOrEqual(low)
      expect(column.max, name).toBeGreaterThanOrEqual(high)
    }
  })

  it('only accepts values the model can take (it clamps them into its input ranges)', () => {
    const { inputRanges } = readArtifact()
    const limits = (end: 'min' | 'max'): SiteAttributes => {
      const site = { zone: 'coast', state: 'OR' } as Record<string, unknown>
      for (const column of SITE_COLUMNS as readonly SiteColumn[])
        if (column.attribute && column.min !== undefined) site[column.attribute] = column[end]
      return site as unknown as SiteAttributes
    }
    for (const end of ['min', 'max'] as const) {
      const clamped = clampSiteInto(limits(end), inputRanges, new ModelSite())
      for (const attribute of NUMERIC_SITE_ATTRIBUTES) {
        const [low, high] = inputRanges[attribute]
        expect(clamped[attribute]).toBeGreaterThanOrEqual(low)
        expect(clamped[attribute]).toBeLessThanOrEqual(high)
      }
    }
  })

  it('lists the required columns a file lacks, the point counting when a geometry carries it', () => {
    expect(missingColumns(REQUIRED_SITE_COLUMNS)).toEqual([])
    expect(missingColumns(['Latitude', ' LONGITUDE '])).toEqual(REQUIRED_SITE_COLUMNS.slice(2))
    expect(missingColumns(REQUIRED_SITE_COLUMNS.slice(2), true)).toEqual([])
    expect(missingColumns(REQUIRED_SITE_COLUMNS.filter((name) => name !== 'slope_deg'))).toEqual([
      'slope_deg',
    ])
  })
})
