import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ColumnMapError, mappedName, parseColumnMap, readColumnMap, resolveColumns } from './column-map.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'column-map-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function problemsOf(value: unknown): readonly string[] {
  try {
    parseColumnMap(value, 'map.json')
  } catch (error) {
    expect(error).toBeInstanceOf(ColumnMapError)
    return (error as ColumnMapError).problems
  }
  throw new Error('the map was accepted')
}

describe('parseColumnMap', () => {
  it('maps their columns to ours, matching names without regard to case or spaces', () => {
    const map = parseColumnMap({
      ' ELEV ': 'elevation_m',
      Slope: 'SLOPE_DEG',
      OBJECTID: 'site_id',
      notes: null,
    })
    expect([...map]).toEqual([
      ['elev', 'elevation_m'],
      ['slope', 'slope_deg'],
      ['objectid', 'site_id'],
      ['notes', null],
    ])
    expect(mappedName('Elev', map)).toBe('elevation_m')
    expect(mappedName('NOTES', map)).toBeNull()
    expect(mappedName('Aspect_Deg', map)).toBe('aspect_deg')
  })

  it('refuses a target that is not one of our columns, suggesting the nearest', () => {
    expect(problemsOf({ slope: 'slope_degs' })).toEqual([
      'maps "slope" to "slope_degs", which is not a site column (did you mean slope_deg?)',
    ])
    expect(problemsOf({ fid: 'id' })).toEqual([
      'maps "fid" to "id", which is not a site column (did you mean site_id?)',
    ])
    expect(problemsOf({ x: 'banana' })).toEqual(['maps "x" to "banana", which is not a site column'])
  })

  it('refuses two sources for one target, and a source named twice', () => {
    expect(problemsOf({ elev: 'elevation_m', dem: 'Elevation_M' })).toEqual([
      'maps both "elev" and "dem" to "elevation_m"',
    ])
    expect(problemsOf({ Elev: 'elevation_m', ELEV: 'slope_deg' })).toEqual([
      'names the column "elev" twice (names are matched without regard to case)',
    ])
  })

  it('reports every problem at once, and refuses what is not an object of names', () => {
    expect(problemsOf({ a: 'zzz', b: 3, '': 'zone' })).toHaveLength(3)
    expect(problemsOf(['latitude'])).toEqual(['must be a JSON object: { "their_column": "our_column", ... }'])
    expect(problemsOf(null)).toHaveLength(1)
    const error = (() => {
      try {
        parseColumnMap({ a: 'zzz' }, 'map.json')
      } catch (caught) {
        return caught as ColumnMapError
      }
    })()
    expect(error?.message).toBe('map.json: the column map maps "a" to "zzz", which is not a site column')
    expect(error?.field).toBe('map')
  })

  it('lets a map swap two columns', () => {
    const map = parseColumnMap({ latitude: 'longitude', longitude: 'latitude' })
    expect(resolveColumns(['latitude', 'longitude'], map)).toEqual({
      names: ['longitude', 'latitude'],
      conflicts: [],
    })
  })
})

describe('resolveColumns', () => {
  it('finds a mapped column that meets a column of the same name, and a name twice', () => {
    const map = parseColumnMap({ dem: 'elevation_m' })
    expect(resolveColumns(['elevation_m', 'DEM', 'slope_deg'], map).conflicts).toEqual([
      'the columns "elevation_m" and "DEM" both give elevation_m under the column map (map one of them to null to ignore it)',
    ])
    expect(resolveColumns(['Slope_Deg', 'slope_deg']).conflicts).toEqual([
      'the columns "Slope_Deg" and "slope_deg" are one name',
    ])
    expect(
      resolveColumns(['elevation_m', 'dem'], parseColumnMap({ dem: 'elevation_m', elevation_m: null })),
    ).toEqual({
      names: [null, 'elevation_m'],
      conflicts: [],
    })
  })
})

describe('readColumnMap', () => {
  it('reads a JSON file (a byte order mark allowed)', async () => {
    const path = join(dir, 'ok.json')
    await writeFile(path, '\uFEFF{"ELEV": "elevation_m"}')
    expect([...(await readColumnMap(path))]).toEqual([['elev', 'elevation_m']])
  })

  it('names the file when it is missing, not JSON, or wrong', async () => {
    const bad = join(dir, 'bad.json')
    await writeFile(bad, '{"elev": elevation_m}')
    await expect(readColumnMap(bad)).rejects.toThrow(/bad\.json: the column map is not JSON/)
    await expect(readColumnMap(join(dir, 'none.json'))).rejects.toThrow(
      /none\.json: the column map cannot be read/,
    )
    const wrong = join(dir, 'wrong.json')
    await writeFile(wrong, '{"elev": "elevation"}')
    await expect(readColumnMap(wrong)).rejects.toThrow(/did you mean elevation_m\?/)
  })
})
