import type { Logger } from '../../logging/logger.ts'
import type { KeyMail, KeyMailbox } from '../ports/key-mailbox.ts'
import type { MailSender } from '../ports/mail.ts'
import { keyMessage } from './key-messages.ts'

export interface KeyMailerSettings {
  /** The service's public address, which links in mail point to (PUBLIC_URL). */
  publicUrl: string
  /** How long a mailer has a request before another may take it up (a crashed mailer's). */
  leaseMs: number
  /** How long a roll link works. */
  linkTtlMs: number
  /** How often due retries and other processes' requests are looked for. */
  pollMs: number
  /** Tries per message before its request is given up as failed. */
  maxAttempts: number
  /** The wait after the first failed try; it doubles with each, up to an hour. */
  retryBaseMs: number
  /** How long a finished request (and its address) is kept: longer than the hourly counting needs. */
  keepFinishedMs: number
}

export const KEY_MAILER_DEFAULTS: Omit<KeyMailerSettings, 'publicUrl'> = {
  leaseMs: 120_000,
  linkTtlMs: 3_600_000,
  pollMs: 10_000,
  maxAttempts: 8,
  retryBaseMs: 30_000,
  keepFinishedMs: 86_400_000,
}

const MAX_RETRY_MS = 3_600_000
const PURGE_EVERY_MS = 3_600_000

/**
 * Sends what recorded key requests call for, from every server process: it takes one request at a
 * time from the database (leased, so none is mailed twice), sends its message holding no connection,
 * and reports the outcome. A message not accepted is tried again later with a growing wait; a request
 * is never lost to a restart, since it lives in the database until it is finished.
 */
export class KeyMailer {
  private timer: NodeJS.Timeout | null = null
  private draining: Promise<void> | null = null
  private wakeAgain = false
  private stopped = false
  private lastPurge = 0

  constructor(
    private readonly mailbox: KeyMailbox,
    private readonly sender: MailSender,
    private readonly settings: KeyMailerSettings,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.settings.pollMs)
    this.timer.unref()
    this.wake()
  }

  /** Mail what is due now; a wake during a drain drains once more after it. */
  wake(): void {
    if (this.stopped) return
    if (this.draining) {
      this.wakeAgain = true
      return
    }
    this.draining = this.drain().finally(() => {
      this.draining = null
      if (this.wakeAgain) {
        this.wakeAgain = false
        this.wake()
      }
    })
  }

  /** Resolves once nothing is being mailed (tests, and stop). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    await this.idle()
  }

  private async drain(): Promise<void> {
    await this.purgeHourly()
    try {
      for (;;) {
        if (this.stopped) return
        const mail = await this.mailbox.takeNext(this.settings.leaseMs, this.settings.linkTtlMs)
        if (!mail) return
        await this.send(mail)
      }
    } catch (error) {
      // The database is away: the requests stay queued, and the next poll tries again. Only the
      // error's name and code: a database's words about a row may quote the address.
      this.logger.warn(errorCodes(error), 'key mail paused: the database did not answer')
    }
  }

  private async send(mail: KeyMail): Promise<void> {
    try {
      await this.sender.send(keyMessage(mail, this.settings))
    } catch (error) {
      const attempt = await this.retryAfterFailure(mail, error)
      // The mail server's words may hold the address: only its codes are logged.
      const { code, responseCode } = error as { code?: string; responseCode?: number }
      this.logger.warn({ request: mail.requestId, attempt, code, responseCode }, 'key mail not accepted')
      return
    }
    await this.mailbox.delivered(mail)
  }

  private async retryAfterFailure(mail: KeyMail, error: unknown): Promise<number> {
    const giveUp = mail.attempt >= this.settings.maxAttempts
    const waitMs = Math.min(MAX_RETRY_MS, this.settings.retryBaseMs * 2 ** (mail.attempt - 1))
    const retryAt = giveUp ? null : new Date(this.now().getTime() + waitMs)
    const reason = error instanceof Error ? error.message : String(error)
    await this.mailbox.failed(mail.requestId, reason, retryAt)
    return mail.attempt
  }

  private async purgeHourly(): Promise<void> {
    const now = this.now().getTime()
    if (now - this.lastPurge < PURGE_EVERY_MS) return
    this.lastPurge = now
    try {
      await this.mailbox.purge(new Date(now - this.settings.keepFinishedMs))
    } catch (error) {
      this.logger.warn(errorCodes(error), 'finished key requests not purged: tried again in an hour')
    }
  }
}

function errorCodes(error: unknown): { name?: string; code?: string } {
  const { name, code } = (error ?? {}) as { name?: string; code?: string }
  return { name, code }
}
