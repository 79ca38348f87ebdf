/**
 * How one load window of a project server is profiled (BENCH_PROFILE_DIR, bench/runner.ts):
 *
 * - `v8` (default): the server's own sampling profiler, started and stopped by SIGUSR2
 *   (bench/profile-hook.mjs), written as `<label>.cpuprofile`. It samples wall time: a syscall during which
 *   the process is preempted (two shared cores) is charged as if it were spent.
 * - `perf` (BENCH_PROFILER=perf): Linux `perf record` of the server's threads on the cpu-clock, written as
 *   `<label>.perf.txt` (`perf script` stacks). It counts only time on a CPU, the GC and compiler threads
 *   and the kernel's socket work included, and resolves JavaScript frames through `--perf-basic-prof`.
 *   That map only grows: where V8 has freed code and put other code at its address, a frame can carry
 *   the old function's name (seen: zod's start-up code generator standing for the event loop's
 *   microtasks). Its kernel, GC, compiler and Node-native totals hold; take the split between
 *   JavaScript steps from the `v8` profile.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './support.ts'

export type ProfilerKind = 'v8' | 'perf'

const PROFILER_KINDS: readonly ProfilerKind[] = ['v8', 'perf']

/** BENCH_PROFILER: unset or empty means `v8`; anything but a known profiler is refused, not guessed at. */
export function profilerKind(setting: string | undefined): ProfilerKind {
  if (setting === undefined || setting === '') return 'v8'
  if ((PROFILER_KINDS as readonly string[]).includes(setting)) return setting as ProfilerKind
  throw new Error(`BENCH_PROFILER must be ${PROFILER_KINDS.join(' or ')}, not ${JSON.stringify(setting)}`)
}

export const PROFILER: ProfilerKind = profilerKind(process.env.BENCH_PROFILER)

/** perf's sampling frequency (Hz): each sample stands for 1/PERF_HZ s of CPU. */
export const PERF_HZ = 2999

/** The server's extra node flags when BENCH_PROFILE_DIR is set. */
export function profiledServerArgs(): string[] {
  if (!process.env.BENCH_PROFILE_DIR) return []
  return PROFILER === 'perf' ? ['--perf-basic-prof'] : ['--import', join(ROOT, 'bench/profile-hook.mjs')]
}

/** Fails at once, before any load, when perf is asked for and cannot record here. */
export function checkProfiler(): void {
  if (PROFILER !== 'perf') return
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' })
  } catch {
    throw new Error('BENCH_PROFILER=perf needs Linux perf (Debian: linux-perf)')
  }
}

export interface ProfileWindow {
  /** Stops the profile and writes it; resolves once it is on disk. */
  stop(): Promise<void>
}

/** Starts profiling `pid` for one window, its output named `label` in `dir`. */
export async function startProfile(pid: number, dir: string, label: string): Promise<ProfileWindow> {
  return PROFILER === 'perf' ? startPerf(pid, dir, label) : startV8(pid, dir, label)
}

async function startV8(pid: number, dir: string, label: string): Promise<ProfileWindow> {
  writeFileSync(join(dir, 'next-label'), label)
  rmSync(join(dir, `${label}.done`), { force: true })
  process.kill(pid, 'SIGUSR2')
  await sleep(200)
  return {
    async stop() {
      process.kill(pid, 'SIGUSR2')
      const written = await waitFor(() => existsSync(join(dir, `${label}.done`)), 30_000)
      if (!written) throw new Error(`pid ${pid} wrote no profile for ${label}`)
    },
  }
}

async function startPerf(pid: number, dir: string, label: string): Promise<ProfileWindow> {
  const data = join(dir, `${label}.perf.data`)
  const recorder = spawn(
    'perf',
    ['record', '-e', 'cpu-clock', '-F', String(PERF_HZ), '-g', '-p', String(pid), '-o', data],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  recorder.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  await sleep(500)
  if (recorder.exitCode !== null) throw new Error(`perf record stopped at once: ${stderr.trim()}`)
  return {
    async stop() {
      await stopped(recorder)
      const stacks = execFileSync('perf', ['script', '-F', 'ip,sym,dso', '-i', data], {
        maxBuffer: 1024 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      writeFileSync(join(dir, `${label}.perf.txt`), stacks)
      rmSync(data, { force: true })
    },
  }
}

function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGINT')
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (condition()) return true
    await sleep(50)
  }
  return false
}
