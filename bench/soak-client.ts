/**
 * The soak's client side: one keep-alive HTTP agent for every lane, a call described by what it sends and
 * the statuses it may get, and a tally per lane of what came back (counts by status, calls that got
 * something else, a sample of latencies).
 */
import { Agent, request } from 'node:http'

export interface Call {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT'
  path: string
  body?: string | Buffer
  headers?: Record<string, string>
  /** The statuses this call may answer with; anything else is counted as unexpected. */
  expect: readonly number[]
  /** A further check of a 2xx answer's text: null when it is right, else what is wrong. */
  check?: (text: string) => string | null
  /** A refusal's `error.code` (REST's error body), when the call is meant to be refused. */
  code?: string
}

/** What is wrong with a refusal's body, given the code it should carry; null when it carries it. */
function refusalProblem(text: string, code: string): string | null {
  try {
    const found = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code
    return found === code ? null : `error code ${String(found)} (expected ${code})`
  } catch {
    return `a refusal without a JSON body (expected ${code}): ${text.slice(0, 100)}`
  }
}

export interface Answer {
  status: number
  text: string
}

/** Sends calls to one server over kept-alive connections. */
export class SoakClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 })

  constructor(private readonly base: URL) {}

  send(call: Call): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const body = call.body === undefined ? undefined : Buffer.from(call.body)
      const req = request(
        {
          agent: this.agent,
          host: this.base.hostname,
          port: this.base.port,
          method: call.method,
          path: call.path,
          headers: {
            ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}),
            ...call.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          )
          res.on('error', reject)
        },
      )
      req.setTimeout(120_000, () => req.destroy(new Error(`${call.method} ${call.path}: no answer in 120 s`)))
      req.on('error', reject)
      req.end(body)
    })
  }

  close(): void {
    this.agent.destroy()
  }
}

const SAMPLE_SIZE = 10_000
const KEPT_PROBLEMS = 5

/** What one lane got back. */
export class LaneTally {
  calls = 0
  unexpected = 0
  readonly statuses = new Map<number, number>()
  readonly problems: string[] = []
  private readonly latencies: number[] = []

  constructor(readonly lane: string) {}

  /** One call's outcome: its status, how long it took, and what was wrong with it (null: nothing). */
  record(status: number, ms: number, problem: string | null): void {
    this.calls += 1
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
    // Reservoir sampling keeps a fair sample of the latencies however long the soak runs.
    if (this.latencies.length < SAMPLE_SIZE) this.latencies.push(ms)
    else {
      const slot = Math.floor(Math.random() * this.calls)
      if (slot < SAMPLE_SIZE) this.latencies[slot] = ms
    }
    if (problem === null) return
    this.unexpected += 1
    if (this.problems.length < KEPT_PROBLEMS) this.problems.push(problem.slice(0, 300))
  }

  /** A latency percentile of the sample, ms. */
  percentile(share: number): number {
    if (this.latencies.length === 0) return Number.NaN
    const sorted = [...this.latencies].sort((a, b) => a - b)
    return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number
  }
}

/** Sends the call and records it in the tally: its status must be one it expects and pass its check. */
export async function sendAndRecord(
  client: SoakClient,
  tally: LaneTally,
  call: Call,
): Promise<Answer | null> {
  const started = performance.now()
  const label = `${call.method} ${call.path.slice(0, 80)}`
  try {
    const answer = await client.send(call)
    const ms = performance.now() - started
    let problem: string | null = null
    if (!call.expect.includes(answer.status))
      problem = `${label}: ${answer.status} (expected ${call.expect.join(' or ')}): ${answer.text.slice(0, 200)}`
    else {
      const wrong =
        answer.status < 300
          ? (call.check?.(answer.text) ?? null)
          : call.code
            ? refusalProblem(answer.text, call.code)
            : null
      if (wrong) problem = `${label}: ${wrong}`
    }
    tally.record(answer.status, ms, problem)
    return answer
  } catch (error) {
    tally.record(0, performance.now() - started, `${label}: ${(error as Error).message}`)
    return null
  }
}
