import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

export interface ServerProcess {
  child: ChildProcess
  url: string
  output: () => string
  /** SIGTERM (or the given signal) and the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** `npm start`: src/main.ts under tsx. */
export const SOURCE_ENTRY = ['--import', 'tsx', 'src/main.ts']

/**
 * The server in a child process (`npm start`'s entry point unless `entry` names another, e.g. a
 * compiled main.js), ready once /v1/health answers.
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  entry: readonly string[] = SOURCE_ENTRY,
): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, entry, {
    env: {
      ...process.env,
      DATABASE_URL: undefined,
      REDIS_URL: undefined,
      LOG_LEVEL: 'warn',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null) child.kill(signal)
    return exited
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    try {
      if ((await fetch(`${url}/v1/health`)).ok) return { child, url, output: () => output, stop }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  child.kill('SIGKILL')
  throw new Error(`server did not answer /v1/health within ${timeoutMs} ms:\n${output}`)
}
