import pino, { type Logger } from 'pino'

export type { Logger }

/**
 * Never written to a log line, at the top level or one object down: API keys (as sent, in headers, in
 * the GraphQL context), the /metrics bearer token, and the contact email of a self-service key. The one
 * exception is by design: the embedded development store without SMTP_URL writes key mail, address and
 * key included, to the log instead of sending it (src/mail/log-mail-sender.ts); never with DATABASE_URL.
 */
export const LOG_REDACTION = {
  paths: [
    'key',
    '*.key',
    'apiKey',
    '*.apiKey',
    'email',
    '*.email',
    'headers["x-api-key"]',
    'headers.authorization',
    '*.headers["x-api-key"]',
    '*.headers.authorization',
  ],
  censor: '[redacted]',
}

/**
 * JSON logs (pino), pretty-printed when attached to a terminal. The CLI logs to stderr so its stdout stays machine-readable.
 * Keys are never logged: the redact list is a second line of defence for header dumps.
 */
export function createLogger(options: { level?: string; destination?: 'stdout' | 'stderr' } = {}): Logger {
  const fd = options.destination === 'stderr' ? 2 : 1
  const pretty = (fd === 1 ? process.stdout : process.stderr).isTTY
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      redact: LOG_REDACTION,
    },
    pretty
      ? pino.transport({
          target: 'pino-pretty',
          options: { destination: fd, translateTime: 'SYS:HH:MM:ss.l' },
        })
      : pino.destination(fd),
  )
}
