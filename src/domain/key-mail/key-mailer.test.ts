import fc from 'fast-check'
import pino from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { StoreUnavailableError } from '../errors.ts'
import type { KeyMail, KeyMailbox } from '../ports/key-mailbox.ts'
import type { MailMessage, MailSender } from '../ports/mail.ts'
import { KeyMailer, type KeyMailerSettings } from './key-mailer.ts'
import { keyMessage, rollLinkUrl } from './key-messages.ts'

const SETTINGS: KeyMailerSettings = {
  publicUrl: 'https://api.example.org',
  leaseMs: 120_000,
  linkTtlMs: 3_600_000,
  pollMs: 60_000,
  maxAttempts: 8,
  retryBaseMs: 30_000,
  keepFinishedMs: 86_400_000,
}
const HOUR = 3_600_000
const TOKEN = `${'Zx9_-'.repeat(8)}AbC`

const keyOf = (n: number) => `tsp_live_${(0xabc0 + n).toString(16).padStart(32, '0')}`
const keyIdOf = (n: number) => `key_${n.toString(16).padStart(16, '0')}`
function mail(n: number, kind: KeyMail['kind'] = 'key', attempt = 1): KeyMail {
  const base = { requestId: String(n), email: `holder-${n}@example.org`, keyId: keyIdOf(n), attempt }
  if (kind === 'key') return { ...base, kind, key: keyOf(n) }
  if (kind === 'rolled_key') return { ...base, kind, key: keyOf(n), previousKeyId: keyIdOf(n + 1000) }
  return {
    ...base,
    kind,
    keyHint: keyOf(n).slice(-4),
    linkToken: TOKEN,
    linkExpiresAt: new Date('2026-11-22T13:00:00Z'),
  }
}

