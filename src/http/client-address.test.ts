import type { IncomingHttpHeaders } from 'node:http'
import { isIP } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TrustProxy, TrustProxyHeader } from '../config/config.ts'
import { clientAddress, compileProxyTrust, normaliseAddress, TRUST_NO_PROXY } from './client-address.ts'

/** The client address of a request from `peer` with these headers, under TRUST_PROXY=`proxies`. */
function resolve(
  proxies: TrustProxy,
  peer: string | undefined,
  headers: IncomingHttpHeaders,
  header?: TrustProxyHeader,
) {
  return clientAddress(peer, headers, compileProxyTrust(proxies, header))
}

const LOOPBACK = ['127.0.0.1/8']
const PRIVATE = ['10.0.0.0/8', '192.168.0.0/16']

describe('client address: TRUST_PROXY=false (the default)', () => {
  it('is the TCP peer, whatever the headers say', () => {
    const headers = { 'x-forwarded-for': '203.0.113.7', forwarded: 'for=203.0.113.8' }
    expect(resolve(false, '127.0.0.1', headers)).toBe('127.0.0.1')
    expect(resolve(false, '127.0.0.1', headers, 'forwarded')).toBe('127.0.0.1')
    expect(resolve(0, '127.0.0.1', headers)).toBe('127.0.0.1')
    expect(compileProxyTrust(false)).toBe(TRUST_NO_PROXY)
    expect(compileProxyTrust(0)).toBe(TRUST_NO_PROXY)
  })

  it('is undefined when the peer is gone', () => {
    expect(resolve(LOOPBACK, undefined, { 'x-forwarded-for': '203.0.113.7' })).toBeUndefined()
  })
})

