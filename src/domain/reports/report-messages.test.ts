import { describe, expect, it } from 'vitest'
import { EN } from './messages/en.ts'
import { ES } from './messages/es.ts'
import { REPORT_LANGUAGES } from './report-document.ts'
import { CATALOGUES, messagesFor, placeholdersOf } from './report-messages.ts'

describe('the report message catalogues', () => {
  it('hold the same keys in every language', () => {
    const keys = (catalogue: object) => Object.keys(catalogue).sort()
    for (const language of REPORT_LANGUAGES) expect(keys(CATALOGUES[language])).toEqual(keys(EN))
    expect(keys(ES)).toEqual(keys(EN))
  })

  it('fill the same values in every language, and leave no text empty', () => {
    for (const [key, english] of Object.entries(EN)) {
      const expected = placeholdersOf(english).sort()
      for (const language of REPORT_LANGUAGES) {
        const text = CATALOGUES[language][key as keyof typeof EN]
        expect(text, `${language} ${key}`).toBeTruthy()
        expect(placeholdersOf(text).sort(), `${language} ${key}`).toEqual(expected)
      }
    }
  })

  it('finds a key missing in one language (the check itself works)', () => {
    const { 'heading.rule': _dropped, ...short } = ES
    expect(Object.keys(short).sort()).not.toEqual(Object.keys(EN).sort())
  })

  it('fills values, and refuses a text left without one', () => {
    const text = messagesFor('es')
    expect(text('footer.page', { page: 2, pages: 3 })).toBe('Página 2 de 3')
    expect(() => text('footer.page', { page: 2 })).toThrow(/footer.page \(es\) needs a value for \{pages\}/)
  })
})
