import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type { GraphiQLOptions } from 'graphql-yoga'
import { LruCache } from '../domain/lru-cache.ts'

const RENDERER = '@graphql-yoga/render-graphiql'

type Renderer = (options?: GraphiQLOptions) => string

/**
 * Loads the renderer, renders, and unloads it again: the module holds its 9 MB bundle as a string for as
 * long as it stays loaded, and the rendered page is all that is needed afterwards. (A require of its own
 * each time, so no parent module keeps a reference to it either.)
 */
function renderWithBundleReleased(options?: GraphiQLOptions): Buffer {
  const load = createRequire(import.meta.url)
  const directory = dirname(load.resolve(RENDERER))
  try {
    return Buffer.from((load(RENDERER) as { renderGraphiQL: Renderer }).renderGraphiQL(options))
  } finally {
    for (const file of Object.keys(load.cache)) if (file.startsWith(directory)) delete load.cache[file]
  }
}

/**
 * The GraphiQL page. Its self-contained bundle (~9 MB) is loaded at the first page view, not at start-up,
 * and the page is rendered once per options (they come from the server's settings) and kept as bytes;
 * the bundle itself is let go.
 * Rendered per view, each view copied the 9 MB bundle twice into new strings and encoded it again:
 * ~30 MB of garbage a view, which under the mixed soak pushed the server's RSS past 256 MB on its own.
 */
const graphiqlPages = new LruCache<string, Buffer>(4)
export function renderGraphiQLOnce(options?: GraphiQLOptions): string {
  const key = JSON.stringify(options ?? {})
  let page = graphiqlPages.get(key)
  if (!page) {
    page = renderWithBundleReleased(options)
    graphiqlPages.set(key, page)
  }
  // Yoga makes the renderer's result the Response body; bytes are written to the socket as they are.
  return page as unknown as string
}
