import type { KeyMail } from '../ports/key-mailbox.ts'
import type { MailMessage } from '../ports/mail.ts'

const SERVICE = 'Survival Prediction API'

/** The link that rolls a key: its secret in the query, answered by a page that asks before it rolls. */
export function rollLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/keys/roll?token=${token}`
}

/** The key itself, how to use it, and that this message is its only copy. */
function keyLines(key: string, publicUrl: string): string[] {
  const base = publicUrl.replace(/\/+$/, '')
  return [
    '',
    `    ${key}`,
    '',
    'Send it in the X-API-Key header of every request. Keep it like a password: never in a web page,',
    'a public repository or a URL. GET /v1/usage tells its daily limit, batch size and use.',
    `The API and its documentation: ${base}/v1/openapi.json`,
    '',
    'This message is the only place the key is written: the service keeps only its hash.',
  ]
}

/** The message a request calls for, in plain text. */
export function keyMessage(mail: KeyMail, settings: { publicUrl: string; linkTtlMs: number }): MailMessage {
  switch (mail.kind) {
    case 'key':
      return {
        to: mail.email,
        subject: `Your ${SERVICE} key`,
        text: [
          `Here is the spore key you asked for (${mail.keyId}):`,
          ...keyLines(mail.key, settings.publicUrl),
          'If you did not ask for a key, you may ignore this message; nobody else has seen it.',
        ].join('\n'),
      }
    case 'notice':
      return {
        to: mail.email,
        subject: `Your ${SERVICE} key: asked for again`,
        text: [
          `Someone, perhaps you, asked for a key for this address. It already holds one:`,
          `${mail.keyId}, ending in …${mail.keyHint}. An address holds one live key, so no other was made.`,
          '',
          'If you lost that key, roll it: the link below opens a page that asks you to confirm. Then its',
          'replacement, with the same usage history, comes to this address, and the key stops working.',
          '',
          `    ${rollLinkUrl(settings.publicUrl, mail.linkToken)}`,
          '',
          `The link works once, until ${mail.linkExpiresAt.toISOString()} (${settings.linkTtlMs / 60_000} minutes).`,
          'If you did not ask, ignore this message: nothing has changed.',
        ].join('\n'),
      }
    case 'rolled_key':
      return {
        to: mail.email,
        subject: `Your new ${SERVICE} key`,
        text: [
          `Your key ${mail.previousKeyId} was rolled, as confirmed through the link sent to this address.`,
          `It no longer works. Here is its replacement (${mail.keyId}):`,
          ...keyLines(mail.key, settings.publicUrl),
        ].join('\n'),
      }
  }
}
