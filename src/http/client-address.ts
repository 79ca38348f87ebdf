import type { IncomingHttpHeaders } from 'node:http'
import { isIP, isIPv4 } from 'node:net'
import parseForwarded from 'forwarded-parse'
import proxyAddr from 'proxy-addr'
import type { TrustProxy, TrustProxyHeader } from '../config/config.ts'

/**
 * The proxies this service believes (TRUST_PROXY), compiled once at startup, and the one header they
 * write (TRUST_PROXY_HEADER). Only that header is read: a caller can always send the other one itself.
 */
export interface ProxyTrust {
  /** Whether the hop `hop` steps from us (0: the TCP peer) is a proxy of ours, whose word we take. */
  readonly trusts: (address: string, hop: number) => boolean
  readonly header: TrustProxyHeader
}

/** TRUST_PROXY=false: the TCP peer is the client; no header is read. */
export const TRUST_NO_PROXY: ProxyTrust = { trusts: () => false, header: 'x-forwarded-for' }

/** TRUST_PROXY → the trust test, compiled once (proxy-addr for addresses and CIDRs, IPv4-mapped included). */
export function compileProxyTrust(
  proxies: TrustProxy,
  header: TrustProxyHeader = 'x-forwarded-for',
): ProxyTrust {
  if (proxies === false || proxies === 0) return TRUST_NO_PROXY
  if (typeof proxies === 'number')
    return { trusts: (address, hop) => hop < proxies && isIP(address) !== 0, header }
  const listed = proxyAddr.compile([...proxies])
  return { trusts: (address, hop) => isIP(address) !== 0 && listed(address, hop), header }
}

/**
 * The client's address as Express and Fastify find it: from the TCP peer back through the header's
 * hops, right to left, the first hop that is not a trusted proxy (or the left-most when every one is).
 * Whatever a caller writes into the header lies left of what our nearest proxy wrote, so it is read
 * only when that proxy's word leads to it. A hop that is not an address (`unknown`, `_hidden`, a
 * garbled element) is never trusted: the walk stops there and answers it. Undefined: the peer is gone.
 */
export function clientAddress(
  peer: string | undefined,
  headers: IncomingHttpHeaders,
  trust: ProxyTrust,
): string | undefined {
  if (peer === undefined) return undefined
  let address = normaliseAddress(peer)
  if (!trust.trusts(address, 0)) return address
  const header = headers[trust.header]
  const value = Array.isArray(header) ? header.join(',') : header
  const hops = trust.header === 'forwarded' ? forwardedFor(value) : xForwardedFor(value)
  for (let hop = 1; hop <= hops.length; hop++) {
    address = normaliseAddress(hops[hops.length - hop] as string)
    if (!trust.trusts(address, hop)) break
  }
  return address
}

/** X-Forwarded-For: addresses separated by commas, the nearest hop last; empty entries are skipped. */
function xForwardedFor(value: string | undefined): string[] {
  if (!value) return []
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
}

/**
 * RFC 7239 Forwarded: the `for` node of each element, the nearest hop last. The elements are split
 * from the right, so a caller's malformed prefix (an open quote, say) cannot swallow what our proxies
 * appended after it; each element is then parsed on its own, and one that does not parse, or has no
 * `for`, is a hop that is not an address.
 */
function forwardedFor(value: string | undefined): string[] {
  if (!value) return []
  const hops: string[] = []
  let end = value.length
  let quoted = false
  for (let i = value.length - 1; i >= -1; i--) {
    const code = i < 0 ? 0x2c : value.charCodeAt(i)
    if (code === 0x22 && !escaped(value, i)) quoted = !quoted
    else if (code === 0x2c && (!quoted || i < 0)) {
      const element = value.slice(i + 1, end).trim()
      if (element) hops.push(forwardedNode(element))
      end = i
    }
  }
  return hops.reverse()
}

/** A quote preceded by an odd number of backslashes is a character of a quoted string. */
function escaped(value: string, quote: number): boolean {
  let backslashes = 0
  while (value.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++
  return backslashes % 2 === 1
}

/** The address in `for=` (`"[2001:db8::1]:4711"`, `192.0.2.43:80`), or the identifier written there. */
function forwardedNode(element: string): string {
  let node: string | undefined
  try {
    const [parsed, ...more] = parseForwarded(element)
    node = more.length === 0 ? parsed?.for : undefined
  } catch {
    node = undefined
  }
  if (!node) return 'unknown'
  if (node.startsWith('[')) {
    const close = node.indexOf(']')
    return close > 0 ? node.slice(1, close) : node
  }
  const colon = node.lastIndexOf(':')
  return colon > 0 && isIPv4(node.slice(0, colon)) ? node.slice(0, colon) : node
}

const IPV4_MAPPED = /^[0:]*:ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i

/**
 * One spelling per address: IPv4-mapped IPv6 (`::ffff:1.2.3.4`, as a dual-stack socket reports an IPv4
 * peer) becomes the IPv4 address, other IPv6 is lower-cased. IPv4 (the usual peer) is returned at once.
 */
export function normaliseAddress(address: string): string {
  if (!address.includes(':') || isIP(address) !== 6) return address
  const mapped = IPV4_MAPPED.exec(address)
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1]
  if (mapped?.[2] && mapped[3]) {
    const high = Number.parseInt(mapped[2], 16)
    const low = Number.parseInt(mapped[3], 16)
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
  }
  return address.toLowerCase()
}
