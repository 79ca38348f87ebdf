import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { generateSites } from '../seed/generate-sites.ts'
import { FOREST_ZONES, type Site, US_STATES } from '../types.ts'
import { PointKeys } from './point-keys.ts'
import { SITE_DERIVATIONS } from './site-derivations.ts'
import { REGION_IDS, SITE_COLUMNS, type SiteColumn, type SiteRow } from './site-format.ts'
import type { SiteRecord } from './site-record.ts'
import { checkSiteRecord, SiteValidator } from './site-validation.ts'

const SITES = generateSites().filter((_, index) => index % 9 === 0)
const NUMERIC = (SITE_COLUMNS as readonly SiteColumn[]).filter(
  (column) => (column.type === 'number' || column.type === 'integer') && column.attribute !== null,
)
const MEASURED = NUMERIC.filter((column) => column.name !== 'latitude' && column.name !== 'longitude')

/** A site's row as a file gives it: snake_case columns, every optional one present. */
function fieldsOf(site: Site | SiteRow): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  for (const column of SITE_COLUMNS as readonly SiteColumn[]) {
    if (column.attribute === null) continue
    const value = site[column.attribute]
    if (value !== undefined) fields[column.name] = value
  }
  return fields
}

function record(fields: Record<string, unknown>, row = 1): SiteRecord {
  return { row, featureId: `f${row}`, fields }
}

function siteOf(site: Site): SiteRow {
  const { id: _id, ...row } = site
  return row
}

/** Any value a column accepts: anywhere in its range, fractions for integer columns too. */
const inRange = (column: SiteColumn) =>
  fc.double({ min: column.min as number, max: column.max as number, noNaN: true, noDefaultInfinity: true })

/** A value outside a column's range, or a number that is no finite value. */
const outOfRange = (column: SiteColumn) =>
  fc.oneof(
    fc.double({ max: (column.min as number) - 1e-9, noNaN: true }),
    fc.double({ min: (column.max as number) + 1e-9, noNaN: true }),
  )

const anySite = fc.constantFrom(...SITES)

