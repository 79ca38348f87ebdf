import type { AuditLog } from '../domain/ports/audit.ts'
import type { JobStore } from '../domain/ports/jobs.ts'
import type { ModelVersionStore } from '../domain/ports/model-versions.ts'
import type { SiteDataHealth } from '../domain/ports/site-data.ts'
import type { UsageLedger } from '../domain/ports/usage.ts'
import type { Metrics } from '../observability/metrics.ts'
import { appendAuditEvent, auditEvents } from './audit.ts'
import type { Sql } from './connect.ts'
import { activeSiteData, databaseAnswers } from './health.ts'
import {
  acceptJob,
  addInputChunk,
  cancelJob,
  createJob,
  failJob,
  findJob,
  findJobOutline,
  finishJobIfComplete,
  inputChunk,
  markJobRunning,
  pendingChunks,
  purgeJobs,
  removeJob,
  resultSizes,
  resultTexts,
  writeResultChunk,
} from './jobs.ts'
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
import { bounded, type Deadline } from './store-call.ts'
import { addUsage, touchKeys, usageHistory } from './usage.ts'

/** An account's calibrated model versions, its calibrations and its default version. */
export function modelVersionStore(sql: Sql, config: Deadline, metrics: Metrics): ModelVersionStore {
  const call = bounded(config, metrics)
  return {
    version: (accountId, version) => call(findModelVersion(sql, accountId, version)),
    versions: (accountId) => call(listModelVersions(sql, accountId)),
    save: (accountId, version, event) => call(saveModelVersion(sql, accountId, version, event)),
    defaultVersion: (accountId) => call(accountDefaultVersion(sql, accountId)),
    setDefault: (accountId, version, event) => call(setAccountDefaultVersion(sql, accountId, version, event)),
    startRun: (run, staleBefore) => call(startCalibrationRun(sql, run, staleBefore)),
    progress: (id, progress) => call(recordCalibrationProgress(sql, id, progress)),
    finishRun: (id, outcome) => call(finishCalibrationRun(sql, id, outcome)),
    run: (accountId, id) => call(findCalibrationRun(sql, accountId, id)),
  }
}

/** The audit log, append only: events are added and read an account at a time. */
export function auditLog(sql: Sql, config: Deadline, metrics: Metrics): AuditLog {
  const call = bounded(config, metrics)
  return {
    append: (event) => call(appendAuditEvent(sql, event)),
    page: (accountId, limit, after) => call(auditEvents(sql, accountId, limit, after)),
  }
}

export function usageLedger(sql: Sql, config: Deadline, metrics: Metrics): UsageLedger {
  const call = bounded(config, metrics)
  return {
    add: (counts) => call(addUsage(sql, counts)),
    touch: (lastUsed) => call(touchKeys(sql, lastUsed)),
    history: (accountId, fromDay) => call(usageHistory(sql, accountId, fromDay)),
  }
}

export function jobStore(sql: Sql, config: Deadline, metrics: Metrics): JobStore {
  const call = bounded(config, metrics)
  return {
    create: (job) => call(createJob(sql, job)),
    addInputChunk: (jobId, chunkIndex, firstRow, rows) =>
      call(addInputChunk(sql, jobId, chunkIndex, firstRow, rows)),
    accept: (jobId, rowsTotal, chunksTotal) => call(acceptJob(sql, jobId, rowsTotal, chunksTotal)),
    remove: (jobId) => call(removeJob(sql, jobId)),
    find: (jobId) => call(findJob(sql, jobId)),
    outline: (jobId) => call(findJobOutline(sql, jobId)),
    markRunning: (jobId, at) => call(markJobRunning(sql, jobId, at)),
    inputChunk: (jobId, chunkIndex) => call(inputChunk(sql, jobId, chunkIndex)),
    writeResultChunk: (jobId, chunkIndex, result, dataVersion) =>
      call(writeResultChunk(sql, jobId, chunkIndex, result, dataVersion)),
    finishIfComplete: (jobId, at) => call(finishJobIfComplete(sql, jobId, at)),
    fail: (jobId, reason, at) => call(failJob(sql, jobId, reason, at)),
    cancel: (jobId, at) => call(cancelJob(sql, jobId, at)),
    pendingChunks: () => call(pendingChunks(sql)),
    resultSizes: (jobId, format) => call(resultSizes(sql, jobId, format)),
    resultTexts: (jobId, format, from, count) => call(resultTexts(sql, jobId, format, from, count)),
    purge: (now, abandonedBefore) => call(purgeJobs(sql, now, abandonedBefore)),
  }
}

/** For health: whether the database answers within a second. */
export function databaseProbe(sql: Sql): () => Promise<boolean> {
  return () => databaseAnswers(sql, 1000)
}

/** For health: the active site data version, read within a second. */
export function siteDataProbe(sql: Sql): () => Promise<SiteDataHealth | null> {
  return () => activeSiteData(sql, 1000)
}
