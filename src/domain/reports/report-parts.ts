import type { CalibrationShift, FactorContribution, ModelInfo, Species } from '../../types.ts'
import type { ClimateProjection } from '../climate.ts'
import type { MatchedSite } from '../prediction-types.ts'
import { locatorMap } from './locator-map.ts'
import type { ReportAttachment, ReportBlock, ReportDocument, ReportLanguage } from './report-document.ts'
import { CATALOGUES, type Messages, textOr } from './report-messages.ts'
import { commonName, noteText } from './report-notes.ts'
import type { ReportNumbers } from './report-numbers.ts'
import type { ReportRequest } from './report-request.ts'

/*
 * The pieces every report shares: how a method, a factor, a species, a model and a climate are named,
 * the climate and reproduction sections, and the document's frame (title, warning, footer, the
 * request attached).
 */

/** A stand's name, or a place's, is cut to this many characters in a title. */
export const PLACE_NAME_MAX = 80
/** The request printed in a report: at most this many characters (the whole request is attached). */
export const REQUEST_CHARACTERS_MAX = 1200
export const REQUEST_FILE = 'request.json'

export function methodName(text: Messages, method: string): string {
  return method === 'manual' || method === 'drone_seeded' ? text(`method.${method}`) : method
}

/** A forest zone in the report's language (its code where the catalogue lacks it). */
export function zoneName(text: Messages, zone: string): string {
  return textOr(text, `zone.${zone}`, zone)
}

/** The factor in the report's language when the catalogue knows it, else as the model names it. */
export function factorName(text: Messages, _language: ReportLanguage, factor: FactorContribution): string {
  return textOr(text, `factor.${factor.key}`, factor.factor)
}

export function speciesName(text: Messages, species: Species): string {
  return `${species.code} · ${commonName(text, species)} (${species.scientificName})`
}

/** The model version as answers name it (`model.version`), with its series and codename. */
export function modelName(model: ModelInfo): string {
  return `${model.version} (${model.series}, ${model.codename})`
}

export function scenarioName(text: Messages, scenario: string): string {
  return textOr(text, `scenario.${scenario}`, scenario)
}

export function climateName(
  text: Messages,
  climate: { period: string; scenario: string } | null | undefined,
): string {
  if (!climate) return text('value.today')
  return text('value.future', { period: climate.period, scenario: scenarioName(text, climate.scenario) })
}

export function yearsText(text: Messages, years: number): string {
  return years === 1 ? text('value.oneYear') : text('value.years', { years })
}

/** When the answer was made, in the report's language, in UTC. */
export function madeAt(language: ReportLanguage, at: Date): string {
  return new Intl.DateTimeFormat(language === 'es' ? 'es-ES' : 'en-US', {
    dateStyle: 'long',
    timeStyle: 'long',
    timeZone: 'UTC',
  }).format(at)
}

/** A name cut to `max` characters, control characters and runs of spaces made single spaces. */
export function cleanName(name: string, max = PLACE_NAME_MAX): string {
  const clean = name
    .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
}

/** The climate future's section: period, scenario, the climate data's version, what it did to the site. */
export function climateSection(
  text: Messages,
  numbers: ReportNumbers,
  climate: ClimateProjection,
): ReportBlock[] {
  const { deltas, projected } = climate
  const signed = (value: number) => (value > 0 ? `+${numbers.climate(value)}` : numbers.climate(value))
  return [
    { kind: 'heading', text: text('heading.climate') },
    {
      kind: 'facts',
      table: {
        rows: [
          [text('fact.period'), climate.period],
          [text('fact.scenario'), scenarioName(text, climate.scenario)],
          [text('fact.climateData'), climate.dataVersion],
          [
            text('fact.deltaTemperature'),
            text('value.degrees', { value: signed(deltas.meanAnnualTemperatureC) }),
          ],
          [
            text('fact.deltaSummerMax'),
            text('value.degrees', { value: signed(deltas.summerMaxTemperatureC) }),
          ],
          [
            text('fact.deltaPrecipitation'),
            text('value.percent', { value: signed(deltas.annualPrecipitationPct) }),
          ],
          [
            text('fact.deltaSummerPrecipitation'),
            text('value.percent', { value: signed(deltas.summerPrecipitationPct) }),
          ],
          [text('fact.deltaDeficit'), text('value.mm', { value: signed(deltas.waterDeficitMm) })],
          [
            text('fact.projectedPrecipitation'),
            text('value.mm', { value: numbers.climate(projected.annualPrecipMm) }),
          ],
          [
            text('fact.projectedDeficit'),
            text('value.mm', { value: numbers.climate(projected.summerWaterDeficitMm) }),
          ],
          [
            text('fact.projectedFrost'),
            text('value.days', { value: numbers.climate(projected.growingSeasonFrostDays) }),
          ],
          [
            text('fact.projectedElevation'),
            text('value.metres', { value: numbers.climate(projected.thermalElevationM) }),
          ],
        ],
      },
    },
  ]
}

