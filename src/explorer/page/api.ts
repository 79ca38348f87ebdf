import type { TypedDocumentString } from './generated/operations.ts'

/** What the page shows of the day's quota, read from the X-RateLimit-* headers of the last answer. */
export interface Quota {
  limit: number | null
  remaining: number | null
  resetAt: Date | null
}

/** An answer the API refused or could not give, as the user should read it. */
export class ExplorerApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly requestId: string | null,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

interface GraphQLErrorBody {
  message: string
  extensions?: Record<string, unknown> & { code?: string; status?: number }
}

function numberHeader(headers: Headers, name: string): number | null {
  const raw = headers.get(name)
  if (raw === null || raw.trim() === '') return null
  const value = Number(raw)
  return Number.isFinite(value) ? value : null
}

export function quotaOf(headers: Headers): Quota | null {
  if (!headers.has('x-ratelimit-limit') && !headers.has('x-ratelimit-remaining')) return null
  const reset = numberHeader(headers, 'x-ratelimit-reset')
  return {
    limit: numberHeader(headers, 'x-ratelimit-limit'),
    remaining: numberHeader(headers, 'x-ratelimit-remaining'),
    resetAt: reset === null ? null : new Date(reset * 1000),
  }
}

/**
 * Talks to the API on the page's own origin with the analyst's key in X-API-Key (never in a URL).
 * Every answer's rate-limit headers go to `onQuota`.
 */
export class ExplorerApi {
  constructor(
    private readonly key: () => string,
    private readonly onQuota: (quota: Quota) => void,
  ) {}

  /**
   * One operation. A partial answer (some root field answered, others null with an error, e.g. no data
   * near the point) resolves with both; an answer with no data at all (bad key, quota spent) rejects.
   */
  async query<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
  ): Promise<{ data: TResult; errors: ExplorerApiError[] }> {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': this.key() },
      body: JSON.stringify({ query: document.toString(), variables }),
    })
    this.noteQuota(response)
    const requestId = response.headers.get('request-id')
    const body = (await response.json().catch(() => ({}))) as { data?: unknown; errors?: GraphQLErrorBody[] }
    const errors = (body.errors ?? []).map((error) => {
      const extensions = error.extensions ?? {}
      return new ExplorerApiError(
        error.message,
        extensions.code ?? 'error',
        extensions.status ?? response.status,
        requestId,
        extensions,
      )
    })
    if (body.data === undefined || body.data === null)
      throw (
        errors[0] ??
        new ExplorerApiError(`The API answered ${response.status}`, 'error', response.status, requestId)
      )
    return { data: body.data as TResult, errors }
  }

  /** POST /keys: a free spore key for an email address, shown once. */
  async requestSporeKey(email: string): Promise<{ key: string; tier: string }> {
    const response = await fetch('/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email, name: 'explorer' }),
    })
    const body = (await response.json().catch(() => ({}))) as {
      key?: string
      tier?: string
      error?: { code: string; message: string }
    }
    if (!response.ok || !body.key)
      throw new ExplorerApiError(
        body.error?.message ?? `The API answered ${response.status}`,
        body.error?.code ?? 'error',
        response.status,
        response.headers.get('request-id'),
      )
    return { key: body.key, tier: body.tier ?? 'spore' }
  }

  private noteQuota(response: Response): void {
    const quota = quotaOf(response.headers)
    if (quota) this.onQuota(quota)
  }
}
