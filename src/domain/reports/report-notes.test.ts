import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { projectFile } from '../../project-files.ts'
import { FOREST_ZONES } from '../../types.ts'
import { CLIMATE_DATA_NOTE } from '../climate.ts'
import { planNotes } from '../stocking/plan-notes.ts'
import { RULE_SET_IDS, STOCKING_STANDARDS } from '../stocking/standards.ts'
import { fitCalibrationSlope } from '../surveys/calibration-slope.ts'
import { TREATMENT_VALUES } from '../treatment-values.ts'
import { EN } from './messages/en.ts'
import { type Messages, messagesFor, textOr } from './report-messages.ts'
import { commonName, noteText, ruleStatusText } from './report-notes.ts'
import { ReportNumbers } from './report-numbers.ts'
import { zoneName } from './report-parts.ts'

/**
 * The English texts an answer carries, printed in the report's language: every note the service
 * writes, every rule status and every species' common name is known to the catalogues, so a Spanish
 * report prints none of them in English; the English report prints each exactly as the JSON does.
 */

const en = { text: messagesFor('en'), numbers: new ReportNumbers('en') }
const es = { text: messagesFor('es'), numbers: new ReportNumbers('es') }

/** Every note a plan can carry: each branch of planNotes taken once. */
function everyPlanNote(): string[] {
  const rule = STOCKING_STANDARDS.rule('or_fpa', 'IV-V')
  return planNotes({
    rule,
    mix: [{ species: { group: 'hardwood' } }] as never,
    cap: 24,
    climate: {} as never,
    treatments: {
      effects: [
        { treatment: 'vegetation_control', value: 'release_1yr', status: 'assumption' },
        { treatment: 'animal_protection', value: 'mesh_tubes', status: 'synthesis' },
      ],
    } as never,
    where: { kind: 'stand', nearestSiteUsed: true, nearestSiteDistanceKm: 1.54, sitesInside: 40 } as never,
    requiredTpa: null,
    halfWidthShare: 0.163,
    target: 200,
  })
}

describe('the notes an answer carries', () => {
  const notes = [
    ...everyPlanNote(),
    CLIMATE_DATA_NOTE,
    ...[[], [{ planted: 10, alive: 5, predicted: 0.5 }]].map(
      (plots) => fitCalibrationSlope(plots as never).note ?? '',
    ),
  ].filter((note) => note !== '')

  it('are each printed in English exactly as the JSON carries them', () => {
    expect(notes.length).toBeGreaterThanOrEqual(11)
    for (const note of notes) expect(noteText(note, en.text, en.numbers)).toBe(note)
  })

  it('are each known to the catalogue, so none stays English in Spanish', () => {
    for (const note of notes) expect(noteText(note, es.text, es.numbers), note).not.toBe(note)
  })

  it('keep their values, numbers in the language’s notation and statuses in its words', () => {
    const spanish = notes.map((note) => noteText(note, es.text, es.numbers))
    expect(spanish).toContain(
      'Para usos de carbono: la semiamplitud del intervalo del 90 % es el 16,3 % de los supervivientes esperados a 5 año(s) (Verra VM0047 no emite créditos por encima del 100 %)',
    )
    expect(spanish.join('\n')).toContain('a 1,54 km de su centro')
    expect(spanish.join('\n')).toContain(
      'vegetation_control release_1yr (supuesto), animal_protection mesh_tubes (síntesis)',
    )
  })

  it('a note the catalogue does not know is printed as written', () => {
    expect(noteText('Something new the service says.', es.text, es.numbers)).toBe(
      'Something new the service says.',
    )
  })
})

describe('rule statuses and common names', () => {
  it('every rule’s status is known, and English prints it as the data word it', () => {
    for (const id of RULE_SET_IDS)
      for (const siteClass of STOCKING_STANDARDS.hasSiteClasses(id) ? ['I-III', 'IV-V', 'VI'] : ['I-III']) {
        const { status } = STOCKING_STANDARDS.rule(id, siteClass as never)
        expect(ruleStatusText(status, en.text, en.numbers)).toBe(status)
        expect(ruleStatusText(status, es.text, es.numbers), status).not.toBe(status)
      }
  })

  it('every species has a Spanish common name, and the English ones are the catalogue’s', () => {
    const rows = readFileSync(projectFile('data/species.csv'), 'utf8').trim().split('\n').slice(1)
    expect(rows).toHaveLength(20)
    for (const row of rows) {
      const [code = '', name = ''] = row.split(',')
      expect(EN[`common.${code}` as keyof typeof EN], code).toBe(name)
      expect(commonName(en.text, { code, commonName: name })).toBe(name)
      expect(commonName(es.text, { code, commonName: name }), code).not.toBe(name)
    }
    expect(commonName(es.text, { code: 'XXXX', commonName: 'unknown tree' })).toBe('unknown tree')
  })

  it('every forest zone and treatment value has a name in each language, not the code', () => {
    const codes = [
      ...FOREST_ZONES.map((zone) => [zoneName, zone] as const),
      ...Object.values(TREATMENT_VALUES)
        .flat()
        .map(
          (value) => [(text: Messages, v: string) => textOr(text, `treatmentValue.${v}`, v), value] as const,
        ),
    ]
    // Proper names read the same in both languages.
    const sameInBoth = new Set(['klamath', 'okanogan_selkirk'])
    for (const [name, code] of codes) {
      expect(name(en.text, code), code).not.toMatch(/_/)
      expect(name(es.text, code), code).not.toMatch(/_/)
      if (!sameInBoth.has(code)) expect(name(es.text, code), code).not.toBe(name(en.text, code))
    }
    expect(zoneName(es.text, 'westside_cascades')).toBe('Cascadas occidentales')
    expect(zoneName(es.text, 'no_such_zone')).toBe('no_such_zone')
  })
})
