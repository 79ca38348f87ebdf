import { FOREST_ZONES, type ForestZone, US_STATES, type UsState } from '../types.ts'
import { PointKeys } from './point-keys.ts'
import { SITE_DERIVATIONS, type SiteDerivations } from './site-derivations.ts'
import { SiteFileError, valueText } from './site-file-error.ts'
import {
  isSiteColumnName,
  REGION_IDS,
  SITE_COLUMNS,
  SITE_ID_ALIAS,
  type SiteColumn,
  type SiteColumnName,
  type SiteRow,
} from './site-format.ts'
import type { ReaderRule, SiteRecord } from './site-record.ts'

/*
 * The rules of a site row (site-format.ts): every required column there, every value of its type and
 * inside its range, the point inside the coverage region and not a point an earlier row has (to 5
 * decimals, about 1 m). Every problem of a row is reported, each as its row, the file's id of the row,
 * the column, the value as text and the rule; a row with none becomes a SiteRow, its missing optional
 * columns filled with their defaults. `checkSiteRecord` is pure; `SiteValidator` adds what needs the
 * rows before (duplicates) and the counts of an import's report.
 */

/** The rules a row can break. `geometry`, `json`, `cells`, `columns` and `feature` come from the readers. */
export type SiteRule = 'required' | 'type' | 'range' | 'enum' | 'outside_coverage' | 'duplicate' | ReaderRule

export interface SiteProblem {
  row: number
  featureId: string | null
  /** The column; `latitude,longitude` for the point as a whole; a reader's part (`geometry`, `line`, `cells`). */
  field: string
  /** The value as the file gives it, as text (at most 80 characters); '' when missing. */
  value: string
  rule: SiteRule
  message: string
}

/** One row checked on its own: its site, or its problems; and which columns took a default or were rounded. */
export interface RowCheck {
  site: SiteRow | null
  problems: SiteProblem[]
  defaulted: SiteColumnName[]
  rounded: SiteColumnName[]
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/
const POINT_FIELD = 'latitude,longitude'

const COLUMN: Readonly<Record<SiteColumnName, SiteColumn>> = Object.fromEntries(
  SITE_COLUMNS.map((column) => [column.name, column]),
) as Record<SiteColumnName, SiteColumn>

function rangeText(column: SiteColumn): string {
  return `${column.min}–${column.max}${column.unit.startsWith('0 ') ? '' : ` ${column.unit.split(/[ ,]/)[0]}`}`
}

/** Reads one row's values; collects its problems. */
class RowReader {
  readonly problems: SiteProblem[] = []
  readonly defaulted: SiteColumnName[] = []
  readonly rounded: SiteColumnName[] = []

  constructor(
    private readonly record: SiteRecord,
    readonly fields: Record<string, unknown>,
  ) {}

  /** True when the row gives no value for the column. */
  absent(name: SiteColumnName): boolean {
    const raw = this.fields[name]
    return raw === undefined || raw === null || raw === ''
  }

  problem(field: string, value: unknown, rule: SiteRule, message: string): void {
    this.problems.push({
      row: this.record.row,
      featureId: this.record.featureId,
      field,
      value: valueText(value),
      rule,
      message,
    })
  }

