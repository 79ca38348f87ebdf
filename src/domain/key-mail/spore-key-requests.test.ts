import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.ts'
import { hashClientAddress } from '../key-service.ts'
import type { IssuanceAdmission, IssuanceLimiter } from '../ports/issuance.ts'
import type { KeyMailbox, KeyRequestRecording, NewKeyRequest, RollLinkState } from '../ports/key-mailbox.ts'
import { ROLL_LINK_TOKEN, SporeKeyRequests } from './spore-key-requests.ts'

const ADDRESS_HASH_KEY = 'unit-test-address-hash-key-0123456789abcdef'
const LIMITS = { perAddressPerHour: 5, perHour: 100 }
const TOKEN = 'Q'.repeat(43)

/** What the fakes were asked, in order, across limiter, mailbox and the mailer's wake-up. */
type Call = string

/** A KeyMailbox that records what it is asked; `recording` and `linkState` say how it answers. */
class FakeMailbox implements KeyMailbox {
  readonly recorded: NewKeyRequest[] = []
  readonly looked: string[] = []
  readonly confirmed: { token: string; confirmedFrom: string }[] = []
  recording: (request: NewKeyRequest) => Promise<KeyRequestRecording> = async () => ({ recorded: true })
  linkState: RollLinkState = 'valid'

  constructor(private readonly calls: Call[]) {}

  async record(request: NewKeyRequest, limits: typeof LIMITS): Promise<KeyRequestRecording> {
    this.calls.push(`record ${limits.perAddressPerHour}/${limits.perHour}`)
    this.recorded.push(request)
    return this.recording(request)
  }
  async rollLink(token: string): Promise<RollLinkState> {
    this.looked.push(token)
    return this.linkState
  }
  async confirmRoll(token: string, confirmedFrom: string): Promise<RollLinkState> {
    this.calls.push('confirmRoll')
    this.confirmed.push({ token, confirmedFrom })
    return this.linkState
  }
  takeNext = () => Promise.reject(new Error('not the mailer'))
  delivered = () => Promise.reject(new Error('not the mailer'))
  failed = () => Promise.reject(new Error('not the mailer'))
  purge = () => Promise.reject(new Error('not the mailer'))
}

function setup(admission: IssuanceAdmission = { admitted: true }) {
  const calls: Call[] = []
  const limiter: IssuanceLimiter = {
    admit: async (addressHash, limits) => {
      calls.push(`admit ${addressHash} ${limits.perAddressPerHour}/${limits.perHour}`)
      return admission
    },
    issued: async () => {
      calls.push('issued')
    },
    close: async () => {},
  }
  const mailbox = new FakeMailbox(calls)
  const requests = new SporeKeyRequests(
    mailbox,
    { limits: LIMITS, limiter, addressHashKey: ADDRESS_HASH_KEY },
    () => calls.push('mailDue'),
  )
  return { requests, mailbox, limiter, calls }
}

const hashOf = (address: string) => hashClientAddress(ADDRESS_HASH_KEY, address)
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('not refused')
    },
    (error: unknown) => error as ApiError,
  )

