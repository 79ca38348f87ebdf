import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, extname, join, relative, resolve } from 'node:path'
import GithubSlugger from 'github-slugger'
import { describe, expect, it } from 'vitest'

/**
 * The README is the front page and docs/ the reference: this pins them to the repository. Every relative
 * link must reach a file, every #anchor a heading (GitHub's slugs, via github-slugger), every `npm run X`
 * a script of package.json, and every script must be findable from the README, on the page itself or on
 * a docs page it links to. External links are not fetched.
 */

const ROOT = resolve(import.meta.dirname, '../..')
const README = join(ROOT, 'README.md')
const DOCS = join(ROOT, 'docs')

/** npm's own lifecycle scripts: run by npm itself, so mentioned by name rather than as `npm run X`. */
const LIFECYCLE = new Set(['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'])
/** Scripts npm runs as `npm <name>` without `run`. */
const SHORTHAND = ['start', 'test', 'stop', 'restart']

interface Line {
  file: string
  number: number
  /** The line as written (code included). */
  text: string
  /** The line outside fenced code blocks and inline code spans, where a link is a link; '' inside a fence. */
  prose: string
}

interface Link {
  at: string
  target: string
}

function pages(): string[] {
  const docs = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name))
  return [README, ...docs.sort()]
}

function linesOf(file: string): Line[] {
  let fence: string | null = null
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((text, index) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1]
      let inFence = fence !== null
      if (marker && fence === null) {
        fence = marker
        inFence = true
      } else if (marker && fence !== null && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = null
        inFence = true
      }
      const prose = inFence ? '' : text.replace(/(`+)[^`]*?\1/g, '')
      return { file, number: index + 1, text, prose }
    })
}

function where(line: Line): string {
  return `${relative(ROOT, line.file)}:${line.number}`
}

/** The text GitHub renders for a heading: inline code, links and emphasis reduced to their words. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(`+)(.*?)\1/g, '$2')
    .replace(/(\*\*|__|\*)(.+?)\1/g, '$2')
    .trim()
}

const anchorCache = new Map<string, Set<string>>()

/** The anchors GitHub gives a markdown file: one per heading (duplicates numbered), plus explicit ids. */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file)
  if (cached) return cached
  const slugger = new GithubSlugger()
  const anchors = new Set<string>()
  for (const line of linesOf(file)) {
    if (line.prose === '') continue
    const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(line.text)
    if (heading) anchors.add(slugger.slug(headingText(heading[1] as string)))
    for (const id of line.text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1] as string)
  }
  anchorCache.set(file, anchors)
  return anchors
}

function linksOf(file: string): Link[] {
  const links: Link[] = []
  for (const line of linesOf(file)) {
    for (const m of line.prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ at: where(line), target: m[1] as string })
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line.prose)
    if (definition) links.push({ at: where(line), target: definition[1] as string })
  }
  return links
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')
}

/** The file a relative link points at, and its anchor ('' when none). */
function resolveLink(from: string, target: string): { path: string; anchor: string } {
  const hash = target.indexOf('#')
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? '' : decodeURIComponent(target.slice(hash + 1))
  if (pathPart === '') return { path: from, anchor }
  const path = pathPart.startsWith('/') ? join(ROOT, pathPart) : resolve(dirname(from), pathPart)
  return { path, anchor }
}

function brokenLinks(files: string[]): string[] {
  const problems: string[] = []
  for (const file of files)
    for (const { at, target } of linksOf(file)) {
      if (isExternal(target)) continue
      const { path } = resolveLink(file, target)
      if (!existsSync(path)) problems.push(`${at}: ${target} → no file ${relative(ROOT, path)}`)
    }
  return problems
}

function brokenAnchors(files: string[]): string[] {
  const problems: string[] = []
  for (const file of files)
    for (const { at, target } of linksOf(file)) {
      if (isExternal(target)) continue
      const { path, anchor } = resolveLink(file, target)
      // Anchors into other kinds of file (a line of source: #L10) are GitHub's own; not checked here.
      if (anchor === '' || extname(path) !== '.md' || !existsSync(path)) continue
      if (!anchorsOf(path).has(anchor))
        problems.push(`${at}: ${target} → no heading "#${anchor}" in ${relative(ROOT, path)}`)
    }
  return problems
}

/** The scripts a text runs: `npm run [flags] X`, and `npm start`/`npm test`…, with where they are. */
function scriptsRun(file: string): { at: string; name: string }[] {
  const found: { at: string; name: string }[] = []
  for (const line of linesOf(file)) {
    for (const m of line.text.matchAll(/\bnpm\s+run(?:-script)?(?:\s+-{1,2}[a-z-]+)*\s+([A-Za-z0-9:_-]+)/g))
      found.push({ at: where(line), name: m[1] as string })
    for (const m of line.text.matchAll(new RegExp(`\\bnpm\\s+(${SHORTHAND.join('|')})\\b`, 'g')))
      found.push({ at: where(line), name: m[1] as string })
  }
  return found
}

function packageScripts(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>
  }
  return Object.keys(pkg.scripts ?? {})
}

/** README.md and the docs pages it links to directly. */
function frontPageAndItsDocs(): string[] {
  const linked = linksOf(README)
    .filter(({ target }) => !isExternal(target))
    .map(({ target }) => resolveLink(README, target).path)
    .filter((path) => dirname(path) === DOCS && path.endsWith('.md') && existsSync(path))
  return [README, ...new Set(linked)]
}

function unmentionedScripts(): string[] {
  const files = frontPageAndItsDocs()
  const run = new Set(files.flatMap((file) => scriptsRun(file).map((s) => s.name)))
  const text = files.map((file) => readFileSync(file, 'utf8')).join('\n')
  return packageScripts().filter(
    (name) => !run.has(name) && !(LIFECYCLE.has(name) && text.includes(`\`${name}\``)),
  )
}

describe('README and docs/', () => {
  it('link only to files that exist', () => {
    expect(brokenLinks(pages())).toEqual([])
  })

  it('link only to anchors that match a heading of their target', () => {
    expect(brokenAnchors(pages())).toEqual([])
  })

  it('run only scripts that package.json has', () => {
    const scripts = new Set(packageScripts())
    const unknown = pages()
      .flatMap(scriptsRun)
      .filter(({ name }) => !scripts.has(name))
      .map(({ at, name }) => `${at}: npm run ${name}`)
    expect(unknown).toEqual([])
  })

  it('mention every script of package.json on the README or a docs page it links to', () => {
    expect(unmentionedScripts()).toEqual([])
  })

  it('find what they check: the README links to docs pages and carries anchors', () => {
    // Guards the checks themselves: a parser that found nothing would pass everything above.
    expect(frontPageAndItsDocs().length).toBeGreaterThan(5)
    expect(anchorsOf(README).has('what-it-does')).toBe(true)
    expect(linksOf(README).some(({ target }) => target.includes('#'))).toBe(true)
  })
})