  /** A number column's value: undefined when missing (a problem when required) or when it breaks a rule. */
  number(column: SiteColumn): number | undefined {
    const raw = this.fields[column.name]
    let value: number
    if (typeof raw === 'number') value = raw
    else if (raw === undefined || raw === null || raw === '') {
      if (column.required) this.problem(column.name, raw, 'required', `${column.name} is required`)
      return undefined
    } else if (typeof raw === 'string' && DECIMAL.test(raw)) value = Number(raw)
    else if (typeof raw === 'string' && DECIMAL.test(raw.trim())) value = Number(raw.trim())
    else if (typeof raw === 'bigint') value = Number(raw)
    else {
      const hint =
        typeof raw === 'string' && DECIMAL_COMMA.test(raw.trim()) ? ' (write decimals with a point)' : ''
      this.problem(column.name, raw, 'type', `${column.name} must be a number${hint}`)
      return undefined
    }
    if (Number.isNaN(value)) {
      this.problem(column.name, raw, 'type', `${column.name} must be a number`)
      return undefined
    }
    if (!(value >= (column.min as number) && value <= (column.max as number))) {
      this.problem(column.name, raw, 'range', `${column.name} must be ${rangeText(column)}`)
      return undefined
    }
    if (column.type === 'integer') {
      const whole = Math.round(value)
      if (whole !== value) this.rounded.push(column.name as SiteColumnName)
      // -0 is 0.
      return whole + 0
    }
    return value + 0
  }

