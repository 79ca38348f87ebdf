import type { IncomingMessage } from 'node:http'
import Negotiator from 'negotiator'
import { invalidField } from '../domain/errors.ts'
import { parseInput } from '../domain/input-rules.ts'
import type { Paper, ReportLanguage } from '../domain/reports/report-document.ts'
import { paperForLanguageTag, reportLanguage } from '../domain/reports/report-locale.ts'
import { ReportPaperQuery } from './request-schemas.ts'

/** The representations of an answer that has a report, the default first. */
const MEDIA_TYPES = ['application/json', 'application/pdf']

export interface ReportAsked {
  language: ReportLanguage
  paper: Paper
}

/** `?paper=`, checked whatever the answer's representation: a bad or repeated value is refused. */
function paperOf(url: URL): Paper | undefined {
  const values = url.searchParams.getAll('paper')
  if (values.length > 1) throw invalidField('paper', 'must be given once', 'query string')
  return parseInput(ReportPaperQuery, values.length === 0 ? {} : { paper: values[0] }, 'query string').paper
}

/**
 * The language and paper of an answer that is always a report (GET /v1/jobs/{id}/report.pdf): by
 * `Accept-Language` and `?paper=` as for a negotiated one.
 */
export function reportLocale(req: IncomingMessage, url: URL): ReportAsked {
  const paper = paperOf(url)
  const languages = new Negotiator(req).languages()
  return { language: reportLanguage(languages), paper: paper ?? paperForLanguageTag(languages[0]) }
}

/**
 * Whether the caller wants the answer as a PDF report, by proactive negotiation (RFC 9110 §12):
 * `Accept` picks JSON or PDF (q-values honoured; JSON when neither is named, for `*\/*` and on a
 * tie), `Accept-Language` the report's language (English or Spanish; English when neither is
 * acceptable) and, unless `?paper=` names it, the paper (docs/reports.md). null: answer JSON.
 */
export function reportAsked(req: IncomingMessage, url: URL): ReportAsked | null {
  const paper = paperOf(url)
  // Most calls name no PDF: they skip parsing the header.
  if (!req.headers.accept?.toLowerCase().includes('application/pdf')) return null
  const negotiator = new Negotiator(req)
  if (negotiator.mediaType(MEDIA_TYPES) !== 'application/pdf') return null
  const languages = negotiator.languages()
  return { language: reportLanguage(languages), paper: paper ?? paperForLanguageTag(languages[0]) }
}
