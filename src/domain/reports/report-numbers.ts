import type { ReportLanguage } from './report-document.ts'

const LOCALES: Record<ReportLanguage, string> = { en: 'en-US', es: 'es-ES' }

/**
 * How a report prints each kind of number, in its language's notation (Spanish: decimal comma). A
 * printed number is the answer's, rounded as documented in docs/reports.md → Numbers:
 * probabilities, shares and log-odds to 3 decimals; trees to at most 1 decimal (planted to 2);
 * coordinates to at most 5; km to 2; hectares to at most 2; ratios to at most 3; climate figures to at
 * most 1; ids as they are.
 */
export class ReportNumbers {
  private readonly formats = new Map<string, Intl.NumberFormat>()

  constructor(readonly language: ReportLanguage) {}

  /** Exactly `decimals` places. */
  fixed(value: number, decimals: number): string {
    return this.format(value, decimals, decimals)
  }

  /** At most `decimals` places, trailing zeros dropped. */
  upTo(value: number, decimals: number): string {
    return this.format(value, 0, decimals)
  }

  probability(value: number): string {
    return this.fixed(value, 3)
  }

  /** Log-odds: factor magnitudes, calibration offsets. */
  logOdds(value: number): string {
    return this.fixed(value, 3)
  }

  trees(value: number): string {
    return this.upTo(value, 1)
  }

  planted(value: number): string {
    return this.upTo(value, 2)
  }

  coordinate(value: number): string {
    return this.upTo(value, 5)
  }

  km(value: number): string {
    return this.fixed(value, 2)
  }

  hectares(value: number): string {
    return this.upTo(value, 2)
  }

  ratio(value: number): string {
    return this.upTo(value, 3)
  }

  climate(value: number): string {
    return this.upTo(value, 1)
  }

  count(value: number): string {
    return this.upTo(value, 0)
  }

  /** Ids are names, not quantities: no grouping, no rounding. */
  id(value: number): string {
    return String(value)
  }

  private format(value: number, min: number, max: number): string {
    const key = `${min}:${max}`
    let format = this.formats.get(key)
    if (!format) {
      format = new Intl.NumberFormat(LOCALES[this.language], {
        minimumFractionDigits: min,
        maximumFractionDigits: max,
      })
      this.formats.set(key, format)
    }
    // No "-0": a value that rounds to zero is printed as zero.
    const text = format.format(value)
    return /^-0([.,]0*)?$/.test(text) ? text.slice(1) : text
  }
}
