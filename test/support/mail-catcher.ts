import { type AddressObject, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { hashApiKey } from '../../src/access/api-key.ts'
import type { Sql } from '../../src/db/connect.ts'
import { freePort } from './net.ts'
import { eventually } from './waiting.ts'

/** One message as the mail server received it. */
export interface CaughtMail {
  /** The envelope's recipients (RCPT TO), as the sender wrote them. */
  recipients: string[]
  from: string
  to: string
  subject: string
  text: string
}

export interface MailCatcher {
  /** SMTP_URL for a server under test. */
  smtpUrl: string
  mail: CaughtMail[]
  /** The next message to `address` not yet taken by another call, waiting up to `timeoutMs`. */
  next(address: string, timeoutMs?: number): Promise<CaughtMail>
  close(): Promise<void>
}

/** The environment a server under test sends key mail with. Links point at PUBLIC_URL, not at the test server. */
export function mailEnv(catcher: MailCatcher): Record<string, string> {
  return {
    SMTP_URL: catcher.smtpUrl,
    MAIL_FROM: 'Survival API <keys@example.org>',
    PUBLIC_URL: MAIL_PUBLIC_URL,
  }
}

export const MAIL_PUBLIC_URL = 'https://api.example.test'

function addressText(value: AddressObject | AddressObject[] | undefined): string {
  if (!value) return ''
  return (Array.isArray(value) ? value : [value]).map((a) => a.text).join(', ')
}

/** A real SMTP server on 127.0.0.1 (no TLS, no auth) that parses and keeps what it is sent. */
export async function startMailCatcher(): Promise<MailCatcher> {
  const mail: CaughtMail[] = []
  const taken = new Set<CaughtMail>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mail.push({
            recipients: session.envelope.rcptTo.map((r) => r.address),
            from: addressText(parsed.from),
            to: addressText(parsed.to),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          })
          callback()
        })
        .catch(callback)
    },
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    smtpUrl: `smtp://127.0.0.1:${port}`,
    mail,
    async next(address, timeoutMs = 10_000) {
      const untaken = () => mail.find((m) => !taken.has(m) && m.recipients.includes(address))
      await eventually(() => untaken() !== undefined, timeoutMs)
      const found = untaken()
      if (!found) throw new Error(`no mail to ${address} within ${timeoutMs} ms (${mail.length} caught)`)
      taken.add(found)
      return found
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The API key a message carries. */
export function keyIn(mail: CaughtMail): string {
  const key = /tsp_live_[0-9a-f]{32}/.exec(mail.text)?.[0]
  if (!key) throw new Error(`no key in the mail "${mail.subject}":\n${mail.text}`)
  return key
}

/** The path and query of the roll link a notice carries, to ask of the server under test. */
export function rollLinkIn(mail: CaughtMail): string {
  const link = new RegExp(`${MAIL_PUBLIC_URL}(/keys/roll\\?token=[A-Za-z0-9_-]+)`).exec(mail.text)?.[1]
  if (!link) throw new Error(`no roll link in the mail "${mail.subject}":\n${mail.text}`)
  return link
}

/**
 * Waits until a mailed key is written. The catcher holds a message a moment before the server hears
 * it was accepted, and the key is written only then: a test that used it at once could be refused.
 */
export async function keyWritten(sql: Sql, key: string, timeoutMs = 5_000): Promise<string> {
  const written = async () =>
    (await sql`SELECT 1 FROM api_keys WHERE key_hash = ${hashApiKey(key)}`).length === 1
  if (!(await eventually(written, timeoutMs)))
    throw new Error(`the mailed key was not written within ${timeoutMs} ms`)
  return key
}
