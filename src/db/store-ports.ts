import { type Config, DEFAULT_SITE_CACHE_SITES } from '../config/config.ts'
import { StoreUnavailableError } from '../domain/errors.ts'
import type { AuditLog } from '../domain/ports/audit.ts'
import type { JobStore } from '../domain/ports/jobs.ts'
import type { KeyMailbox } from '../domain/ports/key-mailbox.ts'
import type { KeyAccounts, KeyDirectory } from '../domain/ports/keys.ts'
import type { ModelVersionStore } from '../domain/ports/model-versions.ts'
import type { SiteDataHealth } from '../domain/ports/site-data.ts'
import type { NearestSiteLookup, SitePages, SitesInArea, SiteTable } from '../domain/ports/sites.ts'
import type { SurveyUploadTicketStore } from '../domain/ports/survey-upload-tickets.ts'
import type { SurveyUploadStore } from '../domain/ports/survey-uploads.ts'
import type { SurveyStore } from '../domain/ports/surveys.ts'
import type { UsageLedger } from '../domain/ports/usage.ts'
import { chordDistanceKm } from '../geo/nearest-site-index.ts'
import { LruCache } from '../lru-cache.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { Coordinates, NearestSite } from '../types.ts'
import { appendAuditEvent, auditEvents } from './audit.ts'
import { isDatabaseUnavailable, withDeadline } from './availability.ts'
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
  confirmKeyRoll,
  hashLinkToken,
  markKeyMailDelivered,
  markKeyMailFailed,
  purgeKeyRequests,
  recordKeyRequest,
  rollLinkState,
  takeNextKeyMail,
} from './key-requests.ts'
import { findKeyByHash, findKeyById, KeyStoreError, rotateKey } from './keys.ts'
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
import { createNearestSiteLoader, type FindNearestSites } from './nearest-site-loader.ts'
import type { ReadPool } from './read-replicas.ts'
import { cachedNearestSites, SiteCache } from './site-cache.ts'
import { siteVersionSource } from './site-data-versions.ts'
import { nearestIdsInMemory, type SiteIndexEvents, SiteIndexFollower } from './site-index-follower.ts'
import { readSiteIndex } from './site-index-read.ts'
import { SitePageReads } from './site-pages.ts'
import { allSites, findNearestSiteIds, findNearestSites, findSitesInBox, siteRevision } from './sites.ts'
import {
  issueSurveyUploadTicket,
  redeemSurveyUploadTicket,
  sweepSurveyUploadTickets,
} from './survey-upload-tickets.ts'
import {
  addSurveyUploadBatch,
  COMMIT_STATEMENT_TIMEOUT_MS,
  commitSurveyUpload,
  createSurveyUpload,
  findSurveyUpload,
  finishEmptySurveyUpload,
  surveyUploadRefusals,
  sweepSurveyUploads,
  touchSurveyUpload,
} from './survey-uploads.ts'
import {
  calibrationPlots,
  removeSurveyPlots,
  saveSurveyPlots,
  surveyPlotPage,
  surveyReportPlots,
  surveysOfPlot,
} from './surveys.ts'
import { loadTiers } from './tiers.ts'
import { addUsage, touchKeys, usageHistory } from './usage.ts'

/**
 * The ports of src/types.ts implemented over PostgreSQL: each query bounded by the query deadline, and
 * a database that is away reported as StoreUnavailableError (503 service_unavailable upstairs), so no
 * layer above src/db needs to know the driver's error codes.
 */
async function storeCall<T>(query: Promise<T>, metrics: Metrics): Promise<T> {
  try {
    return await query
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error
    metrics.fallbackEvents.inc({ kind: 'data_store' })
    throw new StoreUnavailableError(error)
  }
}

type StoreConfig = Pick<Config, 'SEARCH_RADIUS_KM' | 'DB_QUERY_TIMEOUT_MS'> &
  Partial<Pick<Config, 'SITE_CACHE_SITES'>>

/** The process's site cache (src/db/site-cache.ts), or null when SITE_CACHE_SITES is 0. */
export function siteCache(config: Partial<Pick<Config, 'SITE_CACHE_SITES'>>): SiteCache | null {
  const capacity = config.SITE_CACHE_SITES ?? DEFAULT_SITE_CACHE_SITES
  return capacity === 0 ? null : new SiteCache(() => new LruCache(capacity))
}

/**
 * The nearest-site index in memory, following the sites table as read from `reads` (started), or null
 * when SITE_INDEX is off or there is no site cache to give the sites' attributes.
 */
export function siteIndexFollower(
  reads: ReadPool,
  config: Partial<Pick<Config, 'SITE_INDEX' | 'SITE_CACHE_SITES'>>,
  events: SiteIndexEvents = {},
): SiteIndexFollower | null {
  if (config.SITE_INDEX === 'off' || config.SITE_CACHE_SITES === 0) return null
  const follower = new SiteIndexFollower(
    {
      revision: () => reads.read((sql) => siteRevision(sql)),
      read: () => reads.read((sql) => readSiteIndex(sql)),
    },
    events,
  )
  follower.start()
  return follower
}

