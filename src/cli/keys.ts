import { Command, InvalidArgumentError, Option } from 'commander'
import { loadConfig } from '../config/config.ts'
import type { Sql } from '../db/connect.ts'
import { openDatabase } from '../db/connect.ts'
import { createKey, KeyStoreError, listKeys, rotateKey, setKeyStatus } from '../db/keys.ts'
import { createLogger } from '../logging/logger.ts'
import { TIER_NAMES } from '../types.ts'

const log = createLogger({ destination: 'stderr' })

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`)
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
  .description('Manage API keys (stored as SHA-256 hashes in PostgreSQL at DATABASE_URL)')
  .showHelpAfterError()

program
  .command('create')
  .description('issue a new active key; the plaintext is shown once')
  .addOption(new Option('--tier <tier>', 'access tier').choices(TIER_NAMES).makeOptionMandatory())
  .option('--name <text>', 'label for the key owner', nonEmpty)
  .option('--json', 'print one JSON object {"id","key","tier","status"}')
  .action(async (options: { tier: (typeof TIER_NAMES)[number]; name?: string; json?: boolean }) => {
    await withDatabase(async (sql) => {
      const issued = await createKey(sql, { tier: options.tier, name: options.name ?? null })
      log.info({ keyId: issued.id, tier: issued.tier }, 'api key created')
      if (options.json) printJson(issued)
      else
        process.stdout.write(
          `${issued.key}\n(id ${issued.id}, tier ${issued.tier}; store it now, it is not shown again)\n`,
        )
    })
  })

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
  .description('issue a replacement key (same tier and name); the old key becomes rotated')
  .option('--json', 'print the new key as one JSON object {"id","key","tier","status"}')
  .action(async (id: string, options: { json?: boolean }) => {
    await withDatabase(async (sql) => {
      const issued = await rotateKey(sql, id)
      log.info({ keyId: id, newKeyId: issued.id }, 'api key rotated')
      if (options.json) printJson(issued)
      else
        process.stdout.write(
          `${issued.key}\n(id ${issued.id} replaces ${id}; store it now, it is not shown again)\n`,
        )
    })
  })

program
  .command('list')
  .description('list keys (never the keys themselves)')
  .option('--json', 'print a JSON array')
  .action(async (options: { json?: boolean }) => {
    await withDatabase(async (sql) => {
      const records = await listKeys(sql)
      if (options.json) printJson(records)
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
