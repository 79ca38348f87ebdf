import { Command, InvalidArgumentError, Option } from 'commander'
import ms from 'ms'
import { loadConfig } from '../config/config.ts'
import { OPERATOR } from '../db/audit.ts'
import type { Sql } from '../db/connect.ts'
import { openDatabase } from '../db/connect.ts'
import { createKey, findKeyById, KeyStoreError, listKeys, rotateKey, setKeyStatus } from '../db/keys.ts'
import { usageHistory } from '../db/usage.ts'
import { dailySeries, USAGE_HISTORY_DAYS } from '../domain/key-service.ts'
import { createLogger } from '../logging/logger.ts'
import { type ApiKeyRecord, type IssuedKey, TIER_NAMES } from '../types.ts'

const log = createLogger({ destination: 'stderr' })

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`)
}

const DAY_MS = 86_400_000

/** A duration such as `30d`, `12h`, `90m` or `3600s` (the `ms` package's notation), in seconds. */
function duration(max: { ms: number; label: string }, min = 1) {
  return (value: string): number => {
    const parsed = /^\d+$/.test(value) ? Number(value) * 1000 : ms(value as ms.StringValue)
    if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed < min * 1000 || parsed > max.ms) {
      throw new InvalidArgumentError(
        `must be a duration from ${min}s to ${max.label}, such as 90m, 12h or 30d (plain numbers are seconds)`,
      )
    }
    return Math.round(parsed / 1000)
  }
}

/** The key as issued: `{"id","key","tier","status"}`, and `expires_at` when it expires. */
function issuedJson(issued: IssuedKey) {
  const { id, key, tier, status, expiresAt } = issued
  return { id, key, tier, status, ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}) }
}

/** A key record as the CLI prints it: the snake_case fields of the rest of the key JSON, never the key. */
function recordJson(record: ApiKeyRecord) {
  return {
    id: record.id,
    tier: record.tier,
    status: record.status,
    name: record.name,
    key_hint: record.keyHint,
    account_id: record.accountId,
    rotated_to: record.rotatedTo,
    expires_at: record.expiresAt?.toISOString() ?? null,
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  }
}

function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty')
  return value
}

/** Runs one command against the configured PostgreSQL; keys live only there, never in the embedded store. */
async function withDatabase(action: (sql: Sql) => Promise<void>): Promise<void> {
  const config = loadConfig()
  if (!config.DATABASE_URL) {
    throw new KeyStoreError(
      'DATABASE_URL is not set. The key CLI manages keys in PostgreSQL; the embedded store lives inside a running `npm start` and prints its demo keys there.',
    )
  }
  const database = await openDatabase(config)
  try {
    await action(database.sql)
  } finally {
    await database.close()
  }
}

const program = new Command('keys')
  .description(
    "Manage API keys (stored as SHA-256 hashes in PostgreSQL at DATABASE_URL); every change is logged in the key's account (GET /v1/audit)",
  )
  .showHelpAfterError()

program
  .command('create')
  .description('issue a new active key; the plaintext is shown once')
  .addOption(new Option('--tier <tier>', 'access tier').choices(TIER_NAMES).makeOptionMandatory())
  .option('--name <text>', 'label for the key owner', nonEmpty)
  .option(
    '--expires-in <duration>',
    'the key stops working after this long (e.g. 30d, 12h; at most 10 years)',
    duration({ ms: 3650 * DAY_MS, label: '3650d' }),
  )
  .option('--json', 'print one JSON object {"id","key","tier","status"} (and "expires_at" with --expires-in)')
  .action(
    async (options: {
      tier: (typeof TIER_NAMES)[number]
      name?: string
      expiresIn?: number
      json?: boolean
    }) => {
      await withDatabase(async (sql) => {
        const expiresAt = options.expiresIn ? new Date(Date.now() + options.expiresIn * 1000) : null
        const issued = await createKey(sql, { tier: options.tier, name: options.name ?? null, expiresAt })
        log.info({ keyId: issued.id, tier: issued.tier }, 'api key created')
        if (options.json) printJson(issuedJson(issued))
        else
          process.stdout.write(
            `${issued.key}\n(id ${issued.id}, tier ${issued.tier}; store it now, it is not shown again)\n`,
          )
      })
    },
  )

for (const command of ['activate', 'deactivate', 'revoke'] as const) {
  program
    .command(`${command} <id>`)
    .description(`${command} a key`)
    .option('--json', 'print the key record as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      await withDatabase(async (sql) => {
        const record = await setKeyStatus(sql, id, command)
        log.info({ keyId: record.id, status: record.status }, `api key ${command}d`)
        if (options.json)
          printJson({ id: record.id, tier: record.tier, status: record.status, name: record.name })
        else process.stdout.write(`${record.id} is now ${record.status}\n`)
      })
    })
}

program
  .command('rotate <id>')
  .description(
    'issue a replacement key (same tier, name, quota and usage history); the old key becomes rotated',
  )
  .option(
    '--grace <duration>',
    'the old key keeps working this long (e.g. 1h, 2d; at most 7 days; default 0: it stops at once)',
    duration({ ms: 7 * DAY_MS, label: '7d' }, 0),
    0,
  )
  .option('--json', 'print the new key as one JSON object {"id","key","tier","status","previous_key"}')
  .action(async (id: string, options: { grace: number; json?: boolean }) => {
    await withDatabase(async (sql) => {
      const { issued, previousExpiresAt } = await rotateKey(sql, id, options.grace, OPERATOR)
      log.info({ keyId: id, newKeyId: issued.id, graceSeconds: options.grace }, 'api key rotated')
      if (options.json)
        printJson({
          ...issuedJson(issued),
          previous_key: { id, works_until: previousExpiresAt.toISOString() },
        })
      else
        process.stdout.write(
          `${issued.key}\n(id ${issued.id} replaces ${id}; store it now, it is not shown again)\n`,
        )
    })
  })

program
  .command('usage <id>')
  .description(
    `requests per UTC day over the last ${USAGE_HISTORY_DAYS} days (as servers have written them: up to a minute behind)`,
  )
  .option('--json', 'print one JSON object {"key","today","history"}')
  .action(async (id: string, options: { json?: boolean }) => {
    await withDatabase(async (sql) => {
      const record = await findKeyById(sql, id)
      if (!record) throw new KeyStoreError(`no API key with id ${id}`)
      const now = new Date()
      const fromDay = new Date(now.getTime() - (USAGE_HISTORY_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)
      const history = dailySeries(await usageHistory(sql, record.accountId, fromDay), now)
      const today = history.at(-1)
      if (options.json) {
        printJson({
          key: recordJson(record),
          today: { date: today?.day, requests: today?.requests ?? 0 },
          history: history.map((d) => ({ date: d.day, requests: d.requests })),
        })
      } else {
        for (const d of history) process.stdout.write(`${d.day}  ${d.requests}\n`)
      }
    })
  })

program
  .command('list')
  .description('list keys (never the keys themselves)')
  .option('--json', 'print a JSON array of key records (snake_case fields, as the rest of the key JSON)')
  .action(async (options: { json?: boolean }) => {
    await withDatabase(async (sql) => {
      const records = await listKeys(sql)
      if (options.json) printJson(records.map(recordJson))
      else
        for (const r of records) {
          process.stdout.write(
            `${r.id}  ${r.tier.padEnd(5)}  ${r.status.padEnd(8)}  …${r.keyHint}  ${r.name ?? ''}\n`,
          )
        }
    })
  })

try {
  await program.parseAsync(process.argv)
} catch (error) {
  if (error instanceof KeyStoreError) {
    process.stderr.write(`keys: ${error.message}\n`)
    process.exitCode = 1
  } else {
    log.error({ err: error }, 'keys command failed')
    process.exitCode = 1
  }
}
