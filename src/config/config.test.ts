import { describe, expect, it } from 'vitest'
import { loadConfig, serverConfig } from './config.ts'

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

describe('SITE_CACHE_SITES', () => {
  it('is 100000 by default (a data set of 100,000 sites fits) and takes 0, the cache off, up to 10 million', () => {
    expect(loadConfig({}).SITE_CACHE_SITES).toBe(100_000)
    expect(loadConfig({ SITE_CACHE_SITES: '0' }).SITE_CACHE_SITES).toBe(0)
    expect(loadConfig({ SITE_CACHE_SITES: '10000000' }).SITE_CACHE_SITES).toBe(10_000_000)
  })

  it.each(['-1', '10000001', '2.5', 'all'])('refuses %s, naming the variable', (value) => {
    expect(() => loadConfig({ SITE_CACHE_SITES: value })).toThrow(/SITE_CACHE_SITES/)
  })
})

describe('SITE_INDEX', () => {
  it('is memory by default, and takes off', () => {
    expect(loadConfig({}).SITE_INDEX).toBe('memory')
    expect(loadConfig({ SITE_INDEX: 'off' }).SITE_INDEX).toBe('off')
  })

  it.each(['on', 'database', 'MEMORY'])('refuses %j, naming the variable', (value) => {
    expect(() => loadConfig({ SITE_INDEX: value })).toThrow(/SITE_INDEX/)
  })
})

describe('DATABASE_REPLICA_URLS, REPLICA_MAX_LAG_MS, REPLICA_CHECK_MS', () => {
  const DATABASE_URL = 'postgres://survival@primary.internal:5432/survival'

  it('no replicas by default; a 5000 ms lag limit, checked every 1000 ms', () => {
    const config = loadConfig({ DATABASE_URL })
    expect(config.DATABASE_REPLICA_URLS).toEqual([])
    expect(config.REPLICA_MAX_LAG_MS).toBe(5000)
    expect(config.REPLICA_CHECK_MS).toBe(1000)
    expect(loadConfig({ DATABASE_URL, DATABASE_REPLICA_URLS: ' , ' }).DATABASE_REPLICA_URLS).toEqual([])
  })

  it('takes postgres:// and postgresql:// URLs separated by commas', () => {
    const urls = ' postgres://reader:pw@replica-1:5432/survival ,postgresql://replica-2/survival,'
    expect(loadConfig({ DATABASE_URL, DATABASE_REPLICA_URLS: urls }).DATABASE_REPLICA_URLS).toEqual([
      'postgres://reader:pw@replica-1:5432/survival',
      'postgresql://replica-2/survival',
    ])
  })

  it.each([
    'mysql://reader:hunter22@replica-1/survival',
    'http://replica-1/survival',
    'replica-1:5432',
    'postgres:/replica-1/survival',
    'postgres://reader:hunter22@replica-1:99999/survival',
    'postgres://replica-1/survival,redis://replica-2',
  ])('refuses %s, naming the variable and not echoing the URL', (value) => {
    expect(() => loadConfig({ DATABASE_URL, DATABASE_REPLICA_URLS: value })).toThrow(
      /^Invalid configuration: DATABASE_REPLICA_URLS: /,
    )
    expect(() => loadConfig({ DATABASE_URL, DATABASE_REPLICA_URLS: value })).not.toThrow(/hunter22/)
  })

  it('refuses replicas without DATABASE_URL: the embedded store has no replicas', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://replica-1/survival' })).toThrow(
      /DATABASE_REPLICA_URLS: replicas need DATABASE_URL/,
    )
  })

  it('bounds the lag limit (0 to an hour) and the check interval (100 ms to a minute)', () => {
    expect(loadConfig({ REPLICA_MAX_LAG_MS: '0' }).REPLICA_MAX_LAG_MS).toBe(0)
    expect(loadConfig({ REPLICA_CHECK_MS: '100' }).REPLICA_CHECK_MS).toBe(100)
    for (const value of ['-1', '3600001', '1.5', 'soon'])
      expect(() => loadConfig({ REPLICA_MAX_LAG_MS: value })).toThrow(/REPLICA_MAX_LAG_MS/)
    for (const value of ['99', '60001', 'often'])
      expect(() => loadConfig({ REPLICA_CHECK_MS: value })).toThrow(/REPLICA_CHECK_MS/)
  })
})

