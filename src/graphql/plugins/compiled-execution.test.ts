import { type ExecutionArgs, execute, parse } from 'graphql'
import { describe, expect, it } from 'vitest'
import { collectGarbage } from '../../../test/support/garbage.ts'
import { schema } from '../schema/schema.ts'
import { compiledExecutionFits, useCompiledExecution } from './compiled-execution.ts'

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

describe('memory', () => {
  /** Runs `document` through the plugin as yoga would: the plugin swaps in its executor, which is then called. */
  async function runThrough(
    plugin: ReturnType<typeof useCompiledExecution>,
    document: ExecutionArgs['document'],
  ) {
    const executionArgs: ExecutionArgs = {
      schema,
      document,
      contextValue: {
        models: { currentView: () => ({ series: 'tsp', version: '1.0.0', codename: 'test' }) },
      },
      variableValues: {},
    }
    let executor: ((args: ExecutionArgs) => Promise<unknown>) | undefined
    const onExecute = plugin.onExecute as (payload: unknown) => void
    onExecute({
      args: executionArgs,
      executeFn: execute,
      setExecuteFn: (fn: typeof executor) => (executor = fn),
    })
    if (!executor) throw new Error('the plugin did not take the operation')
    return executor(executionArgs)
  }

  it('a stream of new documents, each compiled and later dropped from the cache, leaves nothing behind', async () => {
    // graphql-jit before 0.8.9 kept every compilation's origin paths in a module-level memo for good
    // (zalando-incubator/graphql-jit#287): ~0.55 kB a document, 6,000 documents grew the heap by 3.3 MB.
    // With the fix 10,000 grow it by 0.2–0.5 MB.
    const plugin = useCompiledExecution()
    const documentNumbered = (i: number) => parse(`query Q${i} { model { version series } }`)
    for (let i = 0; i < 300; i++) await runThrough(plugin, documentNumbered(i))
    collectGarbage()
    collectGarbage()
    const before = process.memoryUsage().heapUsed
    for (let i = 300; i < 10_300; i++) {
      const result = await runThrough(plugin, documentNumbered(i))
      if (i === 10_299) expect(result).toEqual({ data: { model: { version: '1.0.0', series: 'tsp' } } })
    }
    collectGarbage()
    collectGarbage()
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 * 1024 * 1024)
  })
})
