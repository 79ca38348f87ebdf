import { EN, type MessageKey } from './messages/en.ts'
import { ES } from './messages/es.ts'
import type { ReportLanguage } from './report-document.ts'

export type { MessageKey }

/** One catalogue per language, the same keys in each (messages.test.ts holds them to it). */
export const CATALOGUES: Readonly<Record<ReportLanguage, Readonly<Record<MessageKey, string>>>> = {
  en: EN,
  es: ES,
}

/** The `{name}` values a text takes, in the order they appear. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((found) => found[1] as string)
}

/** A language's texts: `text(key, {name: value})` fills each `{name}`; one left without a value is an error. */
export type Messages = (key: MessageKey, values?: Readonly<Record<string, string | number>>) => string

export function messagesFor(language: ReportLanguage): Messages {
  const catalogue = CATALOGUES[language]
  return (key, values = {}) =>
    catalogue[key].replace(/\{(\w+)\}/g, (_whole, name: string) => {
      const value = values[name]
      if (value === undefined)
        throw new Error(`report message ${key} (${language}) needs a value for {${name}}`)
      return String(value)
    })
}

/** The text of `key` where the catalogues have it (they have the same keys), else `fallback` as it is. */
export function textOr(text: Messages, key: string, fallback: string): string {
  return key in EN ? text(key as MessageKey) : fallback
}
