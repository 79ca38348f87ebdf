import { existsSync, unlinkSync } from 'node:fs'
import { getHeapSpaceStatistics } from 'node:v8'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { collectGarbage } from '../../test/support/garbage.ts'
import { renderedPage, renderGraphiQLOnce } from './graphiql-page.ts'

const text = async (page: Promise<ReadableStream<Uint8Array>>) => new Response(await page).text()
const fileOf = async (options: { title: string }) => {
  const page = await renderedPage(options)
  if (!('file' in page)) throw new Error('the page was not written to a file')
  return page.file
}

describe('the GraphiQL page', () => {
  it('is rendered once per options, in a file, and every view streams that page', async () => {
    const options = { title: 'Survival Prediction API', defaultQuery: '{ health { status } }' }
    const [first, again] = await Promise.all([
      text(renderGraphiQLOnce(options)),
      text(renderGraphiQLOnce({ ...options })),
    ])
    expect(again).toBe(first)
    expect(first.length).toBeGreaterThan(1_000_000)
    expect(first).toMatch(/<title>Survival Prediction API<\/title>/)
    expect(first).toContain(JSON.stringify(options.defaultQuery))
    expect(renderedPage({ ...options })).toBe(renderedPage(options))
    expect(await text(renderGraphiQLOnce(options))).toBe(first)
  })

  it("is rendered off the server's heap, and neither the 9 MB bundle nor the page stays in its memory", async () => {
    // What a page or a bundle held here would be: array buffers (bytes) and V8's large-object space (a
    // string of megabytes). The rest of the heap moves by tens of MB with compiled code and is not read.
    const reading = () => {
      const largeObjects = getHeapSpaceStatistics().find((space) => space.space_name === 'large_object_space')
      return process.memoryUsage().arrayBuffers + (largeObjects?.space_used_size ?? 0)
    }
    // Streams and workers finish closing, and the collector frees the buffers it swept, on later turns of
    // the event loop: what stays is the least of a few readings, each after a turn and a collection.
    const held = async () => {
      let least = Number.POSITIVE_INFINITY
      for (let turn = 0; turn < 4; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        collectGarbage()
        least = Math.min(least, reading())
      }
      return least
    }
    await text(renderGraphiQLOnce({ title: 'warming up' }))
    const before = await held()
    for (let view = 0; view < 3; view++)
      expect(await text(renderGraphiQLOnce({ title: 'memory' }))).toContain('memory')
    // Held as bytes, the page alone kept 9 MB here; rendered here, the bundle stayed loaded too.
    const grew = (await held()) - before
    expect(grew).toBeLessThan(3 * 1024 * 1024)
  })

  it('renders other options as a page of their own', async () => {
    const one = await text(renderGraphiQLOnce({ title: 'one' }))
    const two = await text(renderGraphiQLOnce({ title: 'two' }))
    expect(two).not.toBe(one)
    expect(two).toMatch(/<title>two<\/title>/)
  })

  it('keeps at most a few pages, whatever options it is given, and removes the files it lets go', async () => {
    const first = await fileOf({ title: 'kept 0' })
    for (let n = 1; n <= 4; n++) await fileOf({ title: `kept ${n}` })
    await vi.waitFor(() => expect(existsSync(first)).toBe(false))
    // Asked again, it is rendered anew.
    const again = await fileOf({ title: 'kept 0' })
    expect(again).not.toBe(first)
    expect(await text(renderGraphiQLOnce({ title: 'kept 0' }))).toMatch(/<title>kept 0<\/title>/)
  })

  it('renders a page again when its file has gone (a cleaner of the temporary directory)', async () => {
    const options = { title: 'cleaned' }
    const file = await fileOf(options)
    unlinkSync(file)
    expect(await text(renderGraphiQLOnce(options))).toMatch(/<title>cleaned<\/title>/)
    expect(await fileOf(options)).not.toBe(file)
  })
})

describe('the GraphiQL page without a writable temporary directory', () => {
  const tmpdir = process.env.TMPDIR
  afterEach(() => {
    if (tmpdir === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = tmpdir
  })

  it('is held as bytes instead, and served the same', async () => {
    vi.resetModules()
    process.env.TMPDIR = '/nonexistent/survival-test'
    const fresh = await import('./graphiql-page.ts')
    const page = await fresh.renderedPage({ title: 'read-only' })
    expect('bytes' in page).toBe(true)
    expect(await text(fresh.renderGraphiQLOnce({ title: 'read-only' }))).toMatch(/<title>read-only<\/title>/)
  })
})
