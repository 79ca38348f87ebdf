/** A bench run's results: medians per scenario and arm, ratios, the printed table and verdicts, and the JSON document. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import type { BatchStatements, RunFigures, SanityProblem } from './runner.ts'
import { type ArmKey, armKey, armLabel, type Load, type Reference, type Scenario } from './scenarios.ts'
import { loadAverages, median, pairedRpsRatio, round } from './support.ts'
import type { SurvivalMapOutcome } from './survival-map.ts'
import { type TargetCheck, THRESHOLDS } from './targets.ts'

export type ScenarioReport = ReturnType<typeof scenarioReport>
type Summary = ReturnType<typeof summarize>

export interface BenchOutcome {
  config: { durationS: number; rounds: number; warmupS: number }
  loadAtStart: number[]
  reference: { kind: Reference; description: string }
  points: { candidates: number; kept: number }
  reports: ScenarioReport[]
  /** Peak RSS over the whole run, MB, per process label. */
  rssMb: Record<string, number>
  statements: BatchStatements | null
  sanity: SanityProblem[]
  /** Server log messages at warn or above, by process and message, with how often each came. */
  serverWarnings: Map<string, number>
  /** null: not asked for in this run. */
  survivalMap: SurvivalMapOutcome | null
  targets: TargetCheck[]
}

const medianOf = (runs: readonly RunFigures[], pick: (run: RunFigures) => number | null | undefined) =>
  median(runs.map((run) => pick(run) ?? Number.NaN))

function summarize(runs: readonly RunFigures[]) {
  return {
    rps: round(
      medianOf(runs, (r) => r.rps),
      1,
    ),
    p50: round(
      medianOf(runs, (r) => r.p50),
      2,
    ),
    p90: round(
      medianOf(runs, (r) => r.p90),
      2,
    ),
    p99: round(
      medianOf(runs, (r) => r.p99),
      2,
    ),
    mean: round(
      medianOf(runs, (r) => r.mean),
      2,
    ),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    rssMaxMb: round(Math.max(...runs.map((r) => r.rssMaxMb)), 1),
    cpuUsPerRequest: {
      server: round(
        medianOf(runs, (r) => r.cpuUs?.server),
        1,
      ),
      postgres: round(
        medianOf(runs, (r) => r.cpuUs?.postgres),
        1,
      ),
      redis: round(
        medianOf(runs, (r) => r.cpuUs?.redis),
        1,
      ),
      loadGenerator: round(
        medianOf(runs, (r) => r.cpuUs?.loadGenerator),
        1,
      ),
    },
    idlePct: round(
      medianOf(runs, (r) => r.idlePct),
      1,
    ),
    repeated: runs.some((r) => r.repeated),
  }
}

const ratio = (of: number, to: number) => round(of / to, 3)

function compare(of: Summary, to: Summary) {
  return {
    rps: ratio(of.rps, to.rps),
    p50: ratio(of.p50, to.p50),
    p99: ratio(of.p99, to.p99),
    rss: ratio(of.rssMaxMb, to.rssMaxMb),
    cpuServer: ratio(of.cpuUsPerRequest.server, to.cpuUsPerRequest.server),
    cpuPostgres: ratio(of.cpuUsPerRequest.postgres, to.cpuUsPerRequest.postgres),
    cpuRedis: ratio(of.cpuUsPerRequest.redis, to.cpuUsPerRequest.redis),
    cpuLoadGenerator: ratio(of.cpuUsPerRequest.loadGenerator, to.cpuUsPerRequest.loadGenerator),
  }
}

/** The distinct bodies the server refused in a load, by status (null: the load does not track them). */
function refusedSummary(load: Load): { bodies: number; byStatus: Record<string, number> } | null {
  if (!load.refused) return null
  const byStatus: Record<string, number> = {}
  for (const status of load.refused.values()) byStatus[status] = (byStatus[status] ?? 0) + 1
  return { bodies: load.refused.size, byStatus }
}

