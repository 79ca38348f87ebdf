import { type Identity, type Store, useRateLimiter } from '@envelop/rate-limiter'
import { BREAK, type DocumentNode, GraphQLError, visit } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { apiError } from '../../domain/errors.ts'
import type { GraphQLContext } from '../schema/context.ts'
import { toGraphQLError } from '../schema/errors.ts'

/** The field whose first computation evaluates the model at every site. */
const FIELD = 'survivalMap'
const WINDOW = '1m'
const WINDOW_MS = 60_000
/** Callers remembered at most; beyond it the one written longest ago is forgotten. */
const MAX_CALLERS = 100_000

const keyOf = (identity: Identity) => `${identity.contextIdentity}\u0000${identity.fieldIdentity}`

/**
 * The rate limiter's store: each caller's call times within the window, in this process (the work it
 * protects, the model at every site, is this process's CPU). A caller with no call left in the window is
 * dropped at their next call; the map is bounded besides.
 */
export class CallWindows implements Store {
  private readonly calls = new Map<string, readonly number[]>()

  getForIdentity(identity: Identity): readonly number[] {
    return this.calls.get(keyOf(identity)) ?? []
  }

  setForIdentity(identity: Identity, timestamps: readonly number[]): void {
    const key = keyOf(identity)
    this.calls.delete(key)
    if (timestamps.length === 0) return
    this.calls.set(key, [...timestamps])
    if (this.calls.size > MAX_CALLERS) {
      const oldest = this.calls.keys().next()
      if (!oldest.done) this.calls.delete(oldest.value)
    }
  }

  /** Milliseconds until `identity` may call again with at most `max` calls per `windowMs`; 0 = now. */
  waitMs(identity: Identity, max: number, windowMs: number, now: number): number {
    const live = this.getForIdentity(identity)
      .filter((at) => at + windowMs > now)
      .sort((a, b) => a - b)
    if (live.length < max) return 0
    return (live[live.length - max] as number) + windowMs - now
  }
}

/** Whether an operation's document mentions the field anywhere (memoised per parsed document). */
const mentionsField = new WeakMap<DocumentNode, boolean>()
function asksForMap(document: DocumentNode): boolean {
  let found = mentionsField.get(document)
  if (found === undefined) {
    found = false
    visit(document, {
      Field(node) {
        if (node.name.value !== FIELD) return undefined
        found = true
        return BREAK
      },
    })
    mentionsField.set(document, found)
  }
  return found
}

/** The caller the limit belongs to: the key's account (a key and the keys that replaced it share one). */
function callerOf(context: unknown): string {
  return (context as GraphQLContext).caller?.accountId ?? 'anonymous'
}

/**
 * At most `perMinute` survivalMap calls a minute per key, each alias counted (@envelop/rate-limiter,
 * configured by field; refused calls are not counted). Registered after access control, so only admitted
 * callers are counted and `caller` is known. A refusal is the API's rate_limit_exceeded (HTTP 429), with
 * the wait in `extensions.retryAfterSeconds` and a Retry-After header.
 *
 * The limiter's own refusal is replaced (by wrapping the `setResultAndStopExecution` it calls): it sets
 * `extensions.http.statusCode`, which yoga does not read, and a Retry-After of the window's text ("1m").
 * Its `transformError` option cannot do it either: the error it returns is thrown from inside the
 * document walk, which rejects the whole execution. Operations that do not mention survivalMap skip the
 * limiter's walk of the document altogether.
 */
export function useSurvivalMapThrottle(options: { perMinute: number }): Plugin<GraphQLContext> {
  const store = new CallWindows()
  const limiter = useRateLimiter({
    identifyFn: callerOf,
    store,
    configByField: [
      { type: 'Query', field: FIELD, max: options.perMinute, window: WINDOW, uncountRejected: true },
    ],
  })
  const onExecute = limiter.onExecute as unknown as NonNullable<Plugin<GraphQLContext>['onExecute']>

  function refusal(source: GraphQLError, context: unknown): GraphQLError {
    const identity = { contextIdentity: callerOf(context), fieldIdentity: FIELD }
    const retryAfterSeconds = Math.max(
      1,
      Math.ceil(store.waitMs(identity, options.perMinute, WINDOW_MS, Date.now()) / 1000),
    )
    const error = toGraphQLError(
      apiError(
        'rate_limit_exceeded',
        { field: FIELD, perMinute: options.perMinute, retryAfterSeconds },
        { headers: { 'retry-after': String(retryAfterSeconds) } },
      ),
      source,
    )
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      path: error.path,
      originalError: error.originalError,
      extensions: { ...error.extensions, retryAfterSeconds },
    })
  }

  return {
    onExecute(payload) {
      if (!asksForMap(payload.args.document)) return
      const context = payload.args.contextValue
      return onExecute({
        ...payload,
        setResultAndStopExecution: (result) =>
          payload.setResultAndStopExecution({
            ...result,
            errors: (result.errors ?? []).map((error) => refusal(error, context)),
          }),
      })
    },
  }
}
