import { useGraphQlJit } from '@envelop/graphql-jit'
import { type ExecutionArgs, getOperationAST, getVariableValues } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { LruCache } from '../../domain/lru-cache.ts'

/** Documents compiled and kept (each compiled document is a few hundred kB of generated code). */
const COMPILED_DOCUMENTS = 100
/** Operations with more root fields (aliases) than this are executed by graphql-js: compiling them costs more than it saves. */
const MAX_ROOT_FIELDS = 5

/**
 * Whether an operation runs through the compiled executor: a query with a few root fields whose
 * variables coerce cleanly. Everything else — mutations and subscriptions (this schema has none, and
 * graphql-js reports that as the spec says), variables that fail coercion (graphql-js words those
 * errors and answers 400), alias floods — stays with graphql-js, so error semantics are graphql-js's.
 */
export function compiledExecutionFits(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName)
  if (operation?.operation !== 'query') return false
  if (operation.selectionSet.selections.length > MAX_ROOT_FIELDS) return false
  const coerced = getVariableValues(
    args.schema,
    operation.variableDefinitions ?? [],
    args.variableValues ?? {},
    {
      maxErrors: 1,
    },
  )
  return !('errors' in coerced)
}

/**
 * Executes validated queries with graphql-jit: each document compiled once into a function that
 * resolves its fields without graphql-js's per-field bookkeeping (the cost that dominated a 500-site
 * predictBatch). Same schema, same resolvers, same plugins around it.
 */
export function useCompiledExecution(): Plugin {
  return useGraphQlJit(
    {},
    { enableIf: compiledExecutionFits, cache: new LruCache(COMPILED_DOCUMENTS) },
  ) as Plugin
}