/** The notes the JSON answer carries (in English), in the report's language when the catalogue knows them. */
export function notesSection(
  text: Messages,
  numbers: ReportNumbers,
  notes: readonly string[],
): ReportBlock[] {
  if (notes.length === 0) return []
  return [
    { kind: 'heading', text: text('heading.notes') },
    { kind: 'paragraph', text: text('notes.intro') },
    { kind: 'list', items: notes.map((note) => noteText(note, text, numbers)), small: true },
  ]
}

/** The request as JSON, two spaces an indent: the file attached to the report. */
export function requestJson(body: unknown): string {
  return JSON.stringify(body, null, 2)
}

/** JSON on one line, a space after each comma and colon: what `JSON.parse` reads back as the same value. */
export function compactJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(compactJson).join(', ')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([name, item]) => `${JSON.stringify(name)}: ${compactJson(item)}`)
      .join(', ')}}`
  return JSON.stringify(value) ?? 'null'
}

/**
 * The request as printed: each field of the body on a line of its own, its value compact; at most
 * REQUEST_CHARACTERS_MAX characters, the rest in the attached file.
 */
export function printedRequest(text: Messages, body: unknown): string {
  const json =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? `{\n${Object.entries(body)
          .map(([name, value]) => `  ${JSON.stringify(name)}: ${compactJson(value)}`)
          .join(',\n')}\n}`
      : compactJson(body)
  if (json.length <= REQUEST_CHARACTERS_MAX) return json
  const kept = json.slice(0, REQUEST_CHARACTERS_MAX)
  return `${kept}\n${text('reproduce.truncated', { characters: json.length - kept.length, file: REQUEST_FILE })}`
}

/** How to get the same report again: the request as sent, and the model and data it was answered with. */
export function reproduceSection(
  text: Messages,
  request: ReportRequest,
  model: ModelInfo,
): { blocks: ReportBlock[]; attachment: ReportAttachment } {
  const json = requestJson(request.body)
  return {
    blocks: [
      { kind: 'heading', text: text('heading.reproduce') },
      { kind: 'paragraph', text: text('reproduce.text', { model: model.version, file: REQUEST_FILE }) },
      {
        kind: 'code',
        text: `${request.method} ${request.path}\nContent-Type: application/json\nAccept: application/pdf\n\n${printedRequest(text, request.body)}`,
      },
    ],
    attachment: {
      name: REQUEST_FILE,
      description: text('attachment.description'),
      mediaType: 'application/json',
      content: `${json}\n`,
    },
  }
}

/** The document around a report's blocks: its title, warning, footer and the request attached. */
export function reportFrame(
  request: ReportRequest,
  text: Messages,
  parts: {
    title: string
    subtitle: string
    createdAt: Date
    synthetic: boolean
    dataVersion: string | null
    blocks: ReportBlock[]
  } & (
    | { model: ModelInfo }
    /** A report of something kept (a job, the surveys) says itself how it is made again. */
    | { reproduce: { blocks: ReportBlock[]; attachment: ReportAttachment } }
  ),
): ReportDocument {
  const reproduce = 'reproduce' in parts ? parts.reproduce : reproduceSection(text, request, parts.model)
  return {
    language: request.language,
    paper: request.paper,
    title: parts.title,
    subtitle: parts.subtitle,
    createdAt: parts.createdAt,
    warning: parts.synthetic ? text('warning.synthetic', { version: parts.dataVersion ?? '—' }) : null,
    blocks: [...parts.blocks, ...reproduce.blocks],
    footer: {
      text: text('footer.text', {
        requestId: request.requestId,
        time: parts.createdAt.toISOString(),
        method: request.method,
        path: request.path,
      }),
      pageOf: CATALOGUES[request.language]['footer.page'],
    },
    attachments: [reproduce.attachment],
  }
}

/** The facts of a point answered from its nearest data site (a comparison's, a ranking's). */
export function matchedSiteFacts(
  text: Messages,
  numbers: ReportNumbers,
  site: MatchedSite,
): (readonly [string, string])[] {
  const pair = (latitude: number, longitude: number) =>
    text('place.point', { latitude: numbers.coordinate(latitude), longitude: numbers.coordinate(longitude) })
  return [
    [text('fact.requested'), pair(site.latitude, site.longitude)],
    [text('fact.matched'), pair(site.matchedLatitude, site.matchedLongitude)],
    [text('fact.distance'), text('value.km', { value: numbers.km(site.matchDistanceKm) })],
    [text('fact.region'), site.region],
    [text('fact.zone'), zoneName(text, site.attributes.zone)],
  ]
}

/**
 * "Where and what" of a point answered from its nearest data site (a comparison's, a ranking's): the
 * place and the site, the answer's own facts, its climate, model and data version, beside a locator map
 * of the point and its site.
 */
export function pointSummary(
  text: Messages,
  numbers: ReportNumbers,
  site: MatchedSite,
  own: readonly (readonly [string, string])[],
  answer: { climate?: { period: string; scenario: string } | null; model: ModelInfo },
): ReportBlock {
  return {
    kind: 'summary',
    facts: {
      rows: [
        [text('fact.place'), pointPlace(text, numbers, site)],
        ...matchedSiteFacts(text, numbers, site),
        ...own,
        [text('fact.climate'), climateName(text, answer.climate)],
        [text('fact.model'), modelName(answer.model)],
        [text('fact.dataVersion'), site.dataVersion ?? '—'],
      ],
    },
    map: locatorMap(
      {
        requested: [site.longitude, site.latitude],
        stand: null,
        sites: [[site.matchedLongitude, site.matchedLatitude]],
      },
      text,
      numbers,
    ),
  }
}

/** The title's place for a point: its coordinates. */
export function pointPlace(text: Messages, numbers: ReportNumbers, site: MatchedSite): string {
  return text('place.point', {
    latitude: numbers.coordinate(site.latitude),
    longitude: numbers.coordinate(site.longitude),
  })
}

/** A calibrated version's shift, one row per method or species. */
export function calibrationTable(
  text: Messages,
  numbers: ReportNumbers,
  firstColumn: string,
  rows: readonly { label: string; shift: CalibrationShift }[],
): ReportBlock[] {
  if (rows.length === 0) return []
  const right = 'right' as const
  return [
    { kind: 'heading', text: text('heading.calibration') },
    {
      kind: 'table',
      table: {
        caption: text('caption.calibration'),
        columns: [
          { label: firstColumn, align: 'left' },
          { label: text('column.offset'), align: right },
          { label: text('column.intervalLow'), align: right },
          { label: text('column.intervalHigh'), align: right },
          { label: text('column.level'), align: right },
          { label: text('column.plots'), align: right },
          { label: text('column.trees'), align: right },
        ],
        rows: rows.map(({ label, shift }) => [
          label,
          numbers.logOdds(shift.offset),
          numbers.logOdds(shift.interval[0]),
          numbers.logOdds(shift.interval[1]),
          numbers.probability(shift.level),
          numbers.count(shift.plots),
          numbers.count(shift.trees),
        ]),
      },
    },
  ]
}