function deferred() {
  let resolve!: () => void
  let reject!: (error: Error) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** A KeyMailbox over a queue of mail, logging what it is told into `events`. */
class FakeMailbox implements KeyMailbox {
  readonly queue: KeyMail[] = []
  readonly deliveries: KeyMail[] = []
  readonly failures: { requestId: string; reason: string; retryAt: Date | null }[] = []
  readonly purges: Date[] = []
  readonly leases: [number, number][] = []
  takes = 0
  /** Answers the next takeNext instead of the queue (once). */
  nextTake: (() => Promise<KeyMail | null>) | null = null
  deliver: () => Promise<void> = async () => {}
  purging: () => Promise<number> = async () => 0

  constructor(private readonly events: string[]) {}

  async takeNext(leaseMs: number, linkTtlMs: number): Promise<KeyMail | null> {
    this.leases.push([leaseMs, linkTtlMs])
    this.takes += 1
    const answer = this.nextTake
    this.nextTake = null
    return answer ? answer() : (this.queue.shift() ?? null)
  }
  async delivered(mail: KeyMail): Promise<void> {
    await this.deliver()
    this.events.push(`delivered ${mail.requestId}`)
    this.deliveries.push(mail)
  }
  async failed(requestId: string, reason: string, retryAt: Date | null): Promise<void> {
    this.events.push(`failed ${requestId}`)
    this.failures.push({ requestId, reason, retryAt })
  }
  async purge(before: Date): Promise<number> {
    this.purges.push(before)
    return this.purging()
  }
  record = () => Promise.reject(new Error('not the mailer'))
  rollLink = () => Promise.reject(new Error('not the mailer'))
  confirmRoll = () => Promise.reject(new Error('not the mailer'))
}

/** A MailSender that accepts everything unless `answer` says otherwise. */
class FakeSender implements MailSender {
  readonly sent: MailMessage[] = []
  answer: (message: MailMessage) => Promise<void> = async () => {}
  constructor(private readonly events: string[]) {}
  async send(message: MailMessage): Promise<void> {
    this.sent.push(message)
    this.events.push(`send ${message.to}`)
    await this.answer(message)
    this.events.push(`accepted ${message.to}`)
  }
  async close(): Promise<void> {}
}

const mailers: KeyMailer[] = []
afterEach(async () => {
  await Promise.all(mailers.splice(0).map((m) => m.stop()))
})

/** A mailer over fakes, logging through pino (no redaction: the mailer must not need it) to `lines`. */
function setup(settings: Partial<KeyMailerSettings> = {}) {
  const events: string[] = []
  const lines: string[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) })
  const mailbox = new FakeMailbox(events)
  const sender = new FakeSender(events)
  const clock = { at: Date.parse('2026-11-22T12:00:00Z') }
  const mailer = new KeyMailer(
    mailbox,
    sender,
    { ...SETTINGS, ...settings },
    logger,
    () => new Date(clock.at),
  )
  mailers.push(mailer)
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  return { mailer, mailbox, sender, events, lines, logged, clock }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('KeyMailer', () => {
  it('reports a message delivered only once the sender has accepted it', async () => {
    const { mailer, mailbox, sender, events } = setup()
    const accepted = deferred()
    sender.answer = () => accepted.promise
    mailbox.queue.push(mail(1), mail(2, 'notice'))
    mailer.wake()
    await vi.waitFor(() => expect(sender.sent).toHaveLength(1))
    await tick()
    expect(mailbox.deliveries).toEqual([])
    accepted.resolve()
    await mailer.idle()
    expect(mailbox.deliveries.map((m) => m.requestId)).toEqual(['1', '2'])
    expect(sender.sent).toEqual([keyMessage(mail(1), SETTINGS), keyMessage(mail(2, 'notice'), SETTINGS)])
    expect(mailbox.leases[0]).toEqual([SETTINGS.leaseMs, SETTINGS.linkTtlMs])
    expect(events).toEqual([
      'send holder-1@example.org',
      'accepted holder-1@example.org',
      'delivered 1',
      'send holder-2@example.org',
      'accepted holder-2@example.org',
      'delivered 2',
    ])
  })

  it('reports a rejected message failed, to be retried after retryBase·2^(attempt−1) up to an hour, or given up', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 1, max: 600_000 }),
        async (maxAttempts, attempt, retryBaseMs) => {
          const { mailer, mailbox, sender, clock } = setup({ maxAttempts, retryBaseMs })
          sender.answer = () => Promise.reject(new Error('421 try later'))
          mailbox.queue.push(mail(7, 'key', attempt))
          mailer.wake()
          await mailer.idle()
          const wait = Math.min(HOUR, retryBaseMs * 2 ** (attempt - 1))
          expect(mailbox.failures).toEqual([
            {
              requestId: '7',
              reason: '421 try later',
              retryAt: attempt >= maxAttempts ? null : new Date(clock.at + wait),
            },
          ])
          expect(mailbox.deliveries).toEqual([])
        },
      ),
      { numRuns: 100 },
    )
    const { mailer, mailbox, sender, clock } = setup()
    sender.answer = () => Promise.reject(new Error('451'))
    mailbox.queue.push(mail(1, 'key', 1), mail(2, 'key', 2), mail(3, 'key', 7), mail(4, 'key', 8))
    mailer.wake()
    await mailer.idle()
    expect(mailbox.failures.map((f) => f.retryAt && f.retryAt.getTime() - clock.at)).toEqual([
      30_000,
      60_000,
      1_920_000,
      null,
    ])
  })

  it('logs a database that does not answer, and goes on at the next wake', async () => {
    const { mailer, mailbox, logged } = setup()
    mailbox.queue.push(mail(1), mail(2))
    const away = () =>
      Promise.reject(new StoreUnavailableError(new Error('connect ECONNREFUSED 127.0.0.1:5432')))
    mailbox.nextTake = away
    mailer.wake()
    await mailer.idle()
    expect(mailbox.deliveries).toEqual([])
    expect(logged()).toMatchObject([{ level: 40, msg: 'key mail paused: the database did not answer' }])
    // The report of a delivery fails too: logged, and the next message is still taken at the next wake.
    mailbox.deliver = away
    mailer.wake()
    await mailer.idle()
    expect(logged()).toHaveLength(2)
    mailbox.deliver = async () => {}
    mailer.wake()
    await mailer.idle()
    expect(mailbox.deliveries.map((m) => m.requestId)).toEqual(['2'])
  })

  it('drains once more after a wake that came during a drain, however many came', async () => {
    const { mailer, mailbox } = setup()
    const answered = deferred()
    mailbox.nextTake = () => answered.promise.then(() => null)
    mailer.wake()
    await vi.waitFor(() => expect(mailbox.takes).toBe(1))
    // Recorded while the drain was looking: it would wait for the next poll without the second drain.
    mailbox.queue.push(mail(1))
    mailer.wake()
    mailer.wake()
    answered.resolve()
    await mailer.idle()
    expect(mailbox.deliveries.map((m) => m.requestId)).toEqual(['1'])
    expect(mailbox.takes).toBe(3)
  })

  it('stop() waits for the message in hand, then takes no more', async () => {
    const { mailer, mailbox, sender } = setup()
    const accepted = deferred()
    sender.answer = () => accepted.promise
    mailbox.queue.push(mail(1), mail(2))
    mailer.wake()
    await vi.waitFor(() => expect(sender.sent).toHaveLength(1))
    let stopped = false
    const stopping = mailer.stop().then(() => {
      stopped = true
    })
    await tick()
    expect(stopped).toBe(false)
    accepted.resolve()
    await stopping
    expect(mailbox.deliveries.map((m) => m.requestId)).toEqual(['1'])
    mailer.wake()
    await mailer.idle()
    expect(mailbox.queue.map((m) => m.requestId)).toEqual(['2'])
    expect(mailbox.takes).toBe(1)
  })

  it('purges at most once an hour, what finished before now − keepFinishedMs', async () => {
    const { mailer, mailbox, clock } = setup()
    const start = clock.at
    const drainAt = async (offsetMs: number) => {
      clock.at = start + offsetMs
      mailer.wake()
      await mailer.idle()
    }
    await drainAt(0)
    await drainAt(HOUR - 1)
    await drainAt(HOUR)
    await drainAt(HOUR + 1000)
    await drainAt(3 * HOUR)
    expect(mailbox.purges.map((before) => start - before.getTime())).toEqual([
      SETTINGS.keepFinishedMs,
      SETTINGS.keepFinishedMs - HOUR,
      SETTINGS.keepFinishedMs - 3 * HOUR,
    ])
    expect(mailbox.takes).toBe(5)
    // A purge that fails is logged and does not hold up the mail.
    mailbox.purging = () => Promise.reject(new StoreUnavailableError(new Error('timeout')))
    mailbox.queue.push(mail(1))
    await drainAt(5 * HOUR)
    await drainAt(5 * HOUR + 1)
    expect(mailbox.deliveries.map((m) => m.requestId)).toEqual(['1'])
  })

  it('polls every pollMs once started, and not after stop', async () => {
    const { mailer, mailbox } = setup({ pollMs: 10 })
    mailer.start()
    await vi.waitFor(() => expect(mailbox.takes).toBeGreaterThan(0))
    mailbox.queue.push(mail(1))
    await vi.waitFor(() => expect(mailbox.deliveries).toHaveLength(1))
    await mailer.stop()
    const takes = mailbox.takes
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(mailbox.takes).toBe(takes)
  })

  it('never logs an email address, a key or a roll link, even when the mail server names the address', async () => {
    const { mailer, mailbox, sender, lines, logged } = setup({ maxAttempts: 2 })
    sender.answer = (message) => {
      if (message.to.startsWith('holder-1@')) return Promise.resolve()
      const error = Object.assign(new Error(`550 5.1.1 <${message.to}>: Recipient address rejected`), {
        code: 'EENVELOPE',
        responseCode: 550,
        response: `550 5.1.1 <${message.to}>`,
        rejected: [message.to],
      })
      return Promise.reject(error)
    }
    const mails = [mail(1), mail(2, 'notice'), mail(3, 'rolled_key', 2), mail(4, 'key', 1)]
    mailbox.queue.push(...mails)
    mailer.wake()
    await mailer.idle()
    mailbox.nextTake = () => Promise.reject(new StoreUnavailableError(new Error('connection terminated')))
    mailer.wake()
    await mailer.idle()
    expect(mailbox.failures.map((f) => f.requestId)).toEqual(['2', '3', '4'])
    const warnings = logged().filter((entry) => entry.msg === 'key mail not accepted')
    expect(warnings).toEqual([
      expect.objectContaining({ request: '2', attempt: 1, code: 'EENVELOPE', responseCode: 550 }),
      expect.objectContaining({ request: '3', attempt: 2, code: 'EENVELOPE', responseCode: 550 }),
      expect.objectContaining({ request: '4', attempt: 1, code: 'EENVELOPE', responseCode: 550 }),
    ])
    const text = lines.join('\n')
    expect(lines.length).toBeGreaterThanOrEqual(4)
    for (const m of mails) {
      expect(text).not.toContain(m.email)
      expect(text).not.toContain(m.email.split('@')[0])
      if (m.kind !== 'notice') expect(text).not.toContain(m.key)
    }
    expect(text).not.toContain(TOKEN)
    expect(text).not.toMatch(/tsp_live_|@example\.org/)
  })
})

