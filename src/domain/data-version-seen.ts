import type { BatchItemResult } from './prediction-types.ts'

/**
 * The site data version of a batch's answers, noted as its items pass through to be written (a batch's
 * items are made lazily, so they are not read twice): the first prediction's, or a plan's.
 */
export class DataVersionSeen {
  *through(items: Iterable<BatchItemResult>): Generator<BatchItemResult> {
    for (const item of items) {
      if (this.version === null && item.ok) this.version = item.prediction.site.dataVersion
      yield item
    }
  }

  note(version: string | null): void {
    this.version ??= version
  }

  version: string | null = null
}
