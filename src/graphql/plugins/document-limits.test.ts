import { envelop, useEngine, useSchema } from '@envelop/core'
import * as GraphQLJS from 'graphql'
import { describe, expect, it } from 'vitest'
import { schema } from '../schema/schema.ts'
import { useDocumentLimits } from './document-limits.ts'

/** The gateway's schema behind graphql-js and the plugin under test, and nothing else: no key, no executor. */
const getEnveloped = envelop({ plugins: [useEngine(GraphQLJS), useSchema(schema), useDocumentLimits()] })

/** The validation errors of `document` (parse errors are thrown). */
function check(document: string) {
  const { parse, validate, schema: enveloped } = getEnveloped({})
  return validate(enveloped, parse(document)).map((error: GraphQLJS.GraphQLError) => ({
    message: error.message,
    extensions: error.extensions,
  }))
}

const tooComplex = (message: string) => [
  { message, extensions: { code: 'query_too_complex', status: 400, http: { status: 400 } } },
]

/** An introspection query nested `depth` levels deep (`{ __type { fields { type { name` is 4). */
function nested(depth: number): string {
  const ofType = (levels: number): string => (levels === 0 ? 'name' : `ofType { ${ofType(levels - 1)} }`)
  return `{ __type(name: "Query") { fields { type { ${ofType(depth - 4)} } } } }`
}

const aliases = (count: number, field = 'model { version }') =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`

describe('useDocumentLimits', () => {
  it('admits a document nested 10 deep and refuses 11 as query_too_complex (400)', () => {
    expect(check(nested(10))).toEqual([])
    expect(check(nested(11))).toEqual(tooComplex('Query depth limit of 10 exceeded, found 11.'))
  })

  it('refuses exactly the documents deeper than 10', () => {
    for (let depth = 4; depth <= 16; depth++) {
      expect(check(nested(depth)), `depth ${depth}`).toEqual(
        depth > 10 ? tooComplex(`Query depth limit of 10 exceeded, found ${depth}.`) : [],
      )
    }
  })

  it('admits 510 aliases and refuses 511, __typename included', () => {
    expect(check(aliases(510))).toEqual([])
    expect(check(aliases(511))).toEqual(tooComplex('Aliases limit of 510 exceeded, found 511.'))
    expect(check(aliases(600, '__typename'))).toEqual(tooComplex('Aliases limit of 510 exceeded, found 600.'))
  })

  it('refuses exactly the documents with more than 510 aliases', () => {
    for (const count of [1, 100, 509, 510, 511, 512, 520]) {
      expect(check(aliases(count, '__typename')), `${count} aliases`).toEqual(
        count > 510 ? tooComplex(`Aliases limit of 510 exceeded, found ${count}.`) : [],
      )
    }
  })

  it('admits 50 directives and refuses 51', () => {
    expect(check(aliases(50, 'model @include(if: true) { version }'))).toEqual([])
    expect(check(aliases(51, 'model @include(if: true) { version }'))).toEqual(
      tooComplex('Directives limit of 50 exceeded, found 51.'),
    )
  })

  it('lets a 500-alias prediction query with the full selection through (the hypha batch size)', () => {
    const selection = `site { latitude longitude matchedLatitude matchedLongitude matchDistanceKm region }
      speciesCode speciesCommonName plantingMethod
      predictions { horizonYears survivalProbability riskFactors { factor impact magnitude } }
      model { version codename series } generatedAt`
    const predicts = Array.from(
      { length: 500 },
      (_, i) =>
        `p${i}: predict(input: { latitude: ${44 + i / 1000}, longitude: -123.6, speciesCode: "PSME", plantingMethod: MANUAL, horizons: [1, 3, 5] }) { ...P }`,
    )
    expect(check(`query Big { ${predicts.join('\n')} }\nfragment P on Prediction { ${selection} }`)).toEqual(
      [],
    )
  })

  it('leaves other validation errors to GraphQL', () => {
    expect(check('{ nosuchfield }')).toEqual([
      { message: 'Cannot query field "nosuchfield" on type "Query".', extensions: {} },
    ])
  })

  it('refuses a document of more than 30 000 tokens while parsing it', () => {
    const { parse } = getEnveloped({})
    expect(() => parse(`{ ${'__typename '.repeat(30_001)} }`)).toThrow('Token limit of 30000 exceeded.')
    expect(() => parse(`{ ${'__typename '.repeat(1_000)} }`)).not.toThrow()
  })

  it('reports the token limit as query_too_complex like the other limits', () => {
    const { parse } = getEnveloped({})
    let thrown: unknown
    try {
      parse(`{ ${'__typename '.repeat(30_001)} }`)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(GraphQLJS.GraphQLError)
    expect((thrown as GraphQLJS.GraphQLError).extensions).toMatchObject({
      code: 'query_too_complex',
      status: 400,
    })
  })
})
