import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.ts'

describe('TRUST_PROXY', () => {
  const trust = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).TRUST_PROXY

  it('is false by default, unset or empty: the TCP peer is the client', () => {
    expect(trust(undefined)).toBe(false)
    expect(trust('')).toBe(false)
    expect(trust('false')).toBe(false)
    expect(trust('FALSE')).toBe(false)
  })

  it('takes a hop count', () => {
    expect(trust('0')).toBe(0)
    expect(trust('1')).toBe(1)
    expect(trust(' 3 ')).toBe(3)
  })

  it('takes addresses, CIDRs (IPv4 and IPv6) and the named ranges, separated by commas', () => {
    expect(trust('127.0.0.1/8,10.0.0.0/8')).toEqual(['127.0.0.1/8', '10.0.0.0/8'])
    expect(trust(' 192.0.2.10 , 2001:DB8::/32,::1 ')).toEqual(['192.0.2.10', '2001:db8::/32', '::1'])
    expect(trust('10.0.0.0/255.0.0.0')).toEqual(['10.0.0.0/255.0.0.0'])
    expect(trust('loopback,uniquelocal')).toEqual(['loopback', 'uniquelocal'])
  })

  it.each([
    ['true', /"true" would believe every hop/],
    ['yes', /"yes" is not an IP address or CIDR/],
    ['-1', /"-1" is not an IP address or CIDR/],
    ['1.5', /"1.5" is not an IP address or CIDR/],
    ['10.0.0.0/33', /invalid range on address: 10\.0\.0\.0\/33/],
    ['0.0.0.0/0', /invalid range/],
    ['::/0', /invalid range/],
    ['10.0.0.0/', /invalid range/],
    ['10.0.0.1,,10.0.0.2', /"" is not an IP address or CIDR/],
    ['10.0.0.1,', /"" is not an IP address or CIDR/],
    ['2130706433x', /not an IP address/],
    ['127.1', /"127.1" is not an IP address or CIDR/],
    ['99999999999999999999', /too many/],
  ])('refuses %s, naming the variable', (value, message) => {
    expect(() => trust(value)).toThrow(/^Invalid configuration: TRUST_PROXY: /)
    expect(() => trust(value)).toThrow(message)
  })

  it('reads the X-Forwarded-For header by default, or Forwarded, and nothing else', () => {
    expect(loadConfig({}).TRUST_PROXY_HEADER).toBe('x-forwarded-for')
    expect(loadConfig({ TRUST_PROXY_HEADER: 'forwarded' }).TRUST_PROXY_HEADER).toBe('forwarded')
    expect(loadConfig({ TRUST_PROXY_HEADER: 'X-Forwarded-For' }).TRUST_PROXY_HEADER).toBe('x-forwarded-for')
    expect(() => loadConfig({ TRUST_PROXY_HEADER: 'x-real-ip' })).toThrow(/TRUST_PROXY_HEADER/)
  })
})

describe('KEY_CACHE_MS', () => {
  it('is 2000 by default and takes 0 to 60000 ms', () => {
    expect(loadConfig({}).KEY_CACHE_MS).toBe(2000)
    expect(loadConfig({ KEY_CACHE_MS: '0' }).KEY_CACHE_MS).toBe(0)
    expect(loadConfig({ KEY_CACHE_MS: '60000' }).KEY_CACHE_MS).toBe(60_000)
  })

  it.each(['-1', '60001', '1.5', 'soon'])('refuses %s, naming the variable', (value) => {
    expect(() => loadConfig({ KEY_CACHE_MS: value })).toThrow(/KEY_CACHE_MS/)
  })
})