describe('checkSiteRecord', () => {
  it('accepts every synthetic site as it is, defaults or not', () => {
    for (const site of SITES.slice(0, 300)) {
      expect(checkSiteRecord(record(fieldsOf(site)))).toEqual({
        site: siteOf(site),
        problems: [],
        defaulted: [],
        rounded: [],
      })
      const { heat_load_index: _h, zone: _z, region_id: _r, state: _s, ...bare } = fieldsOf(site)
      const checked = checkSiteRecord(record(bare))
      // The defaults are worked out as the generator worked them out.
      expect(checked.site).toEqual(siteOf(site))
      expect(checked.defaulted).toEqual(['heat_load_index', 'region_id', 'zone', 'state'])
    }
  })

  it('accepts any row whose every value is in range, rounding the integer columns', () => {
    const values = fc.record(Object.fromEntries(MEASURED.map((column) => [column.name, inRange(column)])))
    const optional = fc.record(
      {
        zone: fc.constantFrom(...FOREST_ZONES),
        region_id: fc.constantFrom(...REGION_IDS),
        state: fc.constantFrom(...US_STATES),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(anySite, values, optional, (site, measured, given) => {
        const fields = { latitude: site.latitude, longitude: site.longitude, ...measured, ...given }
        const checked = checkSiteRecord(record(fields))
        expect(checked.problems).toEqual([])
        const row = checked.site as SiteRow
        for (const column of MEASURED) {
          const value = measured[column.name] as number
          expect(row[column.attribute as keyof SiteRow]).toBe(
            column.type === 'integer' ? Math.round(value) + 0 : value,
          )
        }
        expect(row.zone).toBe(given.zone ?? SITE_DERIVATIONS.zoneOf(row.regionId, row.elevationM))
        expect(row.regionId).toBe(given.region_id ?? site.regionId)
        expect(row.state).toBe(given.state ?? site.state)
      }),
      { numRuns: 300 },
    )
  })

  it('reports a single value out of range with its column, and nothing else', () => {
    fc.assert(
      fc.property(
        anySite,
        fc.constantFrom(...NUMERIC).chain((column) => fc.tuple(fc.constant(column), outOfRange(column))),
        fc.boolean(),
        (site, [column, value], asText) => {
          const fields = { ...fieldsOf(site), [column.name]: asText ? String(value) : value }
          const checked = checkSiteRecord(record(fields, 7))
          expect(checked.site).toBeNull()
          const textual = asText && !Number.isFinite(value)
          expect(checked.problems).toEqual([
            {
              row: 7,
              featureId: 'f7',
              field: column.name,
              value: String(value),
              rule: textual ? 'type' : 'range',
              message: expect.stringContaining(column.name),
            },
          ])
        },
      ),
      { numRuns: 400 },
    )
  })

  it('reports a value that is not a number as a type problem of its column', () => {
    const notANumber = fc.oneof(
      fc
        .string()
        .filter((text) => text.trim() !== '' && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim())),
      fc.boolean(),
      fc.constant({ value: 3 }),
      fc.constant([1]),
    )
    fc.assert(
      fc.property(anySite, fc.constantFrom(...NUMERIC), notANumber, (site, column, value) => {
        const checked = checkSiteRecord(record({ ...fieldsOf(site), [column.name]: value }))
        expect(checked.problems.map(({ field, rule }) => ({ field, rule }))).toEqual([
          { field: column.name, rule: 'type' },
        ])
      }),
    )
  })

  it('reports each required column missing, and all of a row’s problems at once', () => {
    const site = SITES[0] as Site
    for (const column of NUMERIC.filter((each) => each.required)) {
      for (const missing of [undefined, null, '']) {
        const checked = checkSiteRecord(record({ ...fieldsOf(site), [column.name]: missing }))
        expect(checked.problems.map(({ field, rule, value }) => ({ field, rule, value }))).toEqual([
          { field: column.name, rule: 'required', value: '' },
        ])
      }
    }
    const checked = checkSiteRecord(
      record({ ...fieldsOf(site), slope_deg: 95, soil_depth_cm: 'deep', zone: 'tundra', state: 'ID' }),
    )
    expect(checked.problems.map(({ field, rule }) => `${field}:${rule}`)).toEqual([
      'slope_deg:range',
      'soil_depth_cm:type',
      'zone:enum',
      'state:enum',
    ])
  })

  it('reads numbers written as text, in any case of enum, and hints at a decimal comma', () => {
    const site = SITES[1] as Site
    const fields = {
      ...fieldsOf(site),
      slope_deg: ' 12.5 ',
      aspect_deg: '2.7e2',
      zone: ' Coast ',
      state: 'or',
    }
    expect(checkSiteRecord(record(fields)).site).toMatchObject({
      slopeDeg: 12.5,
      aspectDeg: 270,
      zone: 'coast',
      state: 'OR',
    })
    const comma = checkSiteRecord(record({ ...fieldsOf(site), slope_deg: '12,5' }))
    expect(comma.problems[0]?.message).toBe('slope_deg must be a number (write decimals with a point)')
    const hex = checkSiteRecord(record({ ...fieldsOf(site), elevation_m: '0x10' }))
    expect(hex.problems[0]?.rule).toBe('type')
  })

  it('refuses a point in the sea, in Idaho or in British Columbia, and says why', () => {
    const site = SITES[2] as Site
    for (const [latitude, longitude] of [
      [45.5, -125.5],
      [46.5, -115.5],
      [49.5, -121],
    ] as const) {
      const { zone: _z, region_id: _r, state: _s, heat_load_index: _h, ...bare } = fieldsOf(site)
      const checked = checkSiteRecord(record({ ...bare, latitude, longitude }))
      expect(checked.problems).toEqual([
        {
          row: 1,
          featureId: 'f1',
          field: 'latitude,longitude',
          value: `${latitude},${longitude}`,
          rule: 'outside_coverage',
          message: expect.stringContaining('outside the coverage region'),
        },
      ])
    }
  })

  it('needs region_id where no forest region holds the point, and takes it when given', () => {
    // The Columbia Basin: Washington land, in no forest region.
    const fields: Record<string, unknown> = { ...fieldsOf(SITES[3] as Site), latitude: 46.8, longitude: -119 }
    delete fields.region_id
    delete fields.zone
    delete fields.state
    expect(SITE_DERIVATIONS.regionAt(46.8, -119)).toBeNull()
    const refused = checkSiteRecord(record(fields))
    expect(refused.problems.map(({ field, rule }) => `${field}:${rule}`)).toEqual(['region_id:required'])
    expect(refused.problems[0]?.message).toBe(
      'region_id is required here: the point lies in no forest region to take it (and zone) from',
    )
    const given = checkSiteRecord(record({ ...fields, region_id: 'east_cascades' }))
    expect(given.site).toMatchObject({ regionId: 'east_cascades', state: 'WA' })
    expect(given.defaulted).toEqual(['zone', 'state'])
  })

  it('leaves the state out on inland water, where no state’s land holds the point', () => {
    const fields: Record<string, unknown> = {
      ...fieldsOf(SITES[3] as Site),
      latitude: 47.6,
      longitude: -122.43,
    }
    delete fields.state
    const checked = checkSiteRecord(record(fields))
    expect(checked.problems).toEqual([])
    expect(checked.site).not.toHaveProperty('state')
  })

  it('reports a reader’s issues alone', () => {
    const checked = checkSiteRecord({
      row: 4,
      featureId: null,
      fields: {},
      issues: [
        { field: 'geometry', value: 'Polygon', rule: 'geometry', message: 'is a Polygon: a site is a Point' },
      ],
    })
    expect(checked).toEqual({
      site: null,
      defaulted: [],
      rounded: [],
      problems: [
        {
          row: 4,
          featureId: null,
          field: 'geometry',
          value: 'Polygon',
          rule: 'geometry',
          message: 'is a Polygon: a site is a Point',
        },
      ],
    })
  })

  it('shortens a long value to 80 characters', () => {
    const checked = checkSiteRecord(record({ ...fieldsOf(SITES[0] as Site), zone: 'x'.repeat(500) }))
    expect(checked.problems[0]?.value).toHaveLength(80)
    expect(checked.problems[0]?.value.endsWith('…')).toBe(true)
  })
})

