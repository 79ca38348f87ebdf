import type { Species } from '../../types.ts'
import { EN, type MessageKey } from './messages/en.ts'
import type { Messages } from './report-messages.ts'
import type { ReportNumbers } from './report-numbers.ts'

/*
 * Texts an answer carries in English, written by the service (the notes, a rule's status) or kept in
 * its catalogue (species' common names), printed in the report's language. The English catalogue holds
 * each as the service writes it, a `{name}` where it puts a value: a text is matched against those
 * patterns and written again from the report's catalogue with the same values. A text no pattern
 * matches (one added to the service since) is printed as the answer carries it.
 */

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

interface Pattern {
  key: MessageKey
  pattern: RegExp
}

function patternsOf(prefix: string): Pattern[] {
  return (Object.keys(EN) as MessageKey[])
    .filter((key) => key.startsWith(prefix))
    .map((key) => {
      const parts = EN[key].split(/(\{\w+\})/)
      const source = parts
        .map((part) => (/^\{\w+\}$/.test(part) ? `(?<${part.slice(1, -1)}>.+?)` : escapeRegExp(part)))
        .join('')
      return { key, pattern: new RegExp(`^${source}$`, 's') }
    })
}

const NOTES = patternsOf('note.')
const RULE_STATUSES = patternsOf('ruleStatus.')

const PLAIN_NUMBER = /^-?\d+(?:\.(\d+))?$/
/** A treatment's status as the treatments note names it, e.g. `(assumption)`. */
const TREATMENT_STATUS = /\((published|synthesis|assumption)\)/g

/** A value as the report's language writes it: a number in its notation, a treatment status in its words. */
function localValue(value: string, text: Messages, numbers: ReportNumbers): string {
  if (numbers.language === 'en') return value
  const number = PLAIN_NUMBER.exec(value)
  if (number) return numbers.upTo(Number(value), number[1]?.length ?? 0)
  return value.replace(TREATMENT_STATUS, (_whole, status: 'published' | 'synthesis' | 'assumption') => {
    return `(${text(`status.${status}`)})`
  })
}

/** The catalogue's key of a note the service writes; null for one it does not know. */
export function noteKey(note: string): MessageKey | null {
  return NOTES.find(({ pattern }) => pattern.test(note))?.key ?? null
}

function translated(patterns: readonly Pattern[], written: string, text: Messages, numbers: ReportNumbers) {
  for (const { key, pattern } of patterns) {
    const found = pattern.exec(written)
    if (!found) continue
    const values = Object.fromEntries(
      Object.entries(found.groups ?? {}).map(([name, value]) => [name, localValue(value, text, numbers)]),
    )
    return text(key, values)
  }
  return written
}

/** A note of the answer in the report's language, or as written when the catalogue does not know it. */
export function noteText(note: string, text: Messages, numbers: ReportNumbers): string {
  return translated(NOTES, note, text, numbers)
}

/** A rule's status (how its figure was read) in the report's language, or as the data word it. */
export function ruleStatusText(status: string, text: Messages, numbers: ReportNumbers): string {
  return translated(RULE_STATUSES, status, text, numbers)
}

/** A species' common name in the report's language; the catalogue's when the messages lack it. */
export function commonName(text: Messages, species: Pick<Species, 'code' | 'commonName'>): string {
  const key = `common.${species.code}`
  return key in EN ? text(key as MessageKey) : species.commonName
}
