import { beforeAll, describe, expect, it } from 'vitest'
import { databaseForBlock, ENGINES } from '../../test/support/database.ts'
import { OPERATOR } from './audit.ts'
import type { Database } from './connect.ts'
import {
  accountDefaultVersion,
  findCalibrationRun,
  findModelVersion,
  finishCalibrationRun,
  listModelVersions,
  recordCalibrationProgress,
  saveModelVersion,
  setAccountDefaultVersion,
  startCalibrationRun,
} from './model-versions.ts'

/** Calibrated versions, calibrations and defaults: the same SQL on PostgreSQL and on embedded PGlite. */
const event = (kind: 'model.calibrated' | 'model.default_set', accountId: string) => ({
  accountId,
  kind,
  actor: OPERATOR,
  details: {},
})
const FIT = JSON.stringify({
  method: 'offsets-eb-2',
  parent: '0.2',
  offsets: [{ offset: -0.1234567890123456 }],
})
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

describe.each(ENGINES)('model versions (%s)', (_name, open) => {
  const database = databaseForBlock(open)
  let db: Database
  beforeAll(() => {
    db = database()
  })

  it('keeps a version once, byte for byte, and never changes it', async () => {
    const account = `acct-${_name}`
    const kept = await saveModelVersion(
      db.sql,
      account,
      { version: '0.2+cal.0000000a', parent: '0.2', fit: FIT },
      event('model.calibrated', account),
    )
    expect(kept).toMatchObject({ version: '0.2+cal.0000000a', parent: '0.2', fit: FIT })
    // The same name again keeps the first, and appends no second event.
    const again = await saveModelVersion(
      db.sql,
      account,
      { version: '0.2+cal.0000000a', parent: '0.2', fit: `${FIT} ` },
      event('model.calibrated', account),
    )
    expect(again.fit).toBe(FIT)
    expect(again.createdAt).toEqual(kept.createdAt)
    expect((await findModelVersion(db.sql, account, '0.2+cal.0000000a'))?.fit).toBe(FIT)
    expect(await findModelVersion(db.sql, 'someone-else', '0.2+cal.0000000a')).toBeNull()
    expect((await listModelVersions(db.sql, account)).map((v) => v.version)).toEqual(['0.2+cal.0000000a'])
    await expect(db.sql`UPDATE model_versions SET fit = '{}' WHERE account_id = ${account}`).rejects.toThrow(
      /never changes/,
    )
    await expect(
      db.sql`INSERT INTO model_versions (account_id, version, parent, fit) VALUES (${account}, '0.2', '0.2', '{}')`,
    ).rejects.toThrow()
    const [row] = await db.sql<{ count: number }[]>`
      SELECT count(*)::int AS count FROM audit_events WHERE account_id = ${account} AND kind = 'model.calibrated'`
    expect(row?.count).toBe(1)
  })

  it('sets and clears an account’s default', async () => {
    const account = `default-${_name}`
    expect(await accountDefaultVersion(db.sql, account)).toBeNull()
    await setAccountDefaultVersion(db.sql, account, '0.2+cal.0000000a', event('model.default_set', account))
    expect(await accountDefaultVersion(db.sql, account)).toBe('0.2+cal.0000000a')
    await setAccountDefaultVersion(db.sql, account, null, event('model.default_set', account))
    expect(await accountDefaultVersion(db.sql, account)).toBeNull()
  })

  it('runs one calibration per account; one that lost its process gives way', async () => {
    const account = `runs-${_name}`
    const filter = { speciesCode: 'PSME', bbox: [-124, 44, -122, 46] as const }
    const first = await startCalibrationRun(
      db.sql,
      { id: ID(1), accountId: account, filter, stages: 6 },
      new Date(0),
    )
    expect(first).toMatchObject({
      started: { id: ID(1), status: 'running', filter, stagesDone: 0, plots: null },
    })
    const second = await startCalibrationRun(
      db.sql,
      { id: ID(2), accountId: account, filter: {}, stages: 6 },
      new Date(0),
    )
    expect(second).toMatchObject({ running: { id: ID(1) } })
    // Another account runs its own.
    const elsewhere = await startCalibrationRun(
      db.sql,
      { id: ID(3), accountId: `${account}-b`, filter: {}, stages: 6 },
      new Date(0),
    )
    expect('started' in elsewhere).toBe(true)
    await recordCalibrationProgress(db.sql, ID(1), { stagesDone: 2, plots: 300 })
    expect(await findCalibrationRun(db.sql, account, ID(1))).toMatchObject({ stagesDone: 2, plots: 300 })
    expect(await findCalibrationRun(db.sql, `${account}-b`, ID(1))).toBeNull()
    // Its heartbeat is older than "now + 1 s": it has lost its process.
    const replaced = await startCalibrationRun(
      db.sql,
      { id: ID(4), accountId: account, filter: {}, stages: 6 },
      new Date(Date.now() + 1000),
    )
    expect('started' in replaced).toBe(true)
    expect(await findCalibrationRun(db.sql, account, ID(1))).toMatchObject({
      status: 'failed',
      error: { code: 'interrupted' },
    })
    await finishCalibrationRun(db.sql, ID(4), { version: '0.2+cal.0000000b' })
    const done = await findCalibrationRun(db.sql, account, ID(4))
    expect(done).toMatchObject({ status: 'succeeded', version: '0.2+cal.0000000b', stagesDone: 6 })
    expect(done?.finishedAt).toBeInstanceOf(Date)
    // A finished run stays as it finished.
    await finishCalibrationRun(db.sql, ID(4), { error: { code: 'internal_error', message: 'late' } })
    expect(await findCalibrationRun(db.sql, account, ID(4))).toMatchObject({ status: 'succeeded' })
  })
})
