/** Test helpers of the client and the scorer: a hookable HTTP proxy, and the scorer as a child process. */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const SCORER = 'clients/typescript/src/score.ts'

export interface ProxyHooks {
  /** Answer the request here instead of forwarding it (return true when answered). */
  answer?: (req: IncomingMessage, res: ServerResponse, seen: number) => boolean
  /** Hold the request this long before forwarding it. */
  delayMs?: (req: IncomingMessage) => number
  /** Forward at most this many bytes of the response body, then cut the connection. */
  cutAfterBytes?: (req: IncomingMessage, seen: number) => number | null
  /** Pause this long after each chunk of the response body. */
  chunkDelayMs?: (req: IncomingMessage) => number
  /** Hold the request, not forwarded, until `release()`. */
  hold?: (req: IncomingMessage, seen: number) => boolean
  /** Forward this many bytes of the response body, then hold the rest until `release()`. */
  stallAfterBytes?: (req: IncomingMessage, seen: number) => number | null
}

export interface TestProxy {
  url: string
  /** `METHOD path` of every request received, in order. */
  requests: string[]
  hooks: ProxyHooks
  /** Lets held requests and stalled responses go on. */
  release(): void
  close(): Promise<void>
}

/** An HTTP proxy in front of `target` (an `http://host:port` URL) whose behaviour the test steers. */
export async function startProxy(target: string, hooks: ProxyHooks = {}): Promise<TestProxy> {
  const { hostname, port } = new URL(target)
  const requests: string[] = []
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const proxy: TestProxy = { url: '', requests, hooks, release, close: async () => {} }
  const server: Server = createServer(async (req, res) => {
    const line = `${req.method} ${req.url}`
    requests.push(line)
    const seen = requests.filter((other) => other === line).length
    if (proxy.hooks.answer?.(req, res, seen)) return
    if (proxy.hooks.hold?.(req, seen)) await released
    const delay = proxy.hooks.delayMs?.(req) ?? 0
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
    const upstream = request(
      { host: hostname, port, method: req.method, path: req.url, headers: req.headers },
      async (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        const limit = proxy.hooks.cutAfterBytes?.(req, seen) ?? null
        const pause = proxy.hooks.chunkDelayMs?.(req) ?? 0
        const stall = proxy.hooks.stallAfterBytes?.(req, seen) ?? null
        let sent = 0
        let stalled = false
        for await (let chunk of answer as AsyncIterable<Buffer>) {
          // `>=`: a chunk that ends exactly at the stall point stalls too, not the one after it.
          if (stall !== null && !stalled && sent + chunk.length >= stall) {
            stalled = true
            await new Promise((resolve) => res.write(chunk.subarray(0, stall - sent), resolve))
            chunk = chunk.subarray(stall - sent)
            sent = stall
            await released
          }
          if (limit !== null && sent + chunk.length > limit) {
            // Flushed first, then the connection drops: the client has exactly `limit` bytes.
            res.write(chunk.subarray(0, limit - sent), () => setTimeout(() => res.socket?.destroy(), 50))
            answer.destroy()
            return
          }
          sent += chunk.length
          if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve))
          if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause))
        }
        res.end()
      },
    )
    upstream.on('error', () => res.socket?.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return proxy
}

/** An error envelope answer, as the API writes one. */
export function answerError(
  res: ServerResponse,
  status: number,
  code: string,
  headers: Record<string, string> = {},
): true {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `proxy-${code}`, ...headers })
  res.end(JSON.stringify({ error: { code, message: `${code} (from the test proxy)` } }))
  return true
}

export interface ScorerRun {
  child: ChildProcess
  /** Resolves with the exit code and everything written to stdout and stderr. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>
  stderr: () => string
}

/** `npm run score -- <args>` as a child process (stderr is a pipe, so progress comes as lines). */
export function startScorer(args: string[], env: Record<string, string | undefined>): ScorerRun {
  const child = spawn(process.execPath, ['--import', 'tsx', SCORER, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, SURVIVAL_API_KEY: undefined, SURVIVAL_API_URL: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  )
  return { child, done, stderr: () => stderr }
}

export const runScorer = (args: string[], env: Record<string, string | undefined>) =>
  startScorer(args, env).done

/** Polls `check` every 50 ms until it holds; past the deadline, fails naming what it waited for. */
export async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A scorer run's end within `timeoutMs`; past it, the run is killed and the failure names the step and
 * shows what the scorer said, so that a run that never stops is told apart from a slow one.
 */
export async function endsWithin(
  step: string,
  run: ScorerRun,
  timeoutMs = 45_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL')
      reject(new Error(`${step}: the scorer had not ended after ${timeoutMs} ms; it said:\n${run.stderr()}`))
    }, timeoutMs)
  })
  try {
    return await Promise.race([run.done, late])
  } finally {
    clearTimeout(timer)
  }
}
