import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { PROJECT_ROOT } from '../project-files.ts'

/** One file of the page's bundle, compressed once, served with a content hash in its name. */
export interface Asset {
  name: string
  contentType: string
  body: Buffer
  gzip: Buffer
  brotli: Buffer
  etag: string
}

export interface ExplorerAssets {
  script: Asset
  style: Asset
  byName: ReadonlyMap<string, Asset>
}

/** Where `npm run build` writes the bundle: dist/explorer, beside the compiled dist/src. */
export const BUILT_ASSETS_DIR = join(PROJECT_ROOT, 'dist', 'explorer')
const MANIFEST = 'manifest.json'
const PAGE_DIR = join(PROJECT_ROOT, 'src', 'explorer', 'page')
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
}

export function asset(name: string, body: Buffer): Asset {
  return {
    name,
    contentType: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
    body,
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  }
}

function assemble(files: readonly { name: string; body: Buffer }[]): ExplorerAssets {
  const all = files.map((file) => asset(file.name, file.body))
  const script = all.find((a) => a.name.endsWith('.js'))
  const style = all.find((a) => a.name.endsWith('.css'))
  if (!script || !style) throw new Error('the explorer bundle needs one script and one stylesheet')
  return { script, style, byName: new Map(all.map((a) => [a.name, a])) }
}

/**
 * Bundles the page (src/explorer/page) and everything it imports from node_modules — Leaflet,
 * Observable Plot, the us-atlas outlines — into one script and one stylesheet: no CDN, no network.
 * esbuild is a build tool (devDependency), so it is imported only here.
 */
export async function bundleExplorer(): Promise<{ name: string; body: Buffer }[]> {
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: [join(PAGE_DIR, 'main.ts'), join(PAGE_DIR, 'explorer.css')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome109', 'firefox115', 'safari15.6'],
    loader: { '.png': 'dataurl', '.svg': 'dataurl' },
    entryNames: '[name]-[hash]',
    outdir: 'out',
    write: false,
    legalComments: 'eof',
    logLevel: 'silent',
    tsconfig: join(PAGE_DIR, 'tsconfig.json'),
  })
  return result.outputFiles.map((file) => ({ name: basename(file.path), body: Buffer.from(file.contents) }))
}

export async function writeExplorerAssets(dir = BUILT_ASSETS_DIR): Promise<string[]> {
  const files = await bundleExplorer()
  await mkdir(dir, { recursive: true })
  await Promise.all(files.map((file) => writeFile(join(dir, file.name), file.body)))
  await writeFile(join(dir, MANIFEST), `${JSON.stringify(files.map((file) => file.name))}\n`)
  return files.map((file) => file.name)
}

async function readBuiltAssets(dir: string): Promise<ExplorerAssets> {
  const names = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as string[]
  return assemble(
    await Promise.all(names.map(async (name) => ({ name, body: await readFile(join(dir, name)) }))),
  )
}

/** True when this module runs compiled (dist/src/explorer/assets.js), not from source under tsx. */
const RUNNING_COMPILED = import.meta.url.endsWith('.js')
/** The compiled server's own bundle folder: <outDir>/explorer beside <outDir>/src. */
const COMPILED_ASSETS_DIR = fileURLToPath(new URL('../../explorer/', import.meta.url))

/**
 * The compiled server serves the bundle `npm run build` wrote beside it; from source (npm start,
 * tests) the page is bundled in memory, so it is never stale. Either way once per process, at first use.
 */
export function explorerAssetSource(): () => Promise<ExplorerAssets> {
  let loading: Promise<ExplorerAssets> | undefined
  return () => {
    loading ??= (
      RUNNING_COMPILED && existsSync(join(COMPILED_ASSETS_DIR, MANIFEST))
        ? readBuiltAssets(COMPILED_ASSETS_DIR)
        : bundleExplorer().then(assemble)
    ).catch((error: unknown) => {
      loading = undefined
      throw error
    })
    return loading
  }
}