/**
 * One process-wide batching lookup: concurrent requests' points share one KNN statement, read from a
 * replica when there are healthy ones (the sites change only with a reseed; a little lag is harmless).
 */
export function siteLookup(
  reads: ReadPool,
  config: StoreConfig,
  metrics: Metrics,
  cache: SiteCache | null = siteCache(config),
  /** The nearest-site index in memory (SITE_INDEX=memory), used while it holds the current revision. */
  index: SiteIndexFollower | null = null,
): NearestSiteLookup {
  const radiusKm = config.SEARCH_RADIUS_KM
  const deadline = { deadlineMs: config.DB_QUERY_TIMEOUT_MS }
  const read = <T>(query: (sql: Sql) => Promise<T>) =>
    metrics.trackQuery(() => storeCall(reads.read(query), metrics))
  const nearestSites = (points: readonly Coordinates[]) =>
    read((sql) => findNearestSites(sql, points, radiusKm, deadline))
  const findNearest: FindNearestSites = cache
    ? cachedNearestSites(
        {
          nearestIds: (points) => {
            const held = index?.current()
            if (held) return Promise.resolve(nearestIdsInMemory(held, points, radiusKm))
            return read((sql) => findNearestSiteIds(sql, points, radiusKm, deadline))
          },
          nearestSites,
          idsInMemory: () => index?.current() != null,
        },
        cache,
        (count) => metrics.siteCacheMisses.inc(count),
      )
    : async (points) => (await nearestSites(points)).nearest
  return createNearestSiteLoader(async (points) => {
    metrics.nearestSiteLookups.inc(points.length)
    metrics.nearestSiteBatchSize.observe(points.length)
    return withDistanceInProcess(points, await findNearest(points))
  })
}

/**
 * Each answer's distance computed here, from the point and its site's coordinates, whichever way the
 * site was found: the database's trigonometry and the process's can differ in the last bit, and an
 * answer must not change with whether the nearest-site index in memory was ready.
 */
function withDistanceInProcess(points: readonly Coordinates[], answers: (NearestSite | null)[]) {
  for (let i = 0; i < answers.length; i++) {
    const answer = answers[i]
    const point = points[i] as Coordinates
    if (answer) {
      answer.distanceKm = chordDistanceKm(
        point.latitude,
        point.longitude,
        answer.site.latitude,
        answer.site.longitude,
      )
    }
  }
  return answers
}

type Deadline = Pick<Config, 'DB_QUERY_TIMEOUT_MS'>

/** A store call bounded by the query deadline, with "database away" reported as StoreUnavailableError. */
function bounded(config: Deadline, metrics: Metrics) {
  return <T>(query: Promise<T>): Promise<T> =>
    storeCall(withDeadline(query, config.DB_QUERY_TIMEOUT_MS), metrics)
}

/**
 * The whole site table for the survival map: its revision token (one tiny query) and every site.
 * The token is always the primary's, so a reseed is seen at once however far a replica lags; the sites
 * come from a replica only when that replica's copy is of the primary's revision, else from the primary,
 * so a map is never cached under a revision its sites do not belong to.
 */
export function siteTable(
  primary: Sql,
  reads: ReadPool,
  config: Deadline,
  metrics: Metrics,
  /** The site lookup's cache: the sites read here and the ones it holds are then the same objects. */
  cache: SiteCache | null = null,
): SiteTable {
  const call = bounded(config, metrics)
  const readAll = async () => {
    const read = await call(reads.read((sql) => allSites(sql)))
    if (reads.replicas().length === 0) return read
    const current = await call(siteRevision(primary))
    return read.revision === current ? read : call(reads.readPrimary((sql) => allSites(sql)))
  }
  return {
    revision: () => call(siteRevision(primary)),
    all: () =>
      metrics.trackQuery(async () => {
        const { revision, dataVersion, sites } = await readAll()
        return { revision, dataVersion, sites: cache ? cache.share(revision, sites) : sites }
      }),
  }
}

/** The sites inside a stand's box, bounded by the query deadline, from a replica when one is healthy. */
export function sitesInArea(reads: ReadPool, config: Deadline, metrics: Metrics): SitesInArea {
  const call = bounded(config, metrics)
  return { within: (box) => metrics.trackQuery(() => call(reads.read((sql) => findSitesInBox(sql, box)))) }
}

/**
 * Where each site data version came from (a version never changes: each is read once, the last 64
 * kept), read from a replica when one is healthy.
 */
export function siteVersionSources(
  reads: ReadPool,
  config: Deadline,
  metrics: Metrics,
): { source(version: string): Promise<string | null> } {
  const call = bounded(config, metrics)
  const known = new LruCache<string, string>(64)
  return {
    async source(version) {
      const held = known.get(version)
      if (held !== undefined) return held
      const source = await metrics.trackQuery(() =>
        call(reads.read((sql) => siteVersionSource(sql, version))),
      )
      if (source !== null) known.set(version, source)
      return source
    },
  }
}

