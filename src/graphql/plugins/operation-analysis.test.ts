import { parse } from 'graphql'
import { describe, expect, it } from 'vitest'
import { analyzeOperation } from './operation-analysis.ts'

const facts = (query: string, operationName?: string, variables: Record<string, unknown> = {}) =>
  analyzeOperation(parse(query), operationName, variables)

describe('analyzeOperation', () => {
  it('names the one root field asked for, whatever the aliases and operation name', () => {
    expect(
      facts('query Mine { a: predict(input: $i) { speciesCode } b: predict(input: $i) { speciesCode } }')
        .rootField,
    ).toBe('predict')
    expect(facts('{ species { code } }').rootField).toBe('species')
  })

  it('says multiple for several root fields, also through fragments', () => {
    expect(facts('{ species { code } health { status } }').rootField).toBe('multiple')
    expect(
      facts('query Q { ...F } fragment F on Query { species { code } model { version } }').rootField,
    ).toBe('multiple')
  })

  it('picks the named operation and says none when there is no such operation', () => {
    const document = 'query A { species { code } } query B { health { status } }'
    expect(facts(document, 'B')).toMatchObject({ rootField: 'health', isPublic: true })
    expect(facts(document, 'C')).toMatchObject({ rootField: 'none', operation: null })
  })

  it('needs a key for viewer, alone or next to public fields, and counts no site for it', () => {
    expect(facts('{ viewer { today { used } } }')).toMatchObject({
      rootField: 'viewer',
      isPublic: false,
      sitePredictions: 0,
    })
    expect(facts('{ health { status } viewer { key { id } } }').isPublic).toBe(false)
    expect(facts('{ health { status } model { version } __typename }').isPublic).toBe(true)
  })

  it('counts site predictions: aliases one each, batch lists by length', () => {
    const query =
      'query ($s: [BatchSiteInput!]!) { a: predict(input: $i) { speciesCode } predictBatch(sites: $s) { index } }'
    expect(facts(query, undefined, { s: [{}, {}, {}] }).sitePredictions).toBe(4)
  })

  it('counts speciesRanking and survivalMap as one site prediction each, aliases included', () => {
    const ranking = (alias: string) =>
      `${alias}: speciesRanking(latitude: 44.6, longitude: -123.6, plantingMethod: MANUAL, horizon: 5) { horizonYears }`
    const map = (alias: string) =>
      `${alias}: survivalMap(speciesCode: "PSME", plantingMethod: MANUAL, horizon: 5) { siteCount }`
    expect(facts(`{ ${ranking('a')} }`)).toMatchObject({ rootField: 'speciesRanking', sitePredictions: 1 })
    expect(facts(`{ ${map('a')} }`)).toMatchObject({ rootField: 'survivalMap', sitePredictions: 1 })
    expect(facts(`{ ${ranking('a')} ${ranking('b')} ${map('c')} }`).sitePredictions).toBe(3)
  })
})