  /** An enum column's value (trimmed, in its values' case); undefined when missing or not one of them. */
  choice<T extends string>(column: SiteColumn, values: readonly T[], upper = false): T | undefined {
    const raw = this.fields[column.name]
    if (this.absent(column.name as SiteColumnName)) return undefined
    if (typeof raw !== 'string') {
      this.problem(column.name, raw, 'type', `${column.name} must be text, one of ${values.join(', ')}`)
      return undefined
    }
    const text = upper ? raw.trim().toUpperCase() : raw.trim().toLowerCase()
    if (!(values as readonly string[]).includes(text)) {
      this.problem(column.name, raw, 'enum', `${column.name} must be one of ${values.join(', ')}`)
      return undefined
    }
    return text as T
  }
}

/**
 * One row's rules, all of them: its site when it breaks none, else every problem it has. The point's
 * duplicates are not looked for here (SiteValidator does). Pure, for pure derivations.
 */
export function checkSiteRecord(record: SiteRecord, derive: SiteDerivations = SITE_DERIVATIONS): RowCheck {
  const read = new RowReader(record, record.fields)
  if (record.issues && record.issues.length > 0) {
    for (const issue of record.issues) read.problem(issue.field, issue.value, issue.rule, issue.message)
    return { site: null, problems: read.problems, defaulted: [], rounded: [] }
  }
  const latitude = read.number(COLUMN.latitude)
  const longitude = read.number(COLUMN.longitude)
  // Defaults are derived for a point inside the coverage region only: elsewhere the point is the problem.
  const located =
    latitude !== undefined && longitude !== undefined && derive.isInCoverage(latitude, longitude)
  if (latitude !== undefined && longitude !== undefined && !located)
    read.problem(
      POINT_FIELD,
      `${latitude},${longitude}`,
      'outside_coverage',
      'the point lies outside the coverage region (Oregon and Washington land and their inland marine waters)',
    )
  const elevationM = read.number(COLUMN.elevation_m)
  const slopeDeg = read.number(COLUMN.slope_deg)
  const aspectDeg = read.number(COLUMN.aspect_deg)
  const soilDepthCm = read.number(COLUMN.soil_depth_cm)
  const rockFractionPct = read.number(COLUMN.rock_fraction_pct)
  const vegetationCoverPct = read.number(COLUMN.vegetation_cover_pct)
  const annualPrecipMm = read.number(COLUMN.annual_precip_mm)
  const summerWaterDeficitMm = read.number(COLUMN.summer_water_deficit_mm)
  const growingSeasonFrostDays = read.number(COLUMN.growing_season_frost_days)
  const browsePressureIndex = read.number(COLUMN.browse_pressure_index)

  let heatLoadIndex = read.number(COLUMN.heat_load_index)
  if (heatLoadIndex === undefined && read.absent('heat_load_index') && located) {
    if (slopeDeg !== undefined && aspectDeg !== undefined) {
      heatLoadIndex = derive.heatLoadIndex(latitude, slopeDeg, aspectDeg)
      read.defaulted.push('heat_load_index')
    }
  }

  let regionId = read.choice(COLUMN.region_id, REGION_IDS)
  if (regionId === undefined && read.absent('region_id') && located) {
    const derived = derive.regionAt(latitude, longitude)
    if (derived === null)
      read.problem(
        'region_id',
        undefined,
        'required',
        'region_id is required here: the point lies in no forest region to take it (and zone) from',
      )
    else {
      regionId = derived
      read.defaulted.push('region_id')
    }
  }

  // Without a zone, a region and an elevation to take it from, the row has a problem already: theirs.
  let zone = read.choice<ForestZone>(COLUMN.zone, FOREST_ZONES)
  if (zone === undefined && read.absent('zone') && regionId !== undefined && elevationM !== undefined) {
    zone = derive.zoneOf(regionId, elevationM)
    read.defaulted.push('zone')
  }

  let state = read.choice<UsState>(COLUMN.state, US_STATES, true)
  if (state === undefined && read.absent('state') && located) {
    const derived = derive.stateAt(latitude, longitude)
    if (derived !== null) {
      state = derived
      read.defaulted.push('state')
    }
  }

  if (read.problems.length > 0) return { site: null, problems: read.problems, defaulted: [], rounded: [] }
  const site: SiteRow = {
    latitude: latitude as number,
    longitude: longitude as number,
    regionId: regionId as string,
    ...(state === undefined ? {} : { state }),
    zone: zone as ForestZone,
    elevationM: elevationM as number,
    slopeDeg: slopeDeg as number,
    aspectDeg: aspectDeg as number,
    heatLoadIndex: heatLoadIndex as number,
    soilDepthCm: soilDepthCm as number,
    rockFractionPct: rockFractionPct as number,
    vegetationCoverPct: vegetationCoverPct as number,
    annualPrecipMm: annualPrecipMm as number,
    summerWaterDeficitMm: summerWaterDeficitMm as number,
    growingSeasonFrostDays: growingSeasonFrostDays as number,
    browsePressureIndex: browsePressureIndex as number,
  }
  return { site, problems: [], defaulted: read.defaulted, rounded: read.rounded }
}

/** A row checked against the rules and the rows before it. */
export type CheckedSite =
  | { row: number; featureId: string | null; site: SiteRow; problems: null }
  | { row: number; featureId: string | null; site: null; problems: SiteProblem[] }

/** What an import reports about a file's rows. */
export interface SiteValidationSummary {
  rows: number
  accepted: number
  refused: number
  /** Problems in all, and by rule and by column. */
  problems: number
  problemsByRule: Partial<Record<SiteRule, number>>
  problemsByField: Record<string, number>
  /** Accepted rows that took each optional column's default. */
  defaulted: Partial<Record<SiteColumnName, number>>
  /** Accepted rows whose value of each integer column was rounded to a whole number. */
  rounded: Partial<Record<SiteColumnName, number>>
  /** Columns the rows had that the format does not read (at most 50 named; looked for in the first 10,000 rows and every 100th after). */
  ignoredColumns: string[]
  /** Bytes held to find repeated points. */
  pointKeyBytes: number
}

export interface SiteValidatorOptions {
  derivations?: SiteDerivations
  /** The file's name, for the refusal of a file without rows. */
  name?: string
}

const MAX_IGNORED_NAMED = 50
/** Columns not read are looked for in the first rows, then in one row of so many. */
const IGNORED_LOOKED_FOR_IN = 10_000
const IGNORED_SAMPLED_EVERY = 100
const KNOWN_FIELDS = new Set<string>([SITE_ID_ALIAS])

/**
 * Checks a file's rows in order: each row's own rules, then whether an earlier row had its point. The
 * point of a refused row counts too (when it is itself valid), so that two rows of one point are both
 * named in one pass, whichever of them has other problems.
 */
export class SiteValidator {
  private readonly derive: SiteDerivations
  private readonly name: string
  private readonly points = new PointKeys()
  private readonly ignored = new Set<string>()
  private readonly counts = {
    rows: 0,
    accepted: 0,
    problems: 0,
    byRule: {} as Partial<Record<SiteRule, number>>,
    byField: {} as Record<string, number>,
    defaulted: {} as Partial<Record<SiteColumnName, number>>,
    rounded: {} as Partial<Record<SiteColumnName, number>>,
  }

