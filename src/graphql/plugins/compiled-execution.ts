import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  type OperationDefinitionNode,
  visit,
} from 'graphql'
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit'
import type { Plugin } from 'graphql-yoga'
import { LruCache } from '../../lru-cache.ts'

/** Documents compiled and kept (each compiled document is a few hundred kB of generated code). */
const COMPILED_DOCUMENTS = 100
/** Operations with more root fields (aliases) than this are executed by graphql-js: compiling them costs more than it saves. */
const MAX_ROOT_FIELDS = 5

/**
 * Whether an operation is tried with the compiled executor: a query with a few root fields. Mutations
 * (the survey writes, whose fields must run one after another), subscriptions (this schema has none)
 * and alias floods stay with graphql-js.
 */
export function compiledExecutionFits(args: Pick<ExecutionArgs, 'document' | 'operationName'>): boolean {
  const operation = getOperationAST(args.document, args.operationName)
  return (
    operation?.operation === 'query' &&
    operation.selectionSet.selections.length <= MAX_ROOT_FIELDS &&
    !hasVariableInsideLiteral(operation)
  )
}

/**
 * graphql-jit reads a custom scalar's literal without the variables (a JSON `stand` written inline
 * with a `$ring` inside it arrives with the variable unresolved), so an operation with a variable
 * inside an object or list literal goes to graphql-js. `input: $input` is not affected.
 */
function hasVariableInsideLiteral(operation: OperationDefinitionNode): boolean {
  let depth = 0
  let found = false
  visit(operation, {
    ObjectValue: { enter: () => void depth++, leave: () => void depth-- },
    ListValue: { enter: () => void depth++, leave: () => void depth-- },
    Variable: () => {
      if (depth > 0) found = true
    },
  })
  return found
}

type Execute = (args: ExecutionArgs) => unknown

/** A compiled document, or null when graphql-jit could not compile it (graphql-js runs it then). */
type Compiled = CompiledQuery | null

/**
 * Executes validated queries with graphql-jit: each document compiled once into a function that
 * resolves its fields without graphql-js's per-field bookkeeping (the cost that dominated a 500-site
 * predictBatch). Same schema, same resolvers, same plugins around it.
 *
 * The compiled function coerces the variables itself. When they do not coerce it answers with errors
 * and no `data`, and the operation is run again by graphql-js, so those errors keep graphql-js's
 * wording and status (400); nothing has been resolved by then. Everything else is graphql-jit's answer.
 */
export function useCompiledExecution(): Plugin {
  const compiled = new LruCache<DocumentNode, Compiled>(COMPILED_DOCUMENTS)

  function compiledFor(args: ExecutionArgs): Compiled {
    let entry = compiled.get(args.document)
    if (entry === undefined) {
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined)
      entry = isCompiledQuery(result) ? result : null
      compiled.set(args.document, entry)
    }
    return entry
  }

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!compiledExecutionFits(args)) return
      const execute = executeFn as Execute
      setExecuteFn(async (executionArgs: ExecutionArgs) => {
        const query = compiledFor(executionArgs)
        if (!query) return execute(executionArgs)
        const result = (await query.query(
          executionArgs.rootValue,
          executionArgs.contextValue,
          executionArgs.variableValues,
        )) as ExecutionResult
        return 'data' in result ? result : execute(executionArgs)
      })
    },
  }
}