/** The active site data a page at a time (OGC API – Features), from a replica when one is healthy. */
export function sitePages(reads: ReadPool, config: Deadline, metrics: Metrics): SitePages {
  const call = bounded(config, metrics)
  const pages = new SitePageReads()
  return {
    page: (box, start, limit) =>
      metrics.trackQuery(() => call(reads.read((sql) => pages.page(sql, box, start, limit)))),
    one: (id) => metrics.trackQuery(() => call(reads.read((sql) => pages.one(sql, id)))),
  }
}

export function keyDirectory(sql: Sql, config: Deadline, metrics: Metrics): KeyDirectory {
  const call = bounded(config, metrics)
  return {
    findByHash: (hash) => call(findKeyByHash(sql, hash)),
    findById: (id) => call(findKeyById(sql, id)),
    tiers: () => call(loadTiers(sql)),
  }
}

/** `changed` hears of every key this process changes, once the change is committed. */
export function keyAccounts(
  sql: Sql,
  config: Deadline,
  metrics: Metrics,
  changed: (keyId: string) => void = () => {},
): KeyAccounts {
  const call = bounded(config, metrics)
  return {
    rotate: (keyId, graceSeconds, actor) =>
      call(rotateKey(sql, keyId, graceSeconds, actor)).then(
        (rotation) => {
          changed(keyId)
          return rotation
        },
        (error) => {
          // A key that was already rolled or revoked (KeyStoreError) cannot be rolled: no replacement.
          if (error instanceof KeyStoreError) return null
          throw error
        },
      ),
    findById: (keyId) => call(findKeyById(sql, keyId)),
  }
}

/** Self-service keys by email: the requests, what each is mailed, and the roll links. */
export function keyMailbox(sql: Sql, config: Deadline, metrics: Metrics): KeyMailbox {
  const call = bounded(config, metrics)
  return {
    record: (request, limits) => call(recordKeyRequest(sql, request, limits)),
    takeNext: (leaseMs, linkTtlMs) => call(takeNextKeyMail(sql, leaseMs, linkTtlMs)),
    delivered: (mail) => call(markKeyMailDelivered(sql, mail)),
    failed: (requestId, reason, retryAt) => call(markKeyMailFailed(sql, requestId, reason, retryAt)),
    rollLink: (token) => call(rollLinkState(sql, hashLinkToken(token))),
    confirmRoll: (token, confirmedFrom) => call(confirmKeyRoll(sql, hashLinkToken(token), confirmedFrom)),
    purge: (before) => call(purgeKeyRequests(sql, before)),
  }
}

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

/** An account's survey plots. */
export function surveyStore(sql: Sql, config: Deadline, metrics: Metrics): SurveyStore {
  const call = bounded(config, metrics)
  return {
    save: (accountId, plots, limit, event) => call(saveSurveyPlots(sql, accountId, plots, limit, event)),
    page: (accountId, filter, limit, after) => call(surveyPlotPage(sql, accountId, filter, limit, after)),
    plot: (accountId, plotId) => call(surveysOfPlot(sql, accountId, plotId)),
    remove: (accountId, plotId, event) => call(removeSurveyPlots(sql, accountId, plotId, event)),
    reportPlots: (accountId, filter) => call(surveyReportPlots(sql, accountId, filter)),
    calibrationPlots: (accountId, filter, version) => call(calibrationPlots(sql, accountId, filter, version)),
  }
}

/** Bulk survey uploads; the commit, which moves a whole upload, has its own longer deadline. */
export function surveyUploadStore(sql: Sql, config: Deadline, metrics: Metrics): SurveyUploadStore {
  const call = bounded(config, metrics)
  const commitCall = bounded({ DB_QUERY_TIMEOUT_MS: COMMIT_STATEMENT_TIMEOUT_MS + 5_000 }, metrics)
  return {
    create: (upload) => call(createSurveyUpload(sql, upload)),
    addBatch: (uploadId, staged, refused, counts) =>
      call(addSurveyUploadBatch(sql, uploadId, staged, refused, counts)),
    touch: (uploadId) => call(touchSurveyUpload(sql, uploadId)),
    commit: (accountId, uploadId, limit, event) =>
      commitCall(commitSurveyUpload(sql, accountId, uploadId, limit, event)),
    finishEmpty: (uploadId, status, failure) => call(finishEmptySurveyUpload(sql, uploadId, status, failure)),
    find: (accountId, uploadId) => call(findSurveyUpload(sql, accountId, uploadId)),
    refusals: (uploadId, afterRow, limit) => call(surveyUploadRefusals(sql, uploadId, afterRow, limit)),
    sweep: (stalledBefore, expiredBefore) => call(sweepSurveyUploads(sql, stalledBefore, expiredBefore)),
  }
}

/** Survey upload tickets (GraphQL's way to a streamed upload). */
export function surveyUploadTicketStore(
  sql: Sql,
  config: Deadline,
  metrics: Metrics,
): SurveyUploadTicketStore {
  const call = bounded(config, metrics)
  return {
    issue: (ticket) => call(issueSurveyUploadTicket(sql, ticket)),
    redeem: (tokenHash, at) => call(redeemSurveyUploadTicket(sql, tokenHash, at)),
    sweep: (expiredBefore) => call(sweepSurveyUploadTickets(sql, expiredBefore)),
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
