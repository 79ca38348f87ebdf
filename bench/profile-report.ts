/**
 * `npm run bench:profile -- <dir>`: what the server does per request, from the load-window
 * profiles `npm run bench` writes with BENCH_PROFILE_DIR=<dir> (bench/window-profiler.ts): V8's
 * `.cpuprofile`, or perf's `.perf.txt` with BENCH_PROFILER=perf.
 *
 * Each sample is charged to the innermost frame on its stack that belongs to a step (parsing, input
 * checks, authentication, quota, the lookup, the model, JSON, headers, logging, metrics, …), so time in
 * V8 builtins and Node internals goes to the step that called them. perf's samples also hold the time
 * spent in the kernel (its own step), on V8's GC threads (garbage collection) and its compiler threads.
 * Printed as µs of server CPU per request (per batch for the batch scenarios) and as a share of the
 * profiled CPU; idle time is left out.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PERF_HZ } from './window-profiler.ts'

interface CallFrame {
  functionName: string
  url: string
}
interface ProfileNode {
  id: number
  callFrame: CallFrame
  parent?: number
  children?: number[]
}
interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** A step and how to recognise its frames; the first rule a frame meets names its step. */
const STEPS: readonly { step: string; matches: (frame: CallFrame) => boolean }[] = [
  { step: 'kernel (socket reads and writes on loopback TCP)', matches: (f) => f.url === '[kernel]' },
  { step: 'JIT compilation (V8 compiler threads)', matches: (f) => f.functionName === '(compiler)' },
  { step: 'garbage collection', matches: (f) => f.functionName === '(garbage collector)' },
  { step: 'metrics', matches: (f) => /prom-client|src\/observability\/metrics/.test(f.url) },
  { step: 'logging', matches: (f) => /\/pino|sonic-boom|src\/logging|thread-stream/.test(f.url) },
  {
    step: 'quota',
    matches: (f) =>
      /src\/access\/quota\/|ioredis|redis-parser|denque|cluster-key-slot|standard-as-callback/.test(f.url),
  },
  { step: 'authentication', matches: (f) => /src\/access\//.test(f.url) },
  {
    step: 'the lookup call',
    matches: (f) => /src\/db\/|node_modules\/postgres\/|dataloader/.test(f.url),
  },
  {
    step: 'the model',
    matches: (f) =>
      /src\/model\/|src\/stats\/|src\/domain\/(prediction-service|climate|site-class|species)/.test(f.url),
  },
  {
    step: 'input checks',
    matches: (f) =>
      /node_modules\/zod|src\/domain\/input-rules|src\/rest\/request-schemas|graphql\/validation/.test(f.url),
  },
  {
    step: 'JSON (answer)',
    matches: (f) =>
      /src\/rest\/responses|src\/rest\/prediction-writer|src\/http-body\/json/.test(f.url) ||
      (f.url === '' && f.functionName === 'stringify'),
  },
  {
    step: 'parsing (body, route, query)',
    matches: (f) =>
      /src\/http-body\/body|src\/rest\/json-body|src\/rest\/router|src\/rest\/route\.|graphql\/language/.test(
        f.url,
      ) ||
      (f.url === '' && f.functionName === 'parse'),
  },
  {
    step: 'headers and writing the response',
    matches: (f) => /node:_http_outgoing|src\/http\/request-id|node:_http_server.*writeHead/.test(f.url),
  },
  {
    step: 'GraphQL execution (yoga, envelop, graphql-js, Pothos, resolvers)',
    matches: (f) =>
      /graphql-yoga|@envelop|@graphql|graphql\/execution|graphql\/jsutils|@pothos|src\/graphql\//.test(f.url),
  },
  {
    step: 'routing and access (REST handlers)',
    matches: (f) => /src\/rest\/|src\/http\/|src\/domain\//.test(f.url),
  },
  {
    step: 'HTTP parsing and sockets (Node)',
    matches: (f) => /^node:/.test(f.url) || f.functionName === '(program)',
  },
]

function stepsOf(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  for (const node of profile.nodes)
    for (const child of node.children ?? []) (byId.get(child) as ProfileNode).parent = node.id
  const stepOfNode = new Map<number, string>()
  const stepOf = (id: number): string => {
    const known = stepOfNode.get(id)
    if (known) return known
    let step = 'other'
    for (
      let node = byId.get(id);
      node;
      node = node.parent === undefined ? undefined : byId.get(node.parent)
    ) {
      const rule = STEPS.find((candidate) => candidate.matches(node.callFrame))
      if (rule) {
        step = rule.step
        break
      }
    }
    stepOfNode.set(id, step)
    return step
  }
  const micros = new Map<string, number>()
  profile.samples.forEach((id, index) => {
    const node = byId.get(id)
    if (node?.callFrame.functionName === '(idle)') return
    const step = stepOf(id)
    micros.set(step, (micros.get(step) ?? 0) + (profile.timeDeltas[index] ?? 0))
  })
  return micros
}

/** The step of one stack, innermost frame first. */
function stepOfStack(frames: readonly CallFrame[]): string {
  for (const frame of frames) {
    const rule = STEPS.find((candidate) => candidate.matches(frame))
    if (rule) return rule.step
  }
  return 'other'
}

/**
 * A `perf script -F ip,sym,dso` frame as a call frame: JavaScript ones (`JS:*name url:line:col`, from
 * --perf-basic-prof) by name and script; V8's GC, compiler and JSON code under the names the rules know.
 */
function perfFrame(line: string): CallFrame {
  const text = line.trim().replace(/^[0-9a-f]+ /, '')
  const dso = /\(([^()]*)\)$/.exec(text)?.[1] ?? ''
  const symbol = text.slice(0, text.length - dso.length - 2).trim()
  if (dso === '[kernel.kallsyms]') return { functionName: symbol, url: '[kernel]' }
  const js = /^JS:[*^~+]?(\S*) (.*?)(:\d+:\d+)?$/.exec(symbol)
  if (js) return { functionName: js[1] ?? '', url: js[2] ?? '' }
  if (
    /Scavenger|MarkCompact|ConcurrentMark|Sweeper|MinorMarkSweep|MarkingVisitor|GCTracer|ArrayBufferSweeper|Heap::CollectGarbage/.test(
      symbol,
    )
  )
    return { functionName: '(garbage collector)', url: '' }
  if (/OptimizingCompileDispatcher|v8::internal::compiler::|Builtins_CompileLazy/.test(symbol))
    return { functionName: '(compiler)', url: '' }
  if (/JsonStringifier|Builtins_JsonStringify/.test(symbol)) return { functionName: 'stringify', url: '' }
  if (/JsonParser|Builtins_JsonParse/.test(symbol)) return { functionName: 'parse', url: '' }
  // libuv, llhttp and Node's C++ (the event loop, stream reads, the HTTP parser): Node's own work.
  if (/^(uv_|uv__|llhttp_|node::)/.test(symbol)) return { functionName: symbol, url: 'node:native' }
  return { functionName: symbol, url: '' }
}

/** µs by step from perf's stacks: one sample is 1/PERF_HZ s of CPU on some thread of the server. */
function stepsOfPerf(text: string): Map<string, number> {
  const micros = new Map<string, number>()
  const sampleUs = 1e6 / PERF_HZ
  for (const block of text.split(/\n\s*\n/)) {
    const frames = block
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(perfFrame)
    if (frames.length === 0) continue
    // A sample whose innermost frame is the kernel's is the kernel's, whichever call brought it there.
    const step = frames[0]?.url === '[kernel]' ? (STEPS[0]?.step as string) : stepOfStack(frames)
    micros.set(step, (micros.get(step) ?? 0) + sampleUs)
  }
  return micros
}

function report(dir: string): void {
  const files = readdirSync(dir)
  const profiles = files.filter((file) => file.endsWith('.cpuprofile') || file.endsWith('.perf.txt')).sort()
  if (profiles.length === 0)
    throw new Error(`no .cpuprofile or .perf.txt in ${dir} (run npm run bench with BENCH_PROFILE_DIR=${dir})`)
  for (const file of profiles) {
    const perf = file.endsWith('.perf.txt')
    const label = file.replace(/\.(cpuprofile|perf\.txt)$/, '')
    const text = readFileSync(join(dir, file), 'utf8')
    const run = JSON.parse(readFileSync(join(dir, `${label}.json`), 'utf8')) as {
      scenario: string
      arm: string
      requests: number
      rps: number
      cpuUs: { server: number | null } | null
    }
    const steps = [...(perf ? stepsOfPerf(text) : stepsOf(JSON.parse(text) as CpuProfile))].sort(
      (a, b) => b[1] - a[1],
    )
    const total = steps.reduce((sum, [, us]) => sum + us, 0)
    console.log(
      `\n### ${run.scenario} (${run.arm}), ${perf ? 'perf' : 'V8 profiler'}: ${run.requests.toLocaleString('en-US')} requests at ${run.rps} rps; profiled CPU ${(total / run.requests).toFixed(1)} µs/request (measured without the profiler: ${run.cpuUs?.server ?? '?'} µs)\n`,
    )
    console.log('| step | µs per request | share |')
    console.log('|---|---|---|')
    for (const [step, us] of steps)
      console.log(`| ${step} | ${(us / run.requests).toFixed(1)} | ${((100 * us) / total).toFixed(1)} % |`)
  }
}

report(process.argv[2] ?? 'bench/results/profile')