describe('client address: X-Forwarded-For behind trusted addresses', () => {
  it('takes the address a trusted peer forwards', () => {
    expect(resolve(LOOPBACK, '127.0.0.1', { 'x-forwarded-for': '203.0.113.7' })).toBe('203.0.113.7')
    expect(resolve(LOOPBACK, '127.0.0.2', { 'x-forwarded-for': ' 203.0.113.7 ' })).toBe('203.0.113.7')
  })

  it('ignores the header from a peer that is not trusted', () => {
    expect(resolve(LOOPBACK, '198.51.100.4', { 'x-forwarded-for': '203.0.113.7' })).toBe('198.51.100.4')
  })

  it('is the trusted peer itself when it forwards no address', () => {
    expect(resolve(LOOPBACK, '127.0.0.1', {})).toBe('127.0.0.1')
    expect(resolve(LOOPBACK, '127.0.0.1', { 'x-forwarded-for': ' , ' })).toBe('127.0.0.1')
  })

  it('walks a chain of trusted CIDRs to the right-most address outside them', () => {
    const headers = { 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.1.2.3, 192.168.4.5' }
    expect(resolve(PRIVATE, '10.0.0.2', headers)).toBe('203.0.113.7')
    // An untrusted hop in the middle is where the walk stops, though trusted ones lie beyond it.
    const gap = { 'x-forwarded-for': '203.0.113.7, 10.9.9.9, 198.51.100.1, 192.168.4.5' }
    expect(resolve(PRIVATE, '10.0.0.2', gap)).toBe('198.51.100.1')
  })

  it('is the left-most address when every hop is trusted', () => {
    expect(resolve(PRIVATE, '10.0.0.2', { 'x-forwarded-for': '10.7.7.7, 192.168.1.1' })).toBe('10.7.7.7')
  })

  it('does not let a caller choose its address by prepending its own values', () => {
    for (const spoofed of ['10.0.0.1', '1.1.1.1, 10.0.0.1', 'unknown', 'x"y, ,,', '127.0.0.1']) {
      const headers = { 'x-forwarded-for': `${spoofed}, 203.0.113.7` }
      expect(resolve(LOOPBACK, '127.0.0.1', headers)).toBe('203.0.113.7')
      expect(resolve(PRIVATE, '10.0.0.2', { 'x-forwarded-for': `${spoofed}, 203.0.113.7, 10.0.0.3` })).toBe(
        '203.0.113.7',
      )
    }
  })

  it('stops at a hop that is not an address, and answers it', () => {
    expect(resolve(LOOPBACK, '127.0.0.1', { 'x-forwarded-for': '203.0.113.7, _hidden' })).toBe('_hidden')
    expect(resolve(LOOPBACK, '127.0.0.1', { 'x-forwarded-for': '203.0.113.7, 2130706433' })).toBe(
      '2130706433',
    )
  })

  it('reads the values of repeated header lines as one list', () => {
    const headers = { 'x-forwarded-for': ['6.6.6.6', '203.0.113.7'] }
    expect(resolve(LOOPBACK, '127.0.0.1', headers)).toBe('203.0.113.7')
  })

  it('does not read Forwarded', () => {
    expect(resolve(LOOPBACK, '127.0.0.1', { forwarded: 'for=203.0.113.7' })).toBe('127.0.0.1')
    const both = { forwarded: 'for=203.0.113.8', 'x-forwarded-for': '203.0.113.7' }
    expect(resolve(LOOPBACK, '127.0.0.1', both)).toBe('203.0.113.7')
  })
})

describe('client address: hop counts', () => {
  const headers = { 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.1.2.3' }

  it('takes the address that many hops from the peer', () => {
    expect(resolve(0, '10.0.0.2', headers)).toBe('10.0.0.2')
    expect(resolve(1, '10.0.0.2', headers)).toBe('10.1.2.3')
    expect(resolve(2, '10.0.0.2', headers)).toBe('203.0.113.7')
    expect(resolve(3, '10.0.0.2', headers)).toBe('198.51.100.1')
  })

  it('takes the left-most address when there are fewer hops than that', () => {
    expect(resolve(4, '10.0.0.2', headers)).toBe('198.51.100.1')
    expect(resolve(100, '10.0.0.2', headers)).toBe('198.51.100.1')
    expect(resolve(5, '10.0.0.2', {})).toBe('10.0.0.2')
  })

  it('trusts whatever peer it is, so a prefix counts only beyond the hops configured', () => {
    expect(resolve(1, '198.51.100.9', { 'x-forwarded-for': '6.6.6.6, 203.0.113.7' })).toBe('203.0.113.7')
  })

  it('stops at a hop that is not an address even within the count', () => {
    expect(resolve(3, '10.0.0.2', { 'x-forwarded-for': '203.0.113.7, unknown, 10.1.2.3' })).toBe('unknown')
  })
})

describe('client address: RFC 7239 Forwarded', () => {
  const forwarded = (value: string, proxies: TrustProxy = LOOPBACK, peer = '127.0.0.1') =>
    resolve(proxies, peer, { forwarded: value }, 'forwarded')

  it('reads for= plain, quoted, with ports and with IPv6 brackets', () => {
    expect(forwarded('for=203.0.113.7')).toBe('203.0.113.7')
    expect(forwarded('For=203.0.113.7;proto=https;by=127.0.0.1')).toBe('203.0.113.7')
    expect(forwarded('for="203.0.113.7"')).toBe('203.0.113.7')
    expect(forwarded('for="203.0.113.7:47011"')).toBe('203.0.113.7')
    expect(forwarded('for="[2001:db8:cafe::17]"')).toBe('2001:db8:cafe::17')
    expect(forwarded('for="[2001:DB8:cafe::17]:4711"')).toBe('2001:db8:cafe::17')
    expect(forwarded('proto=https;for="[2001:db8::1]:_port"')).toBe('2001:db8::1')
  })

  it('walks several elements and several header lines right to left', () => {
    const value = 'for=198.51.100.1, for="[2001:db8::7]:4711";proto=https, for=10.1.2.3;by=10.0.0.2'
    expect(forwarded(value, PRIVATE, '10.0.0.2')).toBe('2001:db8::7')
    // Node joins repeated Forwarded lines with ", ".
    expect(forwarded('for=6.6.6.6, for=203.0.113.7, for=10.1.2.3', PRIVATE, '10.0.0.2')).toBe('203.0.113.7')
    expect(resolve(1, '10.0.0.2', { forwarded: 'for=6.6.6.6,for=203.0.113.7' }, 'forwarded')).toBe(
      '203.0.113.7',
    )
  })

  it('stops at obfuscated identifiers, unknown, an element without for= and a garbled element', () => {
    expect(forwarded('for=203.0.113.7, for=_hidden')).toBe('_hidden')
    expect(forwarded('for=203.0.113.7, for="_hidden:_port"')).toBe('_hidden:_port')
    expect(forwarded('for=203.0.113.7, for=unknown')).toBe('unknown')
    expect(forwarded('for=203.0.113.7, proto=https')).toBe('unknown')
    expect(forwarded('for=203.0.113.7, for=203.0.113.8:80')).toBe('unknown') // a port must be quoted
    expect(forwarded('for=203.0.113.7, for=[2001:db8::1]')).toBe('unknown') // brackets too
    expect(forwarded('for=10.1.1.1, for="[10.2.2.2]"', PRIVATE, '10.0.0.2')).toBe('10.1.1.1')
  })

  it('does not let a malformed prefix from the caller swallow what the proxy appended', () => {
    for (const prefix of [
      'for="6.6.6.6',
      'for=6.6.6.6;for=1.1.1.1',
      '"',
      'for="a\\"',
      ';;,',
      'for="x, by="',
    ]) {
      expect(forwarded(`${prefix}, for=203.0.113.7`)).toBe('203.0.113.7')
      expect(forwarded(`${prefix}, for="[2001:db8::1]:80", for=10.1.1.1`, PRIVATE, '10.0.0.2')).toBe(
        '2001:db8::1',
      )
    }
    expect(forwarded('for="x\\", for=203.0.113.7"')).toBe('x", for=203.0.113.7') // one quoted value
  })

  it('does not read X-Forwarded-For', () => {
    expect(resolve(LOOPBACK, '127.0.0.1', { 'x-forwarded-for': '203.0.113.7' }, 'forwarded')).toBe(
      '127.0.0.1',
    )
    const both = { forwarded: 'for=203.0.113.8', 'x-forwarded-for': '203.0.113.7' }
    expect(resolve(LOOPBACK, '127.0.0.1', both, 'forwarded')).toBe('203.0.113.8')
  })
})

describe('client address: IPv6 and IPv4-mapped IPv6', () => {
  it('trusts IPv6 peers and reads IPv6 from X-Forwarded-For', () => {
    expect(resolve(['::1'], '::1', { 'x-forwarded-for': '2001:db8::42' })).toBe('2001:db8::42')
    expect(resolve(['loopback'], '::1', { 'x-forwarded-for': '2001:DB8::42' })).toBe('2001:db8::42')
    expect(resolve(['fd00::/8'], 'fd12::1', { 'x-forwarded-for': '2001:db8::42, fd00::9' })).toBe(
      '2001:db8::42',
    )
    expect(resolve(['fd00::/8'], '2001:db8::5', { 'x-forwarded-for': '2001:db8::42' })).toBe('2001:db8::5')
  })

  it('treats an IPv4-mapped peer as its IPv4 address, trusted by IPv4 CIDRs', () => {
    expect(resolve(LOOPBACK, '::ffff:127.0.0.1', { 'x-forwarded-for': '203.0.113.7' })).toBe('203.0.113.7')
    expect(resolve(false, '::ffff:203.0.113.7', {})).toBe('203.0.113.7')
    expect(resolve(LOOPBACK, '::ffff:198.51.100.4', { 'x-forwarded-for': '203.0.113.7' })).toBe(
      '198.51.100.4',
    )
  })

  it('answers mapped addresses in the headers as IPv4', () => {
    expect(resolve(LOOPBACK, '127.0.0.1', { 'x-forwarded-for': '::ffff:203.0.113.7' })).toBe('203.0.113.7')
    expect(resolve(LOOPBACK, '127.0.0.1', { forwarded: 'for="[::FFFF:cb00:7107]:80"' }, 'forwarded')).toBe(
      '203.0.113.7',
    )
    expect(resolve(PRIVATE, '10.0.0.2', { 'x-forwarded-for': '203.0.113.7, ::ffff:10.1.1.1' })).toBe(
      '203.0.113.7',
    )
  })

  it('writes one spelling per address', () => {
    expect(normaliseAddress('203.0.113.7')).toBe('203.0.113.7')
    expect(normaliseAddress('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(normaliseAddress('0:0:0:0:0:FFFF:203.0.113.7')).toBe('203.0.113.7')
    expect(normaliseAddress('::ffff:cb00:7107')).toBe('203.0.113.7')
    expect(normaliseAddress('::ffff:0:203.0.113.7')).toBe('::ffff:0:203.0.113.7') // IPv4-translated, not mapped
    expect(normaliseAddress('::1:ffff:203.0.113.7')).toBe('::1:ffff:203.0.113.7')
    expect(normaliseAddress('2001:DB8::1')).toBe('2001:db8::1')
    expect(normaliseAddress('_Hidden')).toBe('_Hidden')
  })
})

describe('client address: whatever a caller prepends (property)', () => {
  const trusted = compileProxyTrust(PRIVATE)
  const proxy = fc.oneof(
    fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`),
    fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `192.168.${a}.${b}`),
  )
  const client = fc
    .oneof(fc.ipV4(), fc.ipV6())
    .filter((address) => isIP(address) !== 0 && !trusted.trusts(normaliseAddress(address), 1))
  /** What a caller may write into the header itself: addresses (trusted ones too), junk, quotes, commas. */
  const prefix = fc.oneof(
    fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), proxy, fc.constantFrom('unknown', '_x', '')), { maxLength: 5 }),
    fc.array(fc.string({ unit: 'binary-ascii' }), { maxLength: 3 }),
  )

  /** X-Forwarded-For and Forwarded as a chain of proxies would leave them after the caller's own text. */
  const headersFor = (written: string[], hops: string[], header: TrustProxyHeader): IncomingHttpHeaders => {
    const node = (address: string) => (address.includes(':') ? `for="[${address}]"` : `for=${address}`)
    const appended = header === 'forwarded' ? hops.map(node) : hops
    return { [header]: [...written, ...appended].join(', ') }
  }

  it('resolves the right-most untrusted address, and prepending anything never changes it', () => {
    fc.assert(
      fc.property(
        client,
        fc.array(proxy, { minLength: 1, maxLength: 6 }),
        prefix,
        fc.constantFrom<TrustProxyHeader>('x-forwarded-for', 'forwarded'),
        (address, proxies, written, header) => {
          const [peer, ...nearer] = [...proxies].reverse()
          const hops = [address, ...nearer.reverse()]
          const byCidr = compileProxyTrust(PRIVATE, header)
          const byCount = compileProxyTrust(proxies.length, header)
          const expected = normaliseAddress(address)
          for (const trust of [byCidr, byCount]) {
            expect(clientAddress(peer, headersFor([], hops, header), trust)).toBe(expected)
            expect(clientAddress(peer, headersFor(written, hops, header), trust)).toBe(expected)
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
