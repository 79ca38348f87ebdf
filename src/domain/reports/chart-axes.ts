import type { Axis } from './report-document.ts'

/** A step of 1, 2 or 5 × 10ⁿ giving about `count` intervals over `span`. */
function niceStep(span: number, count: number): number {
  const raw = span / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].find((factor) => factor * power >= raw) ?? 10
  return step * power
}

/**
 * An axis from zero (or `min`) to a round number at or above every value, with ticks at round steps,
 * each labelled by `format`.
 */
export function valueAxis(
  label: string,
  values: readonly number[],
  format: (value: number) => string,
  {
    min = 0,
    count = 5,
    whole = false,
  }: { min?: number; count?: number /** Counts: steps of at least 1. */; whole?: boolean } = {},
): Axis {
  const highest = Math.max(min, ...values)
  const nice = niceStep(highest > min ? highest - min : 1, count)
  const step = whole ? Math.max(1, nice) : nice
  const max = min + Math.ceil((highest - min) / step) * step || min + step
  const ticks = []
  for (let i = 0; min + i * step <= max + step / 1e6; i++) {
    const value = Number((min + i * step).toPrecision(12))
    ticks.push({ value, label: format(value) })
  }
  return { label, min, max, ticks }
}

/** A probability axis: 0 to 1 by 0.2. */
export function probabilityAxis(label: string, format: (value: number) => string): Axis {
  return valueAxis(label, [1], format, { count: 5 })
}

/** The horizons (1, 3, 5 years) along an axis from 0 to 6, a tick at each. */
export function horizonAxis(label: string, horizons: readonly number[]): Axis {
  return { label, min: 0, max: 6, ticks: horizons.map((years) => ({ value: years, label: String(years) })) }
}
