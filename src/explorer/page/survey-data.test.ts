import { describe, expect, it } from 'vitest'
import {
  differenceInterval,
  plotsNote,
  REFUSED_SHOWN,
  type SurveyRefusal,
  type SurveyReport,
  speciesMethodGroups,
  survivalInterval,
  uploadSummary,
} from './survey-data.ts'

const refusal = (row: number): SurveyRefusal => ({
  row,
  plot_id: `p-${row}`,
  field: 'alive',
  code: 'invalid_request',
  reason: 'must be at most planted (40)',
})

describe('the Observations tab in words', () => {
  it('writes intervals of survival and of a difference with a real minus', () => {
    expect(survivalInterval({ low: 0.7213, high: 0.8234 })).toBe('72.1–82.3%')
    expect(differenceInterval({ low: -0.081, high: 0.028 })).toBe('−8.1 to +2.8 pp')
  })

  it('keeps the species × method groups of a report, not their age bands', () => {
    const group = (speciesCode: string, ageBand: 'UNDER_2' | null) => ({ speciesCode, ageBand })
    const report = {
      groups: [group('PSME', null), group('PSME', 'UNDER_2'), group('THPL', null)],
    } as unknown as SurveyReport
    expect(speciesMethodGroups(report).map((g) => g.speciesCode)).toEqual(['PSME', 'THPL'])
  })

  it('says an upload refused stored nothing, and lists its refused rows', () => {
    const summary = uploadSummary(
      { kind: 'refused', refusal: { upload_id: 'upl_1', rows: 4, refused_rows: 1, refused: [refusal(2)] } },
      'plots.csv',
    )
    expect(summary).toMatchObject({ stored: false, notListed: 0, uploadId: 'upl_1' })
    expect(summary.text).toBe(
      'plots.csv: nothing was stored. 1 of 4 rows was refused (below). Fix it and upload again, or tick “Store the valid rows, report the rest”.',
    )
    expect(summary.refused).toEqual([refusal(2)])
  })

  it('says how many rows an upload stored, lists at most the first refused rows and counts the rest', () => {
    const refused = Array.from({ length: 150 }, (_, i) => refusal(i + 1))
    const summary = uploadSummary(
      {
        kind: 'stored',
        upload: {
          upload_id: 'upl_2',
          status: 'committed',
          rows: 400,
          valid_rows: 250,
          refused_rows: 150,
          stored: 250,
          ignored_columns: ['crew'],
          refused,
          next_cursor: 'x',
        },
      },
      'big.csv',
    )
    expect(summary.text).toBe(
      'big.csv: stored 250 of 400 rows. 150 rows refused and not stored (below). Columns ignored: crew.',
    )
    expect(summary.refused).toHaveLength(REFUSED_SHOWN)
    expect(summary.notListed).toBe(50)
  })

  it('says when more plots than it draws are stored', () => {
    expect(plotsNote(30, false)).toBe('30 surveys drawn. Red: fewer alive than predicted; blue: more.')
    expect(plotsNote(5000, true)).toContain('the first 5,000 by plot id; the account has more')
  })
})