describe('SporeKeyRequests.request', () => {
  it.each([
    ['address', /At most 5 key requests an hour/],
    ['global', /hourly ceiling of 100/],
  ] as const)('refuses past the %s counter with 429 before the mailbox is asked', async (scope, message) => {
    const { requests, mailbox, calls } = setup({ admitted: false, scope, retryAfterSeconds: 1800 })
    const error = await refusal(requests.request({ email: 'a@b.org' }, '203.0.113.9'))
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      code: 'rate_limit_exceeded',
      status: 429,
      headers: { 'retry-after': '1800' },
    })
    expect(error.message).toMatch(message)
    expect(calls).toEqual([`admit ${hashOf('203.0.113.9')} 5/100`])
    expect(mailbox.recorded).toEqual([])
  })

  it('records every admitted request: the email in lower case, the client address only as its HMAC', async () => {
    const { requests, mailbox, calls } = setup()
    const caseOf = (text: string) =>
      fc
        .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
        .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''))
    const asked = fc.emailAddress().chain((email) => fc.tuple(fc.constant(email), caseOf(email)))
    const address = fc.oneof(fc.ipV4(), fc.ipV6())
    await fc.assert(
      fc.asyncProperty(
        asked,
        address,
        fc.option(fc.string({ maxLength: 20 })),
        async ([email, cased], from, name) => {
          mailbox.recorded.length = 0
          calls.length = 0
          await requests.request({ email: cased, name }, from)
          expect(mailbox.recorded).toEqual([{ email: email.toLowerCase(), name, issuedFrom: hashOf(from) }])
          expect(mailbox.recorded[0]?.issuedFrom).toMatch(/^[0-9a-f]{64}$/)
          expect(mailbox.recorded[0]?.issuedFrom).not.toContain(from)
          expect(calls).toEqual([`admit ${hashOf(from)} 5/100`, 'record 5/100', 'issued', 'mailDue'])
        },
      ),
      { numRuns: 100 },
    )
  })

  it('maps every casing of one address to one recorded email', async () => {
    const { requests, mailbox } = setup()
    await fc.assert(
      fc.asyncProperty(fc.emailAddress(), fc.emailAddress(), async (a, b) => {
        mailbox.recorded.length = 0
        await requests.request({ email: a.toUpperCase() }, '::1')
        await requests.request({ email: a }, '::1')
        await requests.request({ email: b }, '::1')
        const [upper, plain, other] = mailbox.recorded.map((r) => r.email)
        expect(upper).toBe(plain)
        expect(other === plain).toBe(a.toLowerCase() === b.toLowerCase())
      }),
      { numRuns: 50 },
    )
  })

  it.each([
    ['address', /At most 5/],
    ['global', /ceiling of 100/],
  ] as const)(
    'turns the mailbox’s %s refusal into 429 with Retry-After, mailing nothing',
    async (scope, message) => {
      const { requests, mailbox, calls } = setup()
      mailbox.recording = async () => ({ recorded: false, scope, retryAfterSeconds: 1200 })
      const error = await refusal(requests.request({ email: 'a@b.org' }, '::1'))
      expect(error).toMatchObject({
        code: 'rate_limit_exceeded',
        status: 429,
        headers: { 'retry-after': '1200' },
      })
      expect(error.message).toMatch(message)
      expect(calls).toEqual([`admit ${hashOf('::1')} 5/100`, 'record 5/100'])
    },
  )

  it('passes a mailbox failure on, and mails nothing for it', async () => {
    const { requests, mailbox, calls } = setup()
    mailbox.recording = () => Promise.reject(new Error('database away'))
    await expect(requests.request({ email: 'a@b.org' }, '::1')).rejects.toThrow('database away')
    expect(calls).not.toContain('mailDue')
  })

  it('answers a recorded request even when the overall counter cannot count it', async () => {
    const { requests, limiter, calls } = setup()
    limiter.issued = () => Promise.reject(new Error('counter away'))
    await requests.request({ email: 'a@b.org' }, '::1')
    expect(calls.at(-1)).toBe('mailDue')
  })

  it('records one request at a time, in arrival order, even with 50 at once; a failure holds up none', async () => {
    const { requests, mailbox } = setup()
    let inFlight = 0
    let most = 0
    mailbox.recording = async (request) => {
      inFlight += 1
      most = Math.max(most, inFlight)
      await new Promise((resolve) => setTimeout(resolve, 1))
      inFlight -= 1
      if (request.email.startsWith('broken')) throw new Error('store failed')
      return { recorded: true }
    }
    const emails = Array.from(
      { length: 50 },
      (_, i) => `${i % 10 === 0 ? 'broken' : 'fine'}-${i}@example.org`,
    )
    const outcomes = await Promise.allSettled(
      emails.map((email, i) => requests.request({ email }, `203.0.113.${i}`)),
    )
    expect(most).toBe(1)
    expect(mailbox.recorded.map((r) => r.email)).toEqual(emails)
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(5)
  })
})

describe('SporeKeyRequests roll links', () => {
  it('never takes a malformed token to the mailbox: unknown', async () => {
    const { requests, mailbox, calls } = setup()
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), async (token) => {
        fc.pre(!ROLL_LINK_TOKEN.test(token))
        expect(await requests.rollLink(token)).toBe('unknown')
        expect(await requests.confirmRoll(token, '::1')).toBe('unknown')
      }),
      { numRuns: 200 },
    )
    for (const token of [
      `${TOKEN}=`,
      TOKEN.slice(1),
      `${TOKEN.slice(1)}+`,
      ` ${TOKEN.slice(1)}`,
      `${TOKEN}\n`,
    ])
      expect(await requests.confirmRoll(token, '::1')).toBe('unknown')
    expect(mailbox.looked).toEqual([])
    expect(calls).toEqual([])
  })

  it('looks a well-formed token up without spending it, and mails nothing', async () => {
    const { requests, mailbox, calls } = setup()
    expect(await requests.rollLink(TOKEN)).toBe('valid')
    expect(mailbox.looked).toEqual([TOKEN])
    expect(calls).toEqual([])
  })

  it('confirms from the keyed hash of the client address, and wakes the mailer only for a valid link', async () => {
    for (const state of ['valid', 'used', 'expired', 'unknown'] as const) {
      const { requests, mailbox, calls } = setup()
      mailbox.linkState = state
      expect(await requests.confirmRoll(TOKEN, '198.51.100.7')).toBe(state)
      expect(mailbox.confirmed).toEqual([{ token: TOKEN, confirmedFrom: hashOf('198.51.100.7') }])
      expect(calls).toEqual(state === 'valid' ? ['confirmRoll', 'mailDue'] : ['confirmRoll'])
    }
  })
})
