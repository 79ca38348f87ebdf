import { mkdtempSync, rmSync, unlink } from 'node:fs'
import { open } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { Worker } from 'node:worker_threads'
import type { GraphiQLOptions } from 'graphql-yoga'
import { LruCache } from '../lru-cache.ts'

const RENDERER = '@graphql-yoga/render-graphiql'
/** Pages kept (one per options; the options come from the server's settings, so one in practice). */
const MOST_PAGES = 4

/**
 * Run in a worker thread: loads the renderer's self-contained bundle (~9 MB), renders the page and writes
 * it to `file`. Where the file cannot be written (a read-only file system) the page's bytes come back to
 * the server instead, transferred, not copied.
 */
const RENDER_IN_WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const { writeFileSync } = require('node:fs')
const page = Buffer.from(require(workerData.renderer).renderGraphiQL(workerData.options))
try {
  writeFileSync(workerData.file, page, { mode: 0o600 })
  parentPort.postMessage({ file: workerData.file })
} catch {
  const bytes = page.buffer.slice(page.byteOffset, page.byteOffset + page.length)
  parentPort.postMessage({ bytes }, [bytes])
}
`

/** Where a rendered page is: a file of this process's own, or (no writable file system) its bytes. */
type RenderedPage = { file: string } | { bytes: ArrayBuffer }

/**
 * Renders in a worker: the bundle is parsed, copied twice by the renderer's string replacements and
 * encoded in the worker's heap, which goes when the worker exits, so none of it stays in the server's
 * memory (rendered in the server, the page cost ~30 MB of garbage and the bundle stayed loaded).
 */
function renderInWorker(options: GraphiQLOptions | undefined, file: string): Promise<RenderedPage> {
  const renderer = createRequire(import.meta.url).resolve(RENDERER)
  return new Promise((resolve, reject) => {
    const worker = new Worker(RENDER_IN_WORKER, { eval: true, workerData: { renderer, options, file } })
    let page: RenderedPage | undefined
    worker.once('message', (rendered: RenderedPage) => {
      page = rendered
    })
    worker.once('error', reject)
    // Settled once the worker is gone, and its heap with it.
    worker.once('exit', (code) =>
      page
        ? resolve(page)
        : reject(new Error(`the GraphiQL page's renderer exited (${code}) without a page`)),
    )
  })
}

let pagesDirectory: string | undefined

/** A directory of this process's own for its pages, removed when it exits. */
function pageDirectory(): string {
  if (!pagesDirectory) {
    const directory = mkdtempSync(join(tmpdir(), 'survival-graphiql-'))
    process.once('exit', () => rmSync(directory, { recursive: true, force: true }))
    pagesDirectory = directory
  }
  return pagesDirectory
}

let pagesRendered = 0

/** Removes a page's file, once it has one. */
function removeFile(page: Promise<RenderedPage>): void {
  page.then(
    (rendered) => 'file' in rendered && unlink(rendered.file, () => {}),
    () => {},
  )
}

const pages = new LruCache<string, Promise<RenderedPage>>(MOST_PAGES, (_key, page) => removeFile(page))

const keyOf = (options?: GraphiQLOptions) => JSON.stringify(options ?? {})

/** Lets the page of `key` go, and its file, if it is still `page`. */
function forget(key: string, page: Promise<RenderedPage>): void {
  if (pages.get(key) !== page) return
  pages.delete(key)
  removeFile(page)
}

/** The page for these options, rendered at its first view; the least recently viewed is let go beyond MOST_PAGES. */
export function renderedPage(options?: GraphiQLOptions): Promise<RenderedPage> {
  const key = keyOf(options)
  let page = pages.get(key)
  if (!page) {
    let file: string
    try {
      file = join(pageDirectory(), `page-${++pagesRendered}.html`)
    } catch {
      file = '' // no temporary directory: the worker's write fails and the bytes come back
    }
    const rendering = renderInWorker(options, file)
    // A failed render is not kept: the next view tries again.
    rendering.catch(() => forget(key, rendering))
    pages.set(key, rendering)
    page = rendering
  }
  return page
}

async function pageStream(options: GraphiQLOptions | undefined, rerendered: boolean) {
  const pending = renderedPage(options)
  const page = await pending
  if ('bytes' in page) return new Blob([page.bytes]).stream()
  try {
    const handle = await open(page.file)
    return Readable.toWeb(handle.createReadStream()) as ReadableStream<Uint8Array>
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || rerendered) throw error
    // The file went (let go for newer options, or removed by a cleaner of the temporary directory).
    forget(keyOf(options), pending)
    return pageStream(options, true)
  }
}

/**
 * The GraphiQL page, for yoga's renderGraphiQL: the bundle (~9 MB) is rendered once per options, at the
 * first view and off the server's heap, into a file; every view streams that file. The server holds
 * neither the bundle nor the page (held as bytes, the page alone was 9 MB of the server's memory).
 */
export function renderGraphiQLOnce(options?: GraphiQLOptions): Promise<ReadableStream<Uint8Array>> {
  return pageStream(options, false)
}
