import nodemailer from 'nodemailer'
import type { MailMessage, MailSender } from '../domain/ports.ts'

/** Mail through an SMTP server (SMTP_URL: smtp:// or smtps://, with credentials in the URL), from MAIL_FROM. */
export function smtpMailSender(smtpUrl: string, from: string): MailSender {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    // Only what the messages need: no logging of addresses or content by the library.
    logger: false,
    debug: false,
  })
  return {
    async send(message: MailMessage): Promise<void> {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text })
    },
    async close(): Promise<void> {
      transport.close()
    },
  }
}
