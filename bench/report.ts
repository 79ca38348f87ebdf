/** A bench run's results: medians per scenario, the printed table and verdicts, and the JSON document. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import type { BatchStatements, RunFigures, SanityProblem } from './runner.ts'
import { type Scenario, TARGET_NAMES, type TargetName } from './scenarios.ts'
import { loadAverages, median, round } from './support.ts'
import { type TargetCheck, THRESHOLDS } from './targets.ts'

export type ScenarioReport = ReturnType<typeof scenarioReport>

export interface BenchOutcome {
  config: { durationS: number; rounds: number; warmupS: number }
  loadAtStart: number[]
  reports: ScenarioReport[]
  serverRss: number
  baselineRss: number
  statements: BatchStatements | null
  sanity: SanityProblem[]
  /** Server log messages at warn or above, with how often each came. */
  serverWarnings: Map<string, number>
  targets: TargetCheck[]
}

function summarize(runs: readonly RunFigures[]) {
  return {
    rps: round(median(runs.map((r) => r.rps)), 1),
    p50: round(median(runs.map((r) => r.p50)), 2),
    p90: round(median(runs.map((r) => r.p90)), 2),
    p99: round(median(runs.map((r) => r.p99)), 2),
    mean: round(median(runs.map((r) => r.mean)), 2),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    rssMaxMb: round(Math.max(...runs.map((r) => r.rssMaxMb)), 1),
    cpuMsPerRequest: round(median(runs.map((r) => r.cpuMsPerRequest ?? Number.NaN)), 3),
  }
}

export function scenarioReport(scenario: Scenario, runs: Record<TargetName, RunFigures[]>) {
  const server = summarize(runs.server)
  const baseline = summarize(runs.baseline)
  return {
    id: scenario.id,
    title: scenario.title,
    connections: scenario.connections,
    baseline_equivalent: scenario.baselineNote,
    server: { median: server, runs: runs.server },
    baseline: { median: baseline, runs: runs.baseline },
    ratios: {
      cpu_per_request: round(server.cpuMsPerRequest / baseline.cpuMsPerRequest, 3),
      rps: round(server.rps / baseline.rps, 3),
      p50: round(server.p50 / baseline.p50, 3),
      p99: round(server.p99 / baseline.p99, 3),
    },
  }
}

function pad(value: string | number, width: number, right = false): string {
  const text = String(value)
  return right ? text.padEnd(width) : text.padStart(width)
}

function printTable(rows: readonly ScenarioReport[], config: BenchOutcome['config']): void {
  const header = [
    pad('scenario', 18, true),
    pad('target', 9, true),
    pad('rps', 9),
    pad('p50 ms', 8),
    pad('p99 ms', 8),
    pad('err', 5),
    pad('non2xx', 7),
    pad('rps×', 6),
    pad('p50×', 6),
    pad('p99×', 6),
    pad('RSS MB', 7),
    pad('CPU ms/req', 10),
    pad('cpu×', 6),
  ].join(' ')
  console.log(`\n${header}\n${'-'.repeat(header.length)}`)
  for (const row of rows) {
    for (const target of TARGET_NAMES) {
      const m = row[target].median
      const ratio = target === 'server'
      console.log(
        [
          pad(target === 'server' ? row.id : '', 18, true),
          pad(target, 9, true),
          pad(m.rps, 9),
          pad(m.p50, 8),
          pad(m.p99, 8),
          pad(m.errors, 5),
          pad(m.non2xx, 7),
          pad(ratio ? row.ratios.rps.toFixed(2) : '1.00', 6),
          pad(ratio ? row.ratios.p50.toFixed(2) : '1.00', 6),
          pad(ratio ? row.ratios.p99.toFixed(2) : '1.00', 6),
          pad(m.rssMaxMb, 7),
          pad(m.cpuMsPerRequest, 10),
          pad(ratio ? row.ratios.cpu_per_request.toFixed(2) : '1.00', 6),
        ].join(' '),
      )
    }
  }
  console.log(
    `\nmedians of ${config.rounds} alternating rounds of ${config.durationS} s; ratios (×) = server / baseline (rps: higher is better; latency and CPU ms per request: lower is better)`,
  )
}

/** The table, the RSS peaks, the batch statement count, server warnings and a verdict per target. */
export function printReport(outcome: BenchOutcome): void {
  printTable(outcome.reports, outcome.config)
  console.log(`\nserver RSS max ${outcome.serverRss} MB, baseline RSS max ${outcome.baselineRss} MB`)
  if (outcome.statements) console.log(`batch statements: ${outcome.statements.note}`)
  for (const [message, count] of outcome.serverWarnings)
    console.log(`server logged ${count}× at warn+: ${message}`)
  console.log('\ntargets:')
  for (const t of outcome.targets) {
    const verdict = t.pass === null ? 'N/A ' : t.pass ? 'PASS' : 'FAIL'
    console.log(`  ${verdict}  ${t.target}: ${typeof t.measured === 'number' ? `${t.measured}` : t.measured}`)
  }
}

/** Writes the run as JSON to bench/results/latest.json and prints the same document; returns the file. */
export function writeResults(outcome: BenchOutcome): URL {
  const { config } = outcome
  const document = {
    generated_at: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model,
      node: process.version,
      load_average_at_start: outcome.loadAtStart,
      load_average_at_end: loadAverages(),
    },
    config: {
      duration_s: config.durationS,
      rounds: config.rounds,
      warmup_s: config.warmupS,
      order: 'per scenario: A B A B…',
    },
    scenarios: outcome.reports,
    rss_mb: { server_max: outcome.serverRss, baseline_max: outcome.baselineRss, limit: THRESHOLDS.rssMb },
    batch_statements: outcome.statements,
    sanity_problems: outcome.sanity,
    server_warnings: Object.fromEntries(outcome.serverWarnings),
    targets: outcome.targets,
  }
  mkdirSync(new URL('results/', import.meta.url), { recursive: true })
  const outFile = new URL('results/latest.json', import.meta.url)
  writeFileSync(outFile, `${JSON.stringify(document, null, 2)}\n`)
  console.log(`\n${JSON.stringify(document, null, 2)}`)
  return outFile
}
