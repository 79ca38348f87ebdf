import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** The page's HTTP side: what a browser, a proxy and a curious client get. */
describe('serving the explorer page', () => {
  let database: TestDatabase
  let server: TestServer
  let off: TestServer

  beforeAll(async () => {
    database = await createSeededDatabase()
    server = await startTestServer({ database })
    off = await startTestServer({ database, explorer: false })
  })

  afterAll(async () => {
    await server?.close()
    await off?.close()
    await database?.drop()
  })

  async function page(path = '/') {
    const response = await fetch(`${server.url}${path}`)
    return { response, html: await response.text() }
  }

  function assetPaths(html: string): string[] {
    return [...html.matchAll(/(?:src|href)="(\/explorer\/assets\/[^"]+)"/g)].map(
      (match) => match[1] as string,
    )
  }

  it('answers / and /explorer with the same page, never cached, under a strict CSP', async () => {
    const root = await page('/')
    const explorer = await page('/explorer')
    for (const { response } of [root, explorer]) {
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(response.headers.get('cache-control')).toBe('no-cache')
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
      expect(response.headers.get('request-id')).toBeTruthy()
      const csp = response.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("connect-src 'self'")
    }
    expect(explorer.html).toBe(root.html)
    expect(assetPaths(root.html)).toHaveLength(2)
  })

  it('links only its own bundle: no script, style or font from another host', async () => {
    const { html } = await page()
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//)
    for (const path of assetPaths(html)) {
      const asset = await fetch(`${server.url}${path}`)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      const text = await asset.text()
      expect(text.length).toBeGreaterThan(1000)
      // Source maps or imports that would reach for a CDN.
      expect(text).not.toMatch(/(?:import|from)\s*["']https?:/)
      expect(text).not.toMatch(/url\(["']?https?:/)
    }
  })

  it('puts the species list in the page and, without demo mode, no key', async () => {
    const { html } = await page()
    const data = JSON.parse(
      /<script type="application\/json" id="explorer-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}',
    )
    expect(data.species).toHaveLength(20)
    expect(data.species[0]).toEqual({
      code: expect.stringMatching(/^[A-Z]{4}$/),
      commonName: expect.any(String),
    })
    expect(data.demoKey).toBeNull()
    expect(data.searchRadiusKm).toBe(10)
  })

  it('compresses for clients that accept it and answers 304 to a matching ETag', async () => {
    const { html } = await page()
    const script = assetPaths(html).find((path) => path.endsWith('.js')) as string
    const plain = await fetch(`${server.url}${script}`, { headers: { 'accept-encoding': 'identity' } })
    const body = Buffer.from(await plain.arrayBuffer())
    expect(plain.headers.get('content-encoding')).toBeNull()

    const { request } = await import('node:http')
    const gzipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      request(`${server.url}${script}`, { headers: { 'accept-encoding': 'gzip;q=1, br;q=0' } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }),
        )
      })
        .on('error', reject)
        .end()
    })
    expect(gzipped.encoding).toBe('gzip')
    expect(gunzipSync(gzipped.body).equals(body)).toBe(true)
    expect(gzipped.body.length).toBeLessThan(body.length / 2)

    const etag = plain.headers.get('etag') as string
    const again = await fetch(`${server.url}${script}`, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  it('answers HEAD without a body, other methods with 405 and unknown assets with 404, in the error envelope', async () => {
    const head = await fetch(`${server.url}/`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')

    const post = await fetch(`${server.url}/explorer`, { method: 'POST', body: '{}' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed')

    const missing = await fetch(`${server.url}/explorer/assets/main-NOPE.js`)
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found')
  })

  it('is switched off with EXPLORER=false: / is a 404 like any unknown path, the API unchanged', async () => {
    const root = await fetch(`${off.url}/`)
    expect(root.status).toBe(404)
    expect(((await root.json()) as { error: { code: string } }).error.code).toBe('not_found')
    expect((await fetch(`${off.url}/explorer/assets/x.js`)).status).toBe(404)
    expect((await fetch(`${off.url}/v1/health`)).status).toBe(200)
  })

  it('prefills the demo key in embedded demo mode only', async () => {
    const demoKey = (await issueKey(database, 'mycel')).key
    const demo = await startTestServer({ database, demoKey })
    try {
      const html = await (await fetch(`${demo.url}/`)).text()
      expect(html).toContain(`"demoKey":"${demoKey}"`)
    } finally {
      await demo.close()
    }
  })
})
