/**
 * Progress on stderr: a bar with rate and ETA on a terminal (cli-progress), or, when stderr is not a
 * terminal (a log, CI, a pipe), a plain line every few seconds and one at the end:
 * `12,000/50,000 rows (24%), 3,100 rows/s, ETA 12 s`.
 */
import cliProgress from 'cli-progress'

/** What a phase counts: rows (a GeoJSON job's features) or bytes. */
export type Unit = 'rows' | 'features' | 'bytes'

/** ` rows` / ` features` after a count; nothing after bytes, which carry their own unit. */
const noun = (unit: Unit) => (unit === 'bytes' ? '' : ` ${unit}`)

/**
 * More to say after the rate, from the count and its rate (null until known): e.g. a byte count's
 * `~3,100 rows/s`. Null or empty: nothing.
 */
export type Also = (value: number, perSecond: number | null) => string | null

export interface Progress {
  /**
   * A new phase: `label` (may be empty), what is counted, the total when known, the starting value, and
   * what else to show (`also`).
   */
  start(label: string, unit: Unit, total: number | null, value?: number, also?: Also): void
  update(value: number, total?: number | null): void
  stop(): void
}

export interface ProgressOptions {
  stream?: NodeJS.WriteStream
  /** Plain lines: how often (default 2000 ms). */
  everyMs?: number
  /** Override the terminal test. */
  tty?: boolean
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })

/** `12,000` (rows, features), or bytes in B, KiB, MiB or GiB. */
export function amount(value: number, unit: Unit): string {
  if (unit !== 'bytes') return integer.format(value)
  if (value < 1024) return `${integer.format(value)} B`
  if (value < 1024 ** 2) return `${decimal.format(value / 1024)} KiB`
  if (value < 1024 ** 3) return `${decimal.format(value / 1024 ** 2)} MiB`
  return `${decimal.format(value / 1024 ** 3)} GiB`
}

export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

/** `12,000/50,000 rows (24%), 3,100 rows/s, ETA 12 s` (parts dropped when not known yet). */
export function progressLine(
  unit: Unit,
  value: number,
  total: number | null,
  perSecond: number | null,
  etaSeconds: number | null,
): string {
  const counted = total === null ? amount(value, unit) : `${amount(value, unit)}/${amount(total, unit)}`
  let line = `${counted}${noun(unit)}`
  if (total !== null && total > 0) line += ` (${Math.floor((value / total) * 100)}%)`
  if (perSecond !== null) line += `, ${amount(perSecond, unit)}${noun(unit)}/s`
  if (etaSeconds !== null) line += `, ETA ${duration(etaSeconds)}`
  return line
}

export function createProgress(options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr
  const tty = options.tty ?? Boolean(stream.isTTY)
  return tty ? barProgress(stream) : lineProgress(stream, options.everyMs ?? 2000)
}

/** Rate over the phase so far, and the time left at that rate. */
function pace(startedAt: number, startValue: number, value: number, total: number | null) {
  const seconds = (Date.now() - startedAt) / 1000
  const done = total !== null && value >= total
  const perSecond =
    (seconds >= 0.5 || done) && seconds > 0 && value > startValue ? (value - startValue) / seconds : null
  const eta = done ? 0 : perSecond && total !== null ? Math.max(0, total - value) / perSecond : null
  return { perSecond, eta }
}

/** Lines only when the count moved since the last one (or, while it stalls, every 30 s). */
function lineProgress(stream: NodeJS.WriteStream, everyMs: number): Progress {
  const HEARTBEAT_MS = 30_000
  let label = ''
  let unit: Unit = 'rows'
  let total: number | null = null
  let value = 0
  let startValue = 0
  let startedAt = 0
  let timer: NodeJS.Timeout | null = null
  let printedValue: number | null = null
  let printedAt = 0
  let also: Also | undefined
  const print = (force: boolean) => {
    if (!force && value === printedValue && Date.now() - printedAt < HEARTBEAT_MS) return
    const { perSecond, eta } = pace(startedAt, startValue, value, total)
    const more = also?.(value, perSecond)
    const line = `${progressLine(unit, value, total, perSecond, eta)}${more ? `, ${more}` : ''}`
    stream.write(`${label ? `${label}: ` : ''}${line}\n`)
    printedValue = value
    printedAt = Date.now()
  }
  const stop = () => {
    if (!timer) return
    clearInterval(timer)
    timer = null
    if (value !== printedValue) print(true)
  }
  return {
    start(nextLabel, nextUnit, nextTotal, from = 0, nextAlso) {
      stop()
      ;[label, unit, total, value, startValue, startedAt] = [
        nextLabel,
        nextUnit,
        nextTotal,
        from,
        from,
        Date.now(),
      ]
      also = nextAlso
      printedValue = null
      timer = setInterval(() => print(false), everyMs)
      timer.unref()
    },
    update(next, nextTotal) {
      value = next
      if (nextTotal !== undefined) total = nextTotal
    },
    stop,
  }
}

function barProgress(stream: NodeJS.WriteStream): Progress {
  let bar: cliProgress.SingleBar | null = null
  let unit: Unit = 'rows'
  let total: number | null = null
  let value = 0
  let startValue = 0
  let startedAt = 0
  let also: Also | undefined
  const payload = () => {
    const { perSecond, eta } = pace(startedAt, startValue, value, total)
    const more = also?.(value, perSecond)
    return {
      counted: total === null ? amount(value, unit) : `${amount(value, unit)}/${amount(total, unit)}`,
      rate: perSecond === null ? '…' : `${amount(perSecond, unit)}${noun(unit)}/s`,
      also: more ? ` | ${more}` : '',
      left: eta === null ? '…' : duration(eta),
    }
  }
  const stop = () => {
    if (!bar) return
    bar.update(value, payload())
    bar.stop()
    bar = null
  }
  return {
    start(label, nextUnit, nextTotal, from = 0, nextAlso) {
      stop()
      ;[unit, total, value, startValue, startedAt] = [nextUnit, nextTotal, from, from, Date.now()]
      also = nextAlso
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label ? `${label} ` : ''}{bar} {percentage}% | {counted}${noun(unit)} | {rate}{also} | ETA {left}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      )
      bar.start(total ?? 0, from, payload())
    },
    update(next, nextTotal) {
      value = next
      if (nextTotal !== undefined && nextTotal !== null && bar) bar.setTotal(nextTotal)
      if (nextTotal !== undefined) total = nextTotal
      bar?.update(value, payload())
    },
    stop,
  }
}