describe('ADDRESS_HASH_KEY', () => {
  const DATABASE_URL = 'postgres://survival@primary.internal:5432/survival'
  const KEY = 'f'.repeat(64)
  const serving = (env: Record<string, string>) => serverConfig(loadConfig(env))

  it('is required to serve with DATABASE_URL, with a message saying how to make one', () => {
    expect(() => serving({ DATABASE_URL })).toThrow(
      /^Invalid configuration: ADDRESS_HASH_KEY: required with DATABASE_URL.*openssl rand -hex 32/,
    )
    expect(() => serving({ DATABASE_URL, ADDRESS_HASH_KEY: '' })).toThrow(/ADDRESS_HASH_KEY: required/)
    expect(serving({ DATABASE_URL, ADDRESS_HASH_KEY: KEY }).ADDRESS_HASH_KEY).toBe(KEY)
  })

  it.each([
    ['one character short', 'a'.repeat(31)],
    ['a word', 'secret'],
    ['blank-padded', ' '.repeat(31)],
  ])('refuses a key that is %s, without echoing it', (_label, value) => {
    for (const env of [{ ADDRESS_HASH_KEY: value }, { DATABASE_URL, ADDRESS_HASH_KEY: value }]) {
      let message = ''
      try {
        loadConfig(env)
      } catch (error) {
        message = (error as Error).message
      }
      expect(message).toMatch(/^Invalid configuration: ADDRESS_HASH_KEY: must be at least 32 characters/)
      expect(message).toMatch(/openssl rand -hex 32/)
      if (value.trim()) expect(message).not.toContain(value)
    }
    expect(loadConfig({ ADDRESS_HASH_KEY: 'a'.repeat(32) }).ADDRESS_HASH_KEY).toBe('a'.repeat(32))
  })

  it('without DATABASE_URL (the embedded store) is made at random, one per process', () => {
    const first = serving({}).ADDRESS_HASH_KEY
    const second = serving({}).ADDRESS_HASH_KEY
    expect(first).toMatch(/^[0-9a-f]{64}$/)
    expect(second).not.toBe(first)
    expect(serving({ ADDRESS_HASH_KEY: KEY }).ADDRESS_HASH_KEY).toBe(KEY)
  })

  it('is not needed by the tools that only reach the database (migrate, seed, keys)', () => {
    expect(loadConfig({ DATABASE_URL }).ADDRESS_HASH_KEY).toBeUndefined()
  })
})

