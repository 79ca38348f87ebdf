import type { CalibrationRun, CalibrationRunOutcome } from '../domain/ports/calibration-runs.ts'
import type { StoredModelVersion } from '../domain/ports/model-versions.ts'
import type { SurveyFilter } from '../domain/ports/surveys.ts'
import type { NewAuditEvent } from '../types.ts'
import { appendAuditEvent } from './audit.ts'
import type { Sql } from './connect.ts'

/*
 * Calibrated model versions, the calibrations that make them, and each account's default version
 * (sql/017_model_versions.sql). Every statement names the account, so no call reaches another's.
 */

const VERSION_COLUMNS = 'version, parent, fit, created_at'
const RUN_COLUMNS = `id, account_id, status, filter, stages_done, stages, plots, version, error,
  created_at, heartbeat_at, finished_at`

export function findModelVersion(
  sql: Sql,
  accountId: string,
  version: string,
): Promise<StoredModelVersion | null> {
  return sql<StoredModelVersion[]>`
    SELECT ${sql.unsafe(VERSION_COLUMNS)} FROM model_versions
    WHERE account_id = ${accountId} AND version = ${version}`.then((rows) => rows[0] ?? null)
}

export function listModelVersions(sql: Sql, accountId: string): Promise<StoredModelVersion[]> {
  return sql<StoredModelVersion[]>`
    SELECT ${sql.unsafe(VERSION_COLUMNS)} FROM model_versions
    WHERE account_id = ${accountId} ORDER BY created_at DESC, version`
}

/**
 * Keeps a version (a version already kept under that name is the same text, and stays as it was),
 * and appends `event` when it is new. Answers the version as kept.
 */
export function saveModelVersion(
  sql: Sql,
  accountId: string,
  version: Omit<StoredModelVersion, 'createdAt'>,
  event: NewAuditEvent,
): Promise<StoredModelVersion> {
  return sql.begin(async (tx) => {
    const inserted = await tx<StoredModelVersion[]>`
      INSERT INTO model_versions (account_id, version, parent, fit)
      VALUES (${accountId}, ${version.version}, ${version.parent}, ${version.fit})
      ON CONFLICT (account_id, version) DO NOTHING
      RETURNING ${tx.unsafe(VERSION_COLUMNS)}`
    if (inserted[0]) {
      await appendAuditEvent(tx as unknown as Sql, event)
      return inserted[0]
    }
    const [kept] = await tx<StoredModelVersion[]>`
      SELECT ${tx.unsafe(VERSION_COLUMNS)} FROM model_versions
      WHERE account_id = ${accountId} AND version = ${version.version}`
    return kept as StoredModelVersion
  }) as Promise<StoredModelVersion>
}

export function accountDefaultVersion(sql: Sql, accountId: string): Promise<string | null> {
  return sql<{ version: string }[]>`
    SELECT version FROM model_defaults WHERE account_id = ${accountId}`.then(
    (rows) => rows[0]?.version ?? null,
  )
}

/** Sets (or, with null, clears) the account's default version, with its event, in one transaction. */
export function setAccountDefaultVersion(
  sql: Sql,
  accountId: string,
  version: string | null,
  event: NewAuditEvent,
): Promise<void> {
  return sql.begin(async (tx) => {
    if (version === null) await tx`DELETE FROM model_defaults WHERE account_id = ${accountId}`
    else
      await tx`
        INSERT INTO model_defaults (account_id, version) VALUES (${accountId}, ${version})
        ON CONFLICT (account_id) DO UPDATE SET version = excluded.version, updated_at = now()`
    await appendAuditEvent(tx as unknown as Sql, event)
  }) as Promise<void>
}

/**
 * Starts a calibration unless one of the account's is running: one whose heartbeat is older than
 * `staleBefore` has lost its process, and is marked failed first.
 */
export function startCalibrationRun(
  sql: Sql,
  run: { id: string; accountId: string; filter: SurveyFilter; stages: number },
  staleBefore: Date,
): Promise<{ started: CalibrationRun } | { running: CalibrationRun }> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`model_calibrations:${run.accountId}`}))`
    await tx`
      UPDATE model_calibrations SET status = 'failed', finished_at = now(),
        error = ${tx.json({ code: 'interrupted', message: 'The process running this calibration stopped; start it again' })}
      WHERE account_id = ${run.accountId} AND status = 'running' AND heartbeat_at < ${staleBefore}`
    const [running] = await tx<CalibrationRun[]>`
      SELECT ${tx.unsafe(RUN_COLUMNS)} FROM model_calibrations
      WHERE account_id = ${run.accountId} AND status = 'running'`
    if (running) return { running }
    const [started] = await tx<CalibrationRun[]>`
      INSERT INTO model_calibrations (id, account_id, status, filter, stages)
      VALUES (${run.id}, ${run.accountId}, 'running', ${tx.json(run.filter as Record<string, never>)}, ${run.stages})
      RETURNING ${tx.unsafe(RUN_COLUMNS)}`
    return { started: started as CalibrationRun }
  }) as Promise<{ started: CalibrationRun } | { running: CalibrationRun }>
}

/** Records a running calibration's progress, which is also its heartbeat. */
export async function recordCalibrationProgress(
  sql: Sql,
  id: string,
  progress: { stagesDone: number; plots: number | null },
): Promise<void> {
  await sql`
    UPDATE model_calibrations SET stages_done = ${progress.stagesDone},
      plots = coalesce(${progress.plots}, plots), heartbeat_at = now()
    WHERE id = ${id} AND status = 'running'`
}

export async function finishCalibrationRun(
  sql: Sql,
  id: string,
  outcome: CalibrationRunOutcome,
): Promise<void> {
  if ('version' in outcome)
    await sql`
      UPDATE model_calibrations SET status = 'succeeded', version = ${outcome.version},
        stages_done = stages, finished_at = now(), heartbeat_at = now()
      WHERE id = ${id} AND status = 'running'`
  else
    await sql`
      UPDATE model_calibrations SET status = 'failed', error = ${sql.json(outcome.error)},
        finished_at = now(), heartbeat_at = now()
      WHERE id = ${id} AND status = 'running'`
}

export function findCalibrationRun(sql: Sql, accountId: string, id: string): Promise<CalibrationRun | null> {
  return sql<CalibrationRun[]>`
    SELECT ${sql.unsafe(RUN_COLUMNS)} FROM model_calibrations
    WHERE account_id = ${accountId} AND id = ${id}`.then((rows) => rows[0] ?? null)
}
