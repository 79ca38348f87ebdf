import { readFileSync } from 'node:fs'

/** `npm run start:prod` (what the Docker image runs), taken apart: its environment, node flags and entry. */
export interface ProductionCommand {
  /** Settings written before `node` (e.g. the C library's malloc tuning), as the Dockerfile's ENV sets them. */
  env: Record<string, string>
  nodeArgs: string[]
  entry: string
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/

/** Reads `start:prod` from package.json: `[NAME=value ...] node [flags ...] entry`. */
export function productionCommand(
  script = (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>
    }
  ).scripts['start:prod'] ?? 'node dist/src/wiring/main.js',
): ProductionCommand {
  const words = script.trim().split(/\s+/)
  const env: Record<string, string> = {}
  let word = words.shift()
  for (let assignment = word?.match(ASSIGNMENT); assignment; assignment = word?.match(ASSIGNMENT)) {
    env[assignment[1] as string] = assignment[2] as string
    word = words.shift()
  }
  if (word !== 'node') throw new Error(`start:prod must run node, not ${JSON.stringify(word)}: ${script}`)
  const entry = words.pop()
  if (!entry) throw new Error(`start:prod names no entry point: ${script}`)
  return { env, nodeArgs: words, entry }
}