describe('METRICS_TOKEN and METRICS_PORT', () => {
  const DATABASE_URL = 'postgres://survival@primary.internal:5432/survival'
  const METRICS_TOKEN = 'a-metrics-token-of-24-ch'
  const server = (env: Record<string, string>) => loadConfig(env, { server: true })

  it('a server with DATABASE_URL will not start with /metrics open, and the message names both ways', () => {
    let message = ''
    try {
      server({ DATABASE_URL })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^Invalid configuration: METRICS_TOKEN or METRICS_PORT: with DATABASE_URL/)
    expect(message).toMatch(
      /set METRICS_TOKEN \(at least 16 characters.*\), or METRICS_PORT \(then \/metrics is served only on 127\.0\.0\.1:METRICS_PORT, and not on PORT\)/,
    )
    expect(() => server({ DATABASE_URL, METRICS_TOKEN: '' })).toThrow(/METRICS_TOKEN or METRICS_PORT/)
    expect(server({ DATABASE_URL, METRICS_TOKEN }).METRICS_TOKEN).toBe(METRICS_TOKEN)
    expect(server({ DATABASE_URL, METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464)
    expect(server({ DATABASE_URL, METRICS_TOKEN, METRICS_PORT: '9464' })).toMatchObject({
      METRICS_TOKEN,
      METRICS_PORT: 9464,
    })
  })

  it('without DATABASE_URL (the embedded development store) /metrics may stay open, as before', () => {
    const config = server({})
    expect(config.METRICS_TOKEN).toBeUndefined()
    expect(config.METRICS_PORT).toBeUndefined()
  })

  it('is not asked of the tools and job workers, which serve no /metrics (migrate, seed, keys, worker)', () => {
    expect(loadConfig({ DATABASE_URL }).METRICS_TOKEN).toBeUndefined()
  })

  it('METRICS_PORT takes a port from 1 to 65535', () => {
    expect(server({ METRICS_PORT: '1' }).METRICS_PORT).toBe(1)
    expect(server({ METRICS_PORT: '65535' }).METRICS_PORT).toBe(65_535)
  })

  it.each(['0', '65536', '-1', '94.64', 'metrics', '9464x'])(
    'METRICS_PORT refuses %s, naming the variable',
    (value) => {
      expect(() => server({ DATABASE_URL, METRICS_PORT: value })).toThrow(
        /^Invalid configuration: METRICS_PORT: /,
      )
      expect(() => loadConfig({ METRICS_PORT: value })).toThrow(/METRICS_PORT/)
    },
  )

  it('METRICS_PORT must differ from PORT (8080 unless set)', () => {
    expect(() => server({ DATABASE_URL, METRICS_PORT: '8080' })).toThrow(
      /^Invalid configuration: METRICS_PORT: must differ from PORT \(8080\)/,
    )
    expect(() => server({ PORT: '9464', METRICS_PORT: '9464' })).toThrow(
      /METRICS_PORT: must differ from PORT \(9464\)/,
    )
    expect(server({ PORT: '9464', METRICS_PORT: '8080' }).METRICS_PORT).toBe(8080)
  })

  it('METRICS_TOKEN is at least 16 characters', () => {
    expect(() => server({ DATABASE_URL, METRICS_TOKEN: 'x'.repeat(15) })).toThrow(/METRICS_TOKEN: /)
    expect(server({ DATABASE_URL, METRICS_TOKEN: 'x'.repeat(16) }).METRICS_TOKEN).toBe('x'.repeat(16))
  })
})

describe('SMTP_URL, MAIL_FROM and PUBLIC_URL', () => {
  const DATABASE_URL = 'postgres://localhost/survival'
  const mail = {
    SMTP_URL: 'smtps://keys%40example.org:secret@mail.example.org:465',
    MAIL_FROM: 'Survival API <keys@example.org>',
    PUBLIC_URL: 'https://api.example.org',
  }

  it('are unset by default: self-service keys then go by the log (embedded) or are off (DATABASE_URL)', () => {
    const config = loadConfig({})
    expect([config.SMTP_URL, config.MAIL_FROM, config.PUBLIC_URL]).toEqual([undefined, undefined, undefined])
  })

  it('take an smtp:// or smtps:// URL, a sender, and the public address', () => {
    expect(loadConfig({ ...mail, DATABASE_URL })).toMatchObject(mail)
    expect(
      loadConfig({ ...mail, SMTP_URL: 'smtp://127.0.0.1:1025', MAIL_FROM: 'keys@example.org' }).SMTP_URL,
    ).toBe('smtp://127.0.0.1:1025')
  })

  it.each([
    ['SMTP_URL', 'https://mail.example.org', /SMTP_URL: must start with smtp:\/\/ or smtps:\/\//],
    ['SMTP_URL', 'mail.example.org:25', /SMTP_URL: must start with smtp/],
    ['SMTP_URL', 'smtp//mail', /SMTP_URL: must be a URL/],
    ['MAIL_FROM', 'keys@example.org\r\nBcc: everyone@example.org', /MAIL_FROM: must be an address/],
    ['MAIL_FROM', 'not an address', /MAIL_FROM: must be an address/],
    ['MAIL_FROM', `${'x'.repeat(200)}@example.org`, /MAIL_FROM: /],
    ['PUBLIC_URL', 'ftp://api.example.org', /PUBLIC_URL: must be an http:\/\/ or https:\/\/ URL/],
    ['PUBLIC_URL', 'https://api.example.org/?next=evil', /PUBLIC_URL: must be an http/],
    ['PUBLIC_URL', 'https://api.example.org/#top', /PUBLIC_URL: must be an http/],
    ['PUBLIC_URL', 'api.example.org', /PUBLIC_URL: must be a URL/],
  ])('refuses %s=%j, naming the variable', (name, value, message) => {
    expect(() => loadConfig({ ...mail, DATABASE_URL, [name]: value })).toThrow(message)
  })

  it('SMTP_URL needs MAIL_FROM, and with DATABASE_URL also PUBLIC_URL (links never come from a Host header)', () => {
    expect(() => loadConfig({ SMTP_URL: mail.SMTP_URL })).toThrow(/MAIL_FROM: required with SMTP_URL/)
    expect(() => loadConfig({ SMTP_URL: mail.SMTP_URL, MAIL_FROM: mail.MAIL_FROM, DATABASE_URL })).toThrow(
      /PUBLIC_URL: required with SMTP_URL and DATABASE_URL/,
    )
    // The embedded store links to http://localhost:PORT when PUBLIC_URL is unset.
    expect(() => loadConfig({ SMTP_URL: mail.SMTP_URL, MAIL_FROM: mail.MAIL_FROM })).not.toThrow()
  })
})