describe('SiteValidator', () => {
  it('refuses a point an earlier row has, to 5 decimals, naming that row', () => {
    const validator = new SiteValidator()
    const [a, b] = SITES as [Site, Site]
    const results = [
      validator.check(record(fieldsOf(a), 1)),
      validator.check(record({ ...fieldsOf(b), slope_deg: 99 }, 2)),
      validator.check(record({ ...fieldsOf(b), latitude: b.latitude + 4e-6 }, 3)),
      validator.check(record({ ...fieldsOf(a), longitude: a.longitude - 3e-6 }, 4)),
      validator.check(record({ ...fieldsOf(a), latitude: a.latitude + 1e-5 }, 5)),
    ]
    expect(results.map((result) => result.site !== null)).toEqual([true, false, false, false, true])
    expect(results[2]?.problems).toEqual([
      {
        row: 3,
        featureId: 'f3',
        field: 'latitude,longitude',
        value: `${b.latitude + 4e-6},${b.longitude}`,
        rule: 'duplicate',
        message: "the point is row 2's (the same to 5 decimals, about 1 m)",
      },
    ])
    expect(results[3]?.problems?.[0]?.message).toBe(
      "the point is row 1's (the same to 5 decimals, about 1 m)",
    )
    expect(validator.summary()).toMatchObject({
      rows: 5,
      accepted: 2,
      refused: 3,
      problems: 3,
      problemsByRule: { range: 1, duplicate: 2 },
      problemsByField: { slope_deg: 1, 'latitude,longitude': 2 },
    })
  })

  it('counts the defaults and roundings of accepted rows, and names the columns it does not read', () => {
    const validator = new SiteValidator()
    SITES.slice(0, 10).forEach((site, index) => {
      const { heat_load_index: _h, ...fields } = fieldsOf(site)
      validator.check(
        record({ ...fields, elevation_m: site.elevationM + 0.4, fid: index, Notes: 'x' }, index + 1),
      )
    })
    validator.check(record({ ...fieldsOf(SITES[20] as Site), slope_deg: -1 }, 11))
    expect(validator.summary()).toEqual({
      rows: 11,
      accepted: 10,
      refused: 1,
      problems: 1,
      problemsByRule: { range: 1 },
      problemsByField: { slope_deg: 1 },
      defaulted: { heat_load_index: 10 },
      rounded: { elevation_m: 10 },
      ignoredColumns: ['Notes', 'fid'],
      pointKeyBytes: expect.any(Number),
    })
  })

  it('streams rows through, and refuses a file without any', async () => {
    const validator = new SiteValidator({ name: 'empty.csv' })
    async function* none(): AsyncGenerator<SiteRecord> {}
    await expect(async () => {
      for await (const _ of validator.validate(none())) {
      }
    }).rejects.toThrow('empty.csv: holds no sites')
    const checked = []
    for await (const each of new SiteValidator().validate(
      (async function* () {
        yield record(fieldsOf(SITES[0] as Site))
      })(),
    ))
      checked.push(each)
    expect(checked).toEqual([{ row: 1, featureId: 'f1', site: siteOf(SITES[0] as Site), problems: null }])
  })
})

describe('PointKeys', () => {
  it('finds a point again exactly when it rounds to the same 5 decimals', () => {
    const degrees = (max: number) =>
      fc.integer({ min: -max * 1e5, max: max * 1e5 }).map((value) => value / 1e5)
    fc.assert(
      fc.property(fc.array(fc.tuple(degrees(90), degrees(180)), { maxLength: 300 }), (points) => {
        const keys = new PointKeys(16)
        const seen = new Map<string, number>()
        points.forEach(([latitude, longitude], index) => {
          const text = `${latitude.toFixed(5)},${longitude.toFixed(5)}`
          expect(keys.firstRowOrAdd(latitude, longitude, index + 1)).toBe(seen.get(text) ?? 0)
          if (!seen.has(text)) seen.set(text, index + 1)
        })
        expect(keys.size).toBe(seen.size)
      }),
    )
  })

  it('holds a million points in about 25 MB', () => {
    const keys = new PointKeys()
    for (let i = 0; i < 1_000_000; i++)
      keys.firstRowOrAdd(42 + (i % 1000) * 1e-4, -124 + Math.floor(i / 1000) * 1e-4, i + 1)
    expect(keys.size).toBe(1_000_000)
    expect(keys.firstRowOrAdd(42 + 5e-4, -124, 0)).toBe(6)
    expect(keys.bytes).toBe(2 ** 21 * 12)
  })
})
