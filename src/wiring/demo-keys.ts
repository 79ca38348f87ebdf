import type { Sql } from '../db/connect.ts'
import { createKey, type IssuedKey } from '../db/keys.ts'
import { TIER_NAMES } from '../types.ts'

/** One key per tier for the embedded demo store (never used with DATABASE_URL). */
export function createDemoKeys(sql: Sql): Promise<IssuedKey[]> {
  return Promise.all(TIER_NAMES.map((tier) => createKey(sql, { tier, name: `demo ${tier} key` })))
}

export function formatDemoKeys(keys: readonly IssuedKey[]): string {
  const lines = keys.map((k) => `  ${k.tier.padEnd(6)} ${k.key}`)
  return [
    'Demo API keys (embedded store only; they vanish when this process stops):',
    ...lines,
    'Send one as the X-API-Key header.',
  ].join('\n')
}
