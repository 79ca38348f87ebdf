import { SMTPServer } from 'smtp-server'
import { freePort } from './support.ts'

/** A mail server that accepts every message, keeps none, and counts them. */
export interface SoakMailSink {
  /** SMTP_URL, MAIL_FROM and PUBLIC_URL: the server's settings that turn self-service keys on. */
  env: Record<string, string>
  /** Messages accepted so far. */
  received(): number
  close(): Promise<void>
}

/** A mail sink on 127.0.0.1 (SMTP, no TLS, no auth), for the server's SMTP_URL. */
export async function startSoakMailSink(): Promise<SoakMailSink> {
  let received = 0
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('end', () => {
        received += 1
        callback()
      })
      stream.resume()
    },
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    env: {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'Survival API soak <keys@example.org>',
      PUBLIC_URL: 'https://soak.example.test',
    },
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