  constructor(options: SiteValidatorOptions = {}) {
    this.derive = options.derivations ?? SITE_DERIVATIONS
    this.name = options.name ?? 'input'
  }

  check(record: SiteRecord): CheckedSite {
    this.counts.rows += 1
    if (this.counts.rows <= IGNORED_LOOKED_FOR_IN || this.counts.rows % IGNORED_SAMPLED_EVERY === 0)
      this.noteIgnored(record.fields)
    const checked = checkSiteRecord(record, this.derive)
    const problems = checked.problems
    const point = this.pointOf(record, checked)
    if (point) {
      const first = this.points.firstRowOrAdd(point.latitude, point.longitude, record.row)
      if (first !== 0)
        problems.push({
          row: record.row,
          featureId: record.featureId,
          field: POINT_FIELD,
          value: `${point.latitude},${point.longitude}`,
          rule: 'duplicate',
          message: `the point is row ${first}'s (the same to 5 decimals, about 1 m)`,
        })
    }
    if (problems.length > 0) {
      this.counts.problems += problems.length
      for (const problem of problems) {
        this.counts.byRule[problem.rule] = (this.counts.byRule[problem.rule] ?? 0) + 1
        this.counts.byField[problem.field] = (this.counts.byField[problem.field] ?? 0) + 1
      }
      return { row: record.row, featureId: record.featureId, site: null, problems }
    }
    this.counts.accepted += 1
    for (const name of checked.defaulted) this.counts.defaulted[name] = (this.counts.defaulted[name] ?? 0) + 1
    for (const name of checked.rounded) this.counts.rounded[name] = (this.counts.rounded[name] ?? 0) + 1
    return { row: record.row, featureId: record.featureId, site: checked.site as SiteRow, problems: null }
  }

  /** Names the columns a row has that the format does not read, up to MAX_IGNORED_NAMED. */
  private noteIgnored(fields: Record<string, unknown>): void {
    for (const key of Object.keys(fields)) {
      if (this.ignored.size >= MAX_IGNORED_NAMED) return
      if (!isSiteColumnName(key) && !KNOWN_FIELDS.has(key)) this.ignored.add(key)
    }
  }

  /** The row's point when it is a valid one inside the coverage region: the one it claims. */
  private pointOf(record: SiteRecord, checked: RowCheck): { latitude: number; longitude: number } | null {
    if (checked.site) return checked.site
    if (record.issues && record.issues.length > 0) return null
    if (
      checked.problems.some(
        (problem) =>
          problem.field === 'latitude' || problem.field === 'longitude' || problem.field === POINT_FIELD,
      )
    )
      return null
    const latitude = Number(record.fields.latitude)
    const longitude = Number(record.fields.longitude)
    return Number.isFinite(latitude) && Number.isFinite(longitude) ? { latitude, longitude } : null
  }

  /** Checks every row as it comes; a file without rows is refused (SiteFileError) at its end. */
  async *validate(records: AsyncIterable<SiteRecord>): AsyncGenerator<CheckedSite> {
    for await (const record of records) yield this.check(record)
    if (this.counts.rows === 0) throw new SiteFileError(this.name, 'holds no sites')
  }

  summary(): SiteValidationSummary {
    const { rows, accepted, problems, byRule, byField, defaulted, rounded } = this.counts
    return {
      rows,
      accepted,
      refused: rows - accepted,
      problems,
      problemsByRule: { ...byRule },
      problemsByField: { ...byField },
      defaulted: { ...defaulted },
      rounded: { ...rounded },
      ignoredColumns: [...this.ignored].sort(),
      pointKeyBytes: this.points.bytes,
    }
  }
}
