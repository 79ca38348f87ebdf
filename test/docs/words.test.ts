import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Docs and code say what is true now; history lives in git and CHANGELOG.md. This refuses the words of a
 * work log in the front-page Markdown (README, CHANGELOG, CONTRIBUTING), docs/*.md and every src/ module,
 * tests included: numbered sessions or rounds of work, issue numbers, names of files a reader of the
 * repository does not have, and "the spec" or "the floor" (say the API contract, schema/openapi.yaml and
 * docs/api.md; say the reference server in bench/reference/). Generated files are not checked.
 */

const ROOT = resolve(import.meta.dirname, '../..')

const GENERATED = ['src/explorer/page/generated/', 'clients/typescript/src/schema.ts']

interface Rule {
  pattern: RegExp
  /** Why the words are refused, and what to write instead. */
  why: string
}

/** Refused anywhere in a checked file, code spans and comments included. */
const EVERYWHERE: readonly Rule[] = [
  { pattern: /\bsessions? \d/i, why: 'a numbered session of work' },
  { pattern: /\bround \d+ of work/i, why: 'a numbered round of work' },
  { pattern: /\bissue #?\d/i, why: 'an issue number' },
  { pattern: /\bthe floor\b/i, why: '"the floor": the reference server in bench/reference/' },
  { pattern: /\bthe spec\b/i, why: '"the spec": the API contract, schema/openapi.yaml and docs/api.md' },
  { pattern: /\bspec-exact\b/i, why: '"spec-exact": as the API contract says' },
  { pattern: /architecture\.md/, why: 'a file outside the repository' },
  { pattern: /design-card/, why: 'a file outside the repository' },
  { pattern: /\.\.\/shared/, why: 'a folder outside the repository' },
  { pattern: /tried and dropped/i, why: 'a story of what was tried: git keeps it' },
]

/** Refused in Markdown prose only (outside code, and outside link targets, where #12 can be an anchor). */
const PROSE: readonly Rule[] = [{ pattern: /#\d{2,}\b/, why: 'an issue or pull-request number' }]

function markdownFiles(): string[] {
  const front = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md'].map((name) => join(ROOT, name))
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name))
  return [...front.filter((file) => existsSync(file)), ...docs.sort()]
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

function isGenerated(file: string): boolean {
  const path = relative(ROOT, file)
  return GENERATED.some((generated) =>
    generated.endsWith('/') ? path.startsWith(generated) : path === generated,
  )
}

/** Each line's Markdown prose: '' inside fenced code, code spans and link targets removed. */
function proseLines(text: string): string[] {
  let fence: string | null = null
  return text.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker && fence === null) {
      fence = marker
      return ''
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null
      return ''
    }
    return line.replace(/(`+)[^`]*?\1/g, '').replace(/\]\([^)]*\)/g, ']')
  })
}

/** Every refused word of one text, as `file:line: why: the line`. */
function workLogWords(text: string, name: string, markdown: boolean): string[] {
  const lines = text.split('\n')
  const prose = markdown ? proseLines(text) : []
  const hits: string[] = []
  lines.forEach((line, index) => {
    const rules = [
      ...EVERYWHERE.filter(({ pattern }) => pattern.test(line)),
      ...(markdown ? PROSE.filter(({ pattern }) => pattern.test(prose[index] ?? '')) : []),
    ]
    for (const { why } of rules) hits.push(`${name}:${index + 1}: ${why}: ${line.trim().slice(0, 160)}`)
  })
  return hits
}

function checkedFiles(): { file: string; markdown: boolean }[] {
  return [
    ...markdownFiles().map((file) => ({ file, markdown: true })),
    ...sourceFiles(join(ROOT, 'src'))
      .filter((file) => !isGenerated(file))
      .map((file) => ({ file, markdown: false })),
  ]
}

describe('docs and code read as reference, not as a work log', () => {
  it('README, CHANGELOG, CONTRIBUTING, docs/*.md and src/**/*.ts carry no work-log words', () => {
    const hits = checkedFiles().flatMap(({ file, markdown }) =>
      workLogWords(readFileSync(file, 'utf8'), relative(ROOT, file), markdown),
    )
    expect(hits).toEqual([])
  })

  it('finds what it checks: the files, and each kind of word in a sample', () => {
    // Guards the check itself: a matcher or a file walk that found nothing would pass everything above.
    const files = checkedFiles().map(({ file }) => relative(ROOT, file))
    expect(files).toContain('README.md')
    expect(files.filter((file) => file.startsWith('docs/')).length).toBeGreaterThan(5)
    expect(files.filter((file) => file.startsWith('src/')).length).toBeGreaterThan(50)
    expect(files.some((file) => file.includes('/generated/'))).toBe(false)

    const samples = [
      'Figures of session 12, measured again in sessions 9–11.',
      'The second round 3 of work.',
      'Fixed in issue 10.',
      'Against the floor, 0.6× of its CPU.',
      'Exactly as the spec says.',
      'Spec-exact JSON.',
      'See architecture.md → "Layers".',
      'As the design-card puts it.',
      'Run `../shared/bench-floor` first.',
      'Tried and dropped: a second cache.',
    ]
    for (const sample of samples) expect(workLogWords(sample, 'sample.md', true), sample).toHaveLength(1)
    expect(workLogWords('Merged with #25.', 'sample.md', true)).toHaveLength(1)
    expect(workLogWords('const colour = "#25"', 'sample.ts', false)).toEqual([])

    const clean = [
      'The reference server in `bench/reference/` answers the same load.',
      'The API contract: [schema/openapi.yaml](schema/openapi.yaml) and [docs/api.md](docs/api.md).',
      'Kept in sessionStorage; once per session, a floor that varies with latitude.',
      'See [the jobs](docs/performance.md#1000000-rows-end-to-end).',
      '```\ncurl -s localhost:8080/v1/jobs/#12\n```',
    ]
    for (const sample of clean) expect(workLogWords(sample, 'sample.md', true), sample).toEqual([])
  })
})
