import pino, { type Logger } from 'pino'

export type { Logger }

/**
 * JSON logs (pino). The CLI logs to stderr so its stdout stays machine-readable.
 * Keys are never logged: the redact list is a second line of defence for header dumps.
 */
export function createLogger(options: { level?: string; destination?: 'stdout' | 'stderr' } = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      redact: {
        paths: ['key', '*.key', 'apiKey', 'headers["x-api-key"]', 'req.headers["x-api-key"]'],
        censor: '[redacted]',
      },
    },
    pino.destination(options.destination === 'stderr' ? 2 : 1),
  )
}
