import type { Plugin } from 'graphql-yoga'

/**
 * The GraphiQL page runs one large inline script (the self-contained bundle) and blob: workers, so a
 * script policy would need a hash of a 9 MB bundle; these directives restrict nothing it uses. The page
 * holds the caller's key, so no other site may frame it (clickjacking) and it sends no Referer.
 */
export const GRAPHIQL_CSP = [
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ')

const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': GRAPHIQL_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/**
 * Framing, sniffing and referrer protection on the HTML yoga writes itself (GraphiQL); every other
 * answer of yoga's is not to be sniffed either.
 */
export function useGraphiQLPageHeaders(): Plugin {
  return {
    onResponse({ response }) {
      if (!response.headers.get('content-type')?.startsWith('text/html')) {
        response.headers.set('x-content-type-options', 'nosniff')
        return
      }
      for (const [name, value] of Object.entries(PAGE_HEADERS)) response.headers.set(name, value)
    },
  }
}
