import pino, { type Logger } from 'pino'

export type { Logger }

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
      redact: {
        paths: ['key', '*.key', 'apiKey', 'headers["x-api-key"]', 'req.headers["x-api-key"]'],
        censor: '[redacted]',
      },
    },
    pretty
      ? pino.transport({
          target: 'pino-pretty',
          options: { destination: fd, translateTime: 'SYS:HH:MM:ss.l' },
        })
      : pino.destination(fd),
  )
}