export function scenarioReport(scenario: Scenario, runs: Partial<Record<ArmKey, RunFigures[]>>) {
  const arms = scenario.arms.map((arm) => ({
    key: armKey(arm),
    process: arm.process,
    label: armLabel(arm),
    path: arm.load.path,
    distinct_bodies: arm.load.bodies.length,
    /** Loads that skip what the server refuses (the stands): how many distinct bodies it refused, by status. */
    refused: refusedSummary(arm.load),
    median: summarize(runs[armKey(arm)] ?? []),
    runs: runs[armKey(arm)] ?? [],
  }))
  const armOf = (key: ArmKey) => {
    const arm = arms.find((candidate) => candidate.key === key)
    if (!arm) throw new Error(`${scenario.id} compares ${key}, which it does not run`)
    return arm
  }
  return {
    id: scenario.id,
    title: scenario.title,
    connections: scenario.connections,
    arms,
    comparisons: scenario.comparisons.map(({ of, to }) => {
      const [armA, armB] = [armOf(of), armOf(to)]
      const [a, b] = [armA.median, armB.median]
      return {
        of,
        to,
        label: `${armA.label} / ${armB.label}`,
        ratios: compare(a, b),
        pairedRps: round(pairedRpsRatio(armA.runs, armB.runs), 3),
        figures: {
          of: { rps: a.rps, p50: a.p50, p99: a.p99, cpuServer: a.cpuUsPerRequest.server },
          to: { rps: b.rps, p50: b.p50, p99: b.p99, cpuServer: b.cpuUsPerRequest.server },
        },
      }
    }),
  }
}

// --- the table -------------------------------------------------------------------------------------

const COLUMNS = [
  ['', 46],
  ['rps', 9],
  ['p50 ms', 8],
  ['p99 ms', 8],
  ['err/non2xx', 11],
  ['RSS MB', 7],
  ['server', 8],
  ['PostgreSQL', 11],
  ['Redis', 7],
  ['load gen', 9],
  ['idle %', 7],
] as const

function line(cells: readonly (string | number)[]): string {
  return COLUMNS.map(([, width], index) => {
    const text = String(cells[index] ?? '')
    return index === 0 ? text.padEnd(width) : text.padStart(width)
  })
    .join(' ')
    .trimEnd()
}

const whole = (value: number) => (Number.isFinite(value) ? String(Math.round(value)) : '-')
const times = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '-')

function armLine(label: string, m: Summary): string {
  const cpu = m.cpuUsPerRequest
  return line([
    `  ${label}${m.repeated ? ' *' : ''}`,
    m.rps.toFixed(1),
    m.p50,
    m.p99,
    `${m.errors}/${m.non2xx}`,
    m.rssMaxMb,
    whole(cpu.server),
    whole(cpu.postgres),
    whole(cpu.redis),
    whole(cpu.loadGenerator),
    m.idlePct,
  ])
}

function comparisonLine(comparison: ScenarioReport['comparisons'][number]): string {
  const r = comparison.ratios
  return line([
    `  ${comparison.label}`,
    times(r.rps),
    times(r.p50),
    times(r.p99),
    '',
    times(r.rss),
    times(r.cpuServer),
    times(r.cpuPostgres),
    times(r.cpuRedis),
    times(r.cpuLoadGenerator),
    '',
  ])
}

function printTable(outcome: BenchOutcome): void {
  const header = line(COLUMNS.map(([title]) => title))
  const cpuTitle = 'CPU µs per request'
  const cpuColumnsStart = COLUMNS.slice(0, 6).reduce((sum, [, width]) => sum + width + 1, 0)
  console.log(`\n${' '.repeat(cpuColumnsStart)}${cpuTitle}`)
  console.log(`${header}\n${'-'.repeat(header.length)}`)
  for (const report of outcome.reports) {
    console.log(`${report.id}: ${report.title}, ${report.connections} connections`)
    for (const arm of report.arms) console.log(armLine(arm.label, arm.median))
    for (const comparison of report.comparisons) console.log(comparisonLine(comparison))
  }
  const { rounds, durationS } = outcome.config
  console.log(
    `\nmedians of ${rounds} alternating round(s) of ${durationS} s; reference: ${outcome.reference.description}`,
  )
  console.log(
    'ratios (×) = first / second (rps: higher is better; latency, RSS and CPU per request: lower is better);',
  )
  console.log(
    'CPU per answered request of the server process, the PostgreSQL backends of its database, redis-server (all of it),',
  )
  console.log(
    'and the load generator (autocannon, in the bench process); idle % = share of all cores left idle during the run',
  )
  if (outcome.reports.some((report) => report.arms.some((arm) => arm.median.repeated)))
    console.log('* a run sent more requests than the load has distinct bodies, so some were asked twice')
  for (const report of outcome.reports)
    for (const arm of report.arms) {
      if (!arm.refused?.bodies) continue
      const statuses = Object.entries(arm.refused.byStatus).map(([status, count]) => `${count}× ${status}`)
      console.log(
        `${report.id} ${arm.label}: the server refused ${arm.refused.bodies} of ${arm.distinct_bodies} distinct bodies${statuses.length ? ` (${statuses.join(', ')})` : ''}; a refusal counts in its run's non2xx (warm-up aside), and that body is not sent again`,
      )
    }
}