describe('keyMessage', () => {
  const settings = { publicUrl: 'https://api.example.org', linkTtlMs: 3_600_000 }

  it('mails a new key to its address with its id and how to use it', () => {
    const message = keyMessage(mail(1), settings)
    expect(message.to).toBe('holder-1@example.org')
    expect(message.text).toContain(keyOf(1))
    expect(message.text).toContain(keyIdOf(1))
    expect(message.text).toContain('https://api.example.org/v1/openapi.json')
    expect(message.subject).toMatch(/key/)
  })

  it('mails a notice with the roll link, the key’s id and hint, its expiry, and never a key', () => {
    const notice = mail(2, 'notice')
    const message = keyMessage(notice, settings)
    expect(message.to).toBe('holder-2@example.org')
    expect(message.text).toContain(`https://api.example.org/keys/roll?token=${TOKEN}`)
    expect(message.text).toContain(`${keyIdOf(2)}, ending in …${keyOf(2).slice(-4)}`)
    expect(message.text).toContain('2026-11-22T13:00:00.000Z (60 minutes)')
    expect(message.text).not.toMatch(/tsp_live_/)
    expect(message.subject).not.toMatch(/tsp_live_/)
  })

  it('mails a rolled key with the key it replaces', () => {
    const message = keyMessage(mail(3, 'rolled_key'), settings)
    expect(message.to).toBe('holder-3@example.org')
    expect(message.text).toContain(keyOf(3))
    expect(message.text).toContain(keyIdOf(3))
    expect(message.text).toContain(`Your key ${keyIdOf(1003)} was rolled`)
  })

  it('joins the public URL and its paths with one slash, however many it ends in', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('https://api.example.org', 'http://localhost:8080/api'),
        fc.nat(3),
        (url, n) => {
          const publicUrl = url + '/'.repeat(n)
          expect(rollLinkUrl(publicUrl, TOKEN)).toBe(`${url}/keys/roll?token=${TOKEN}`)
          const notice = keyMessage(mail(2, 'notice'), { ...settings, publicUrl }).text
          const key = keyMessage(mail(1), { ...settings, publicUrl }).text
          expect(notice).toContain(`    ${url}/keys/roll?token=${TOKEN}\n`)
          expect(key).toContain(`${url}/v1/openapi.json`)
          expect(`${notice}${key}`).not.toMatch(/[^:]\/\//)
        },
      ),
    )
  })
})
