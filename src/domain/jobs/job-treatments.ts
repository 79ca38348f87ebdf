import { overDefaults } from '../treatment-fields.ts'
import type { TreatmentsRequest } from '../treatment-values.ts'
import type { InputRow } from './file-formats.ts'

/**
 * A row with its job's default treatments under its own (docs/jobs.md → Treatments): each treatment
 * the row leaves out (an empty cell, a null property) is the default's. Applied as the row is stored,
 * so a row is scored as it was checked; whether a treatment applies to the row's planting method is
 * judged when it is scored (invalid_treatment fails that row alone). Without defaults, the row as it is.
 */
export function withJobTreatments(row: InputRow, defaults: TreatmentsRequest | undefined): InputRow {
  if (!defaults) return row
  if (row.q) return { ...row, q: { ...row.q, treatments: overDefaults(row.q.treatments, defaults) } }
  if (row.p) return { ...row, p: { ...row.p, treatments: overDefaults(row.p.treatments, defaults) } }
  return row
}
