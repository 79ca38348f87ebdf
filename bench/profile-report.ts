/**
 * `npx tsx bench/profile-report.ts <dir>`: what the server does per request, from the load-window CPU
 * profiles `npm run bench` writes with BENCH_PROFILE_DIR=<dir> (bench/profile-hook.mjs, bench/runner.ts).
 *
 * Each sample is charged to the innermost frame on its stack that belongs to a step (parsing, input
 * checks, authentication, quota, the lookup, the model, JSON, headers, logging, metrics, …), so time in
 * V8 builtins and Node internals goes to the step that called them. Printed as µs of server CPU per
 * request (per batch for the batch scenarios) and as a share of the profiled CPU; idle time is left out.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

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
  { step: 'garbage collection', matches: (f) => f.functionName === '(garbage collector)' },
  { step: 'metrics', matches: (f) => /prom-client|src\/observability\/metrics/.test(f.url) },
  { step: 'logging', matches: (f) => /\/pino|sonic-boom|src\/logging|thread-stream/.test(f.url) },
  {
    step: 'quota',
    matches: (f) =>
      /src\/quota\/|ioredis|redis-parser|denque|cluster-key-slot|standard-as-callback/.test(f.url),
  },
  { step: 'authentication', matches: (f) => /src\/auth\/|src\/keys\//.test(f.url) },
  {
    step: 'the lookup call',
    matches: (f) => /src\/db\/|node_modules\/postgres\/|dataloader|src\/store-ports/.test(f.url),
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
      /src\/rest\/responses|src\/http-io\/json/.test(f.url) ||
      (f.url === '' && f.functionName === 'stringify'),
  },
  {
    step: 'parsing (body, route, query)',
    matches: (f) =>
      /src\/http-io\/body|src\/rest\/json-body|src\/rest\/router|src\/rest\/route\.|graphql\/language/.test(
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

function report(dir: string): void {
  const labels = readdirSync(dir)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => file.replace(/\.cpuprofile$/, ''))
    .sort()
  if (labels.length === 0)
    throw new Error(`no .cpuprofile in ${dir} (run npm run bench with BENCH_PROFILE_DIR=${dir})`)
  for (const label of labels) {
    const profile = JSON.parse(readFileSync(join(dir, `${label}.cpuprofile`), 'utf8')) as CpuProfile
    const run = JSON.parse(readFileSync(join(dir, `${label}.json`), 'utf8')) as {
      scenario: string
      arm: string
      requests: number
      rps: number
      cpuUs: { server: number | null } | null
    }
    const steps = [...stepsOf(profile)].sort((a, b) => b[1] - a[1])
    const total = steps.reduce((sum, [, us]) => sum + us, 0)
    console.log(
      `\n### ${run.scenario} (${run.arm}): ${run.requests.toLocaleString('en-US')} requests at ${run.rps} rps; profiled CPU ${(total / run.requests).toFixed(1)} µs/request (measured without the profiler: ${run.cpuUs?.server ?? '?'} µs)\n`,
    )
    console.log('| step | µs per request | share |')
    console.log('|---|---|---|')
    for (const [step, us] of steps)
      console.log(`| ${step} | ${(us / run.requests).toFixed(1)} | ${((100 * us) / total).toFixed(1)} % |`)
  }
}

report(process.argv[2] ?? 'bench/results/profile')
