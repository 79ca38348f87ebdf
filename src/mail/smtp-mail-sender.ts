import type { Transporter } from 'nodemailer'
import type { MailMessage, MailSender } from '../domain/ports/mail.ts'

/**
 * Mail through an SMTP server (SMTP_URL: smtp:// or smtps://, with credentials in the URL), from MAIL_FROM.
 * nodemailer is loaded with the first message: a server that never mails does not carry it.
 */
export function smtpMailSender(smtpUrl: string, from: string): MailSender {
  let transport: Promise<Transporter> | null = null
  const opened = (): Promise<Transporter> => {
    transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
        // Only what the messages need: no logging of addresses or content by the library.
        logger: false,
        debug: false,
      }),
    )
    return transport
  }
  return {
    async send(message: MailMessage): Promise<void> {
      await (await opened()).sendMail({ from, to: message.to, subject: message.subject, text: message.text })
    },
    async close(): Promise<void> {
      if (transport) (await transport).close()
    },
  }
}
