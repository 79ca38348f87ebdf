/**
 * `node scripts/ensure-deps.mjs DIR`: installs the dependencies of the package in DIR (`npm ci --prefix
 * DIR`) when its node_modules is missing or differs from its package-lock.json, and does nothing
 * otherwise. The root scripts that use the benchmarks (`bench/`) or the TypeScript client
 * (`clients/typescript/`) run it first. npm's output goes to stderr, so a command's stdout stays its own.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const dir = process.argv[2]
if (!dir) {
  process.stderr.write('usage: node scripts/ensure-deps.mjs DIR\n')
  process.exit(2)
}
const packageDir = resolve(dir)

/** The `packages` of a lockfile, or null when it cannot be read. */
function lockedPackages(file) {
  try {
    return JSON.parse(readFileSync(join(packageDir, file), 'utf8')).packages ?? {}
  } catch {
    return null
  }
}

const wanted = lockedPackages('package-lock.json') ?? {}
// npm writes node_modules/.package-lock.json at every install: what is in node_modules now.
const installed = lockedPackages('node_modules/.package-lock.json')
const current =
  installed !== null &&
  Object.entries(wanted).every(
    ([path, entry]) =>
      path === '' ||
      installed[path]?.version === entry.version ||
      (entry.optional === true && installed[path] === undefined),
  )

if (!current) {
  const shown = relative(process.cwd(), packageDir) || '.'
  process.stderr.write(`installing the dependencies of ${shown} (npm ci --prefix ${shown}) …\n`)
  execFileSync('npm', ['ci', '--prefix', packageDir, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: ['ignore', 2, 2],
  })
}
