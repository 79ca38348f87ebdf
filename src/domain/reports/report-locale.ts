import { type Paper, REPORT_LANGUAGES, type ReportLanguage } from './report-document.ts'

/**
 * The regions that print on US Letter, as the Unicode CLDR lists them (supplemental data,
 * paperSize "US-Letter"); every other region prints on A4.
 */
export const LETTER_REGIONS: ReadonlySet<string> = new Set([
  'US',
  'CA',
  'MX',
  'BZ',
  'CL',
  'CO',
  'CR',
  'GT',
  'NI',
  'PA',
  'PH',
  'PR',
  'SV',
  'VE',
])

/** The report's language: the first of the caller's languages (best first) that a catalogue has; else English. */
export function reportLanguage(preferred: readonly string[]): ReportLanguage {
  for (const tag of preferred) {
    const language = tag.toLowerCase().split('-')[0]
    const known = REPORT_LANGUAGES.find((candidate) => candidate === language)
    if (known) return known
  }
  return 'en'
}

/**
 * The paper for the caller's first language tag (docs/reports.md → Paper): its region's (US Letter in
 * the CLDR's Letter regions, else A4); without a region, Letter for English and A4 for any other
 * language; without any tag (no Accept-Language), Letter, as for English.
 */
export function paperForLanguageTag(tag: string | undefined): Paper {
  if (!tag || tag === '*') return 'letter'
  let locale: Intl.Locale
  try {
    locale = new Intl.Locale(tag)
  } catch {
    return 'letter'
  }
  if (locale.region) return LETTER_REGIONS.has(locale.region.toUpperCase()) ? 'letter' : 'a4'
  return locale.language === 'en' ? 'letter' : 'a4'
}