function printSurvivalMap(map: SurvivalMapOutcome): void {
  if (!map.measured) {
    console.log(`\nsurvivalMap under a climate: not measured (${map.reason})`)
    return
  }
  const { request: r, medianMs: m } = map
  console.log(
    `\nsurvivalMap ${r.speciesCode} ${r.plantingMethod} ${r.horizon} y ${r.cellKm} km (${map.cells} cells), medians of ${map.repetitions} fresh processes each, primed by a ${r.primingSpecies} map:`,
  )
  console.log(`  today:                  first ${m.todayFirstMs} ms, second ${m.todaySecondMs} ms`)
  console.log(
    `  ${`${r.climate.period} ${r.climate.scenario}:`.padEnd(23)} first ${m.climateFirstMs} ms, second ${m.climateSecondMs} ms`,
  )
  console.log(
    `  under the climate after today's map (today's values cached): first ${m.climateAfterTodayMs} ms`,
  )
  console.log(`  a fresh process's very first map (the priming one): ${m.primingMs} ms`)
}

/** The table, RSS peaks, the batch statement count, warnings, problems, the survival map and a verdict per target. */
export function printReport(outcome: BenchOutcome): void {
  if (outcome.reports.length) {
    printTable(outcome)
    const { candidates, kept } = outcome.points
    console.log(
      `\npoints: ${kept} distinct coordinates answered by every server (of ${candidates} candidates)`,
    )
    console.log(
      `RSS max over each whole process (with the pre-pass): ${Object.entries(outcome.rssMb)
        .map(([label, mb]) => `${label} ${mb} MB`)
        .join(', ')}`,
    )
  }
  if (outcome.statements) console.log(`batch statements: ${outcome.statements.note}`)
  for (const [message, count] of outcome.serverWarnings) console.log(`logged ${count}× at warn+: ${message}`)
  for (const { scenario, target, problem } of outcome.sanity)
    console.log(`sanity problem in ${scenario} on ${target}: ${problem}`)
  if (outcome.survivalMap) printSurvivalMap(outcome.survivalMap)
  console.log('\ntargets (thresholds in bench/targets.ts):')
  for (const t of outcome.targets) {
    const verdict = t.pass === null ? 'N/A ' : t.pass ? 'PASS' : 'FAIL'
    console.log(`  ${verdict}  ${t.target}: ${t.detail}`)
  }
}

/** Writes the run as JSON to bench/results/latest.json (every run's figures too); returns the file. */
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
      order: 'per scenario and round: each arm in turn (A B A B…)',
    },
    reference: outcome.reference,
    points: outcome.points,
    scenarios: outcome.reports,
    rss_mb: { ...outcome.rssMb, project_limit: THRESHOLDS.rssMb },
    batch_statements: outcome.statements,
    sanity_problems: outcome.sanity,
    server_warnings: Object.fromEntries(outcome.serverWarnings),
    survival_map: outcome.survivalMap,
    targets: outcome.targets,
  }
  mkdirSync(new URL('results/', import.meta.url), { recursive: true })
  const outFile = new URL('results/latest.json', import.meta.url)
  writeFileSync(outFile, `${JSON.stringify(document, null, 2)}\n`)
  return outFile
}
