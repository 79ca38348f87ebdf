/** Hosts a request may go to without leaving this machine. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * True when fetching `url` stays on this machine: http(s)/ws(s) to a loopback host, or an in-page
 * `data:`/`about:` URL, or a `blob:` URL minted by a loopback origin.
 */
export function staysOnLoopback(url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol === 'data:' || parsed.protocol === 'about:') return true
  if (parsed.protocol === 'blob:') return staysOnLoopback(url.slice('blob:'.length))
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) return false
  return LOOPBACK_HOSTS.has(parsed.hostname)
}
