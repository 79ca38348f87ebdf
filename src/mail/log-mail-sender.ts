import type { MailMessage, MailSender } from '../domain/ports/mail.ts'
import type { Logger } from '../logging/logger.ts'

/**
 * Development without an SMTP server (the embedded store and no SMTP_URL): each message, key included,
 * is written to the log instead of sent. Never used with DATABASE_URL.
 */
export function logMailSender(logger: Logger): MailSender {
  return {
    async send(message: MailMessage): Promise<void> {
      logger.info(
        { mail: { to: message.to, subject: message.subject } },
        `mail not sent (development, no SMTP_URL); it reads:\n${message.text}`,
      )
    },
    async close(): Promise<void> {},
  }
}
