import { describe, expect, it } from 'vitest'
import { paperForLanguageTag, reportLanguage } from './report-locale.ts'

describe('a report’s language', () => {
  it.each([
    [['es-MX', 'en'], 'es'],
    [['de-DE', 'es'], 'es'],
    [['de-DE'], 'en'],
    [['*'], 'en'],
    [[], 'en'],
    [['EN-gb'], 'en'],
  ])('%j → %s', (tags, language) => {
    expect(reportLanguage(tags)).toBe(language)
  })
})

describe('a report’s paper (docs/reports.md → Paper)', () => {
  it.each([
    ['en-US', 'letter'],
    ['es-MX', 'letter'],
    ['fr-CA', 'letter'],
    ['es-CL', 'letter'],
    ['en-PH', 'letter'],
    ['en-GB', 'a4'],
    ['es-ES', 'a4'],
    ['es-419', 'a4'],
    ['de', 'a4'],
    ['es', 'a4'],
    ['en', 'letter'],
    [undefined, 'letter'],
    ['*', 'letter'],
    ['not a tag!', 'letter'],
  ])('%s → %s', (tag, paper) => {
    expect(paperForLanguageTag(tag)).toBe(paper)
  })
})
