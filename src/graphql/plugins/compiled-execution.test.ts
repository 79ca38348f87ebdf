import { type ExecutionArgs, parse } from 'graphql'
import { describe, expect, it } from 'vitest'
import { schema } from '../schema.ts'
import { compiledExecutionFits } from './compiled-execution.ts'

const args = (
  source: string,
  variableValues: Record<string, unknown> = {},
  operationName?: string,
): ExecutionArgs => ({
  schema,
  document: parse(source),
  variableValues,
  operationName,
})

const PREDICT = `query P($input: PredictionInput!) { predict(input: $input) { speciesCode } }`
const INPUT = { latitude: 44.6, longitude: -123.6, speciesCode: 'PSME', plantingMethod: 'MANUAL' }

describe('which operations run compiled', () => {
  it('a query with a few root fields, whatever its variables (their coercion is checked when it runs)', () => {
    expect(compiledExecutionFits(args(PREDICT, { input: INPUT }))).toBe(true)
    expect(compiledExecutionFits(args(PREDICT, {}))).toBe(true)
    expect(compiledExecutionFits(args('{ model { version } health { status } }'))).toBe(true)
  })

  it('not mutations, nor an operation name the document lacks', () => {
    expect(compiledExecutionFits(args('mutation M { model { version } }'))).toBe(false)
    expect(compiledExecutionFits(args(PREDICT, { input: INPUT }, 'Other'))).toBe(false)
  })

  it('not alias floods: a compiled function per such document would cost more memory than it saves', () => {
    const aliases = Array.from({ length: 6 }, (_, i) => `a${i}: model { version }`).join(' ')
    expect(compiledExecutionFits(args(`{ ${aliases} }`))).toBe(false)
  })
})
