import type { Config } from '../config/config.ts'
import type { Database } from '../db/connect.ts'
import { keyMailbox } from '../db/key-ports.ts'
import { KEY_MAILER_DEFAULTS, KeyMailer, type KeyMailerSettings } from '../domain/key-mail/key-mailer.ts'
import { SporeKeyRequests } from '../domain/key-mail/spore-key-requests.ts'
import type { IssuanceLimiter } from '../domain/ports/issuance.ts'
import type { MailSender } from '../domain/ports/mail.ts'
import type { Logger } from '../logging/logger.ts'
import { logMailSender } from '../mail/log-mail-sender.ts'
import { smtpMailSender } from '../mail/smtp-mail-sender.ts'
import type { Metrics } from '../observability/metrics.ts'

export type KeyMailConfig = Pick<
  Config,
  'SPORE_KEYS_PER_ADDRESS_PER_HOUR' | 'SPORE_KEYS_PER_HOUR' | 'DB_QUERY_TIMEOUT_MS'
> &
  Partial<Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'PUBLIC_URL' | 'PORT'>> & { ADDRESS_HASH_KEY: string }

export interface KeyMailWiring {
  /** Null when POST /keys is off: a PostgreSQL store and no SMTP_URL. */
  requests: SporeKeyRequests | null
  close(): Promise<void>
}

/**
 * How key mail leaves: SMTP when SMTP_URL is set; the log for the embedded development store without
 * it; and not at all with DATABASE_URL and no SMTP_URL, where self-service keys are off, since a key
 * that cannot reach its address must not be made.
 */
function chooseSender(config: KeyMailConfig, database: Database, logger: Logger): MailSender | null {
  if (config.SMTP_URL) return smtpMailSender(config.SMTP_URL, config.MAIL_FROM as string)
  return database.mode === 'embedded' ? logMailSender(logger) : null
}

export function wireKeyMail(options: {
  config: KeyMailConfig
  database: Database
  metrics: Metrics
  logger: Logger
  limiter: IssuanceLimiter
  /** A ready-made sender (tests); otherwise chosen from the configuration. */
  sender?: MailSender
  mailer?: Partial<KeyMailerSettings>
}): KeyMailWiring {
  const { config, database, logger } = options
  const sender = options.sender ?? chooseSender(config, database, logger)
  if (!sender) return { requests: null, close: async () => {} }
  const mailbox = keyMailbox(database.sql, config, options.metrics)
  const mailer = new KeyMailer(
    mailbox,
    sender,
    {
      ...KEY_MAILER_DEFAULTS,
      publicUrl: config.PUBLIC_URL ?? `http://localhost:${config.PORT ?? 8080}`,
      ...options.mailer,
    },
    logger,
  )
  mailer.start()
  const requests = new SporeKeyRequests(
    mailbox,
    {
      limits: {
        perAddressPerHour: config.SPORE_KEYS_PER_ADDRESS_PER_HOUR,
        perHour: config.SPORE_KEYS_PER_HOUR,
      },
      limiter: options.limiter,
      addressHashKey: config.ADDRESS_HASH_KEY,
    },
    () => mailer.wake(),
  )
  return {
    requests,
    close: async () => {
      await mailer.stop()
      await sender.close()
    },
  }
}
