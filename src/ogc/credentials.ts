import type { IncomingHttpHeaders } from 'node:http'

/** Longer than any key: an Authorization header beyond it is not read. */
const AUTHORIZATION_MAX = 1024

/**
 * The API key a request carries: X-API-Key, or else the password of HTTP Basic credentials (the user
 * name is not read), which is all QGIS can send. null: neither.
 */
export function apiKeyOf(headers: IncomingHttpHeaders): string | null {
  const header = headers['x-api-key']
  const key = Array.isArray(header) ? header[0] : header
  if (key !== undefined) return key
  const authorization = headers.authorization
  if (!authorization || authorization.length > AUTHORIZATION_MAX) return null
  const basic = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(authorization)
  if (!basic) return null
  const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? null : decoded.slice(colon + 1)
}
