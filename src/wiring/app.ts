import type { Server } from 'node:http'
import type { QuotaStore } from '../access/quota/quota-store.ts'
import { type Config, JOB_DEFAULTS, type ServerConfig } from '../config/config.ts'
import type { Database } from '../db/connect.ts'
import { keyAccounts } from '../db/key-ports.ts'
import { siteCache, siteIndexFollower, siteLookup, sitesInArea, siteTable } from '../db/site-ports.ts'
import { auditLog, databaseProbe, modelVersionStore, siteDataProbe } from '../db/store-ports.ts'
import { surveyStore } from '../db/survey-ports.ts'
import { AuditService } from '../domain/audit-service.ts'
import { CalibrationService } from '../domain/calibration/calibration-service.ts'
import { Catalogue } from '../domain/catalogue.ts'
import { HealthMonitor } from '../domain/health.ts'
import type { KeyMailerSettings } from '../domain/key-mail/key-mailer.ts'
import { KeyService } from '../domain/key-service.ts'
import { DefaultVersions } from '../domain/models/default-version.ts'
import type { IssuanceLimiter } from '../domain/ports/issuance.ts'
import type { MailSender } from '../domain/ports/mail.ts'
import { PredictionService } from '../domain/prediction-service.ts'
import { ReportLinks, reportLinkSecret } from '../domain/reports/report-links.ts'
import { StockingPlanService } from '../domain/stocking/stocking-service.ts'
import { SurveyService } from '../domain/surveys/survey-service.ts'
import { SurvivalMapService } from '../domain/survival-map.ts'
import { createGraphQLHttpHandler } from '../graphql/http-transport.ts'
import { createGateway, type Gateway } from '../graphql/yoga.ts'
import { compileProxyTrust } from '../http/client-address.ts'
import { createHttpServer, createMetricsServer } from '../http/server.ts'
import { createRollPageHandler, ROLL_PAGE_PATH } from '../key-pages/handler.ts'
import type { Logger } from '../logging/logger.ts'
import { Metrics } from '../observability/metrics.ts'
import { redisTarget } from '../redis/connection.ts'
import { createRestHandler, streamsBody } from '../rest/router.ts'
import type { SurvivalModel } from '../types.ts'
import { wireAccess } from './access.ts'
import { fitInThread } from './calibration-thread.ts'
import { explorerRoute } from './explorer-route.ts'
import { wireGis } from './gis.ts'
import { createJobRuntime, type JobConfig } from './job-runtime.ts'
import { wireKeyMail } from './key-mail.ts'
import { modelRegistry } from './model-versions.ts'
import { wireReports } from './reports.ts'
import { siteIndexLog } from './site-index-log.ts'
import { wireSurveyUploads } from './survey-uploads.ts'

export type AppConfig = Pick<
  Config,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'QUOTA_KEY_PREFIX'
  | 'SEARCH_RADIUS_KM'
  | 'GRAPHIQL'
  | 'DB_QUERY_TIMEOUT_MS'
  | 'REDIS_TIMEOUT_MS'
  | 'SPORE_KEYS_PER_ADDRESS_PER_HOUR'
  | 'SPORE_KEYS_PER_HOUR'
  | 'USAGE_FLUSH_MS'
> &
  Pick<ServerConfig, 'ADDRESS_HASH_KEY'> &
  Partial<JobConfig> &
  Partial<
    Pick<
      Config,
      | 'METRICS_TOKEN'
      | 'METRICS_PORT'
      | 'MAX_IN_FLIGHT'
      | 'SURVIVAL_MAP_PER_MINUTE'
      | 'SURVIVAL_MAP_CACHE_ENTRIES'
      | 'SITE_CACHE_SITES'
      | 'SITE_INDEX'
      | 'EXPLORER'
      | 'TRUST_PROXY'
      | 'TRUST_PROXY_HEADER'
      | 'KEY_CACHE_MS'
      | 'SMTP_URL'
      | 'MAIL_FROM'
      | 'PUBLIC_URL'
      | 'PORT'
    >
  >

export interface AppOptions {
  config: AppConfig
  database: Database
  logger: Logger
  model?: SurvivalModel
  /** A ready-made quota store (tests); otherwise Redis with in-memory failover, or memory alone. */
  quotaStore?: QuotaStore
  /** Ready-made self-service issuance counters (tests); otherwise beside the quota: Redis with in-memory failover, or memory alone. */
  issuanceLimiter?: IssuanceLimiter
  /** Where key mail goes (tests); otherwise SMTP_URL, or the log for the embedded store. */
  mailSender?: MailSender
  /** The key mailer's timings (tests shorten them). */
  keyMailer?: Partial<KeyMailerSettings>
  /** How long POST /v1/models/calibrations waits for a fit before answering 202 (tests on a busy machine lengthen it). */
  calibrationWaitMs?: number
  now?: () => Date
  demoKey?: string
  keyCacheMs?: number
  /** How long a body other than a job upload may take to arrive (tests shorten it). */
  bodyTimeoutMs?: number
  /** 'memory': job chunks queued in this process even with REDIS_URL or REDIS_CLUSTER_NODES (tests that cut Redis). */
  jobQueue?: 'memory'
}

export interface App {
  server: Server
  /** With METRICS_PORT: the server of /metrics alone, for the caller to listen on 127.0.0.1 (serve.ts). */
  metricsServer?: Server
  gateway: Gateway
  metrics: Metrics
  close(graceMs?: number): Promise<void>
}

/** Wires the layers together once: stores, services, the two adapters and the HTTP front door. */
export function createApp(options: AppOptions): App {
  const { config, database, logger } = options
  const now = options.now ?? (() => new Date())
  const metrics = new Metrics()
  const versionStore = modelVersionStore(database.sql, config, metrics)
  const models = modelRegistry(options.model, versionStore)
  const model = models.current
  const callers = wireAccess({
    config,
    database,
    logger,
    metrics,
    now,
    quotaStore: options.quotaStore,
    issuanceLimiter: options.issuanceLimiter,
    keyCacheMs: options.keyCacheMs,
  })
  const catalogue = new Catalogue(model, config.SEARCH_RADIUS_KM)
  const health = new HealthMonitor({
    databaseAnswers: databaseProbe(database.sql),
    siteData: siteDataProbe(database.sql),
    model: catalogue.model,
    quotaStoreState: callers.quotaState,
    replicas: () =>
      database.reads.replicas().map(({ name, state, lagMs }) => ({ name, state, lag_ms: lagMs })),
    now,
  })
  if (database.reads.replicas().length > 0)
    metrics.watchReplicas(
      () => database.reads.replicas(),
      () => database.reads.primaryReads(),
    )
  const keys = new KeyService(
    keyAccounts(database.sql, config, metrics, (keyId) => callers.authenticator.forget(keyId)),
    callers.usage,
    config.ADDRESS_HASH_KEY,
    now,
  )
  const keyMail = wireKeyMail({
    config,
    database,
    metrics,
    logger,
    limiter: callers.issuanceLimiter,
    sender: options.mailSender,
    mailer: options.keyMailer,
  })
  const audit = new AuditService(auditLog(database.sql, config, metrics))
  // One cache for the nearest-site lookups and the survival map's snapshot: one object per site.
  const heldSites = siteCache(config)
  const siteIndex = siteIndexFollower(database.reads, config, siteIndexLog(logger))
  const nearestSite = siteLookup(database.reads, config, metrics, heldSites, siteIndex)
  const predictions = new PredictionService(model, nearestSite, now)
  const plans = new StockingPlanService(model, nearestSite, sitesInArea(database.reads, config, metrics), now)
  const surveys = new SurveyService(
    surveyStore(database.sql, config, metrics),
    predictions,
    config.ADDRESS_HASH_KEY,
    now,
    models,
  )
  const calibrations = new CalibrationService(
    models.current,
    versionStore,
    surveyStore(database.sql, config, metrics),
    fitInThread,
    config.ADDRESS_HASH_KEY,
    {
      ...(options.calibrationWaitMs === undefined ? {} : { waitMs: options.calibrationWaitMs }),
      onError: (error, run) =>
        logger.error({ err: error, calibration: run.id }, 'calibration failed: nothing was kept'),
    },
  )
  const defaultVersions = new DefaultVersions(models, versionStore, config.ADDRESS_HASH_KEY)
  const surveyUploads = wireSurveyUploads({
    config,
    database,
    predictions,
    metrics,
    logger,
    now: options.now,
  })
  const jobConfig: JobConfig = {
    ...JOB_DEFAULTS,
    ...config,
    ...(options.jobQueue === 'memory' ? { REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined } : {}),
  }
  const jobRuntime = createJobRuntime({
    config: jobConfig,
    database,
    predictions,
    plans,
    models,
    metrics,
    logger,
    now: options.now,
    // Without Redis no other process can reach the queue: this one scores its chunks.
    work: jobConfig.JOB_WORKERS_IN_SERVER || !redisTarget(jobConfig) ? 'with-first-job' : false,
  })
  const maps = new SurvivalMapService(
    model,
    siteTable(database.sql, database.reads, config, metrics, heldSites),
    { cacheEntries: config.SURVIVAL_MAP_CACHE_ENTRIES ?? 32 },
    now,
  )
  // Signed under a secret derived from ADDRESS_HASH_KEY: every process that shares it serves every link.
  const reportLinks = new ReportLinks(reportLinkSecret(config.ADDRESS_HASH_KEY), now)
  const gateway = createGateway({
    health,
    predictions,
    plans,
    maps,
    catalogue,
    access: callers.access,
    keys,
    surveys,
    surveyUploads: surveyUploads.uploads,
    surveyUploadTickets: surveyUploads.tickets,
    reportLinks,
    jobs: jobRuntime.jobs,
    models,
    calibrations,
    defaultVersions,
    logger,
    graphiql: config.GRAPHIQL,
    demoKey: options.demoKey,
    survivalMapPerMinute: config.SURVIVAL_MAP_PER_MINUTE ?? 10,
  })
  const gis = wireGis({ config, database, metrics, logger, access: callers.access, models, maps, now })
  const server = createHttpServer({
    rest: createRestHandler(
      {
        predictions,
        plans,
        catalogue,
        health,
        access: callers.access,
        keys,
        surveys,
        surveyUploads: surveyUploads.uploads,
        surveyUploadTickets: surveyUploads.tickets,
        models,
        calibrations,
        defaultVersions,
        keyRequests: keyMail.requests,
        audit,
        jobs: jobRuntime.jobs,
        rasters: gis.rasters,
        reports: wireReports({ config, database, metrics, now }),
        reportLinks,
      },
      logger,
    ),
    graphql: createGraphQLHttpHandler(gateway, logger),
    ogc: gis.ogc,
    logger,
    metrics,
    metricsToken: config.METRICS_TOKEN,
    metricsElsewhere: config.METRICS_PORT !== undefined,
    maxInFlight: config.MAX_IN_FLIGHT ?? 512,
    proxyTrust: compileProxyTrust(config.TRUST_PROXY ?? false, config.TRUST_PROXY_HEADER),
    bodyTimeoutMs: options.bodyTimeoutMs,
    streamsBody,
    keyPages: keyMail.requests
      ? {
          serves: (pathname) => pathname === ROLL_PAGE_PATH,
          handle: createRollPageHandler(keyMail.requests, logger),
        }
      : undefined,
    explorer: explorerRoute(config, options.demoKey, logger),
  })
  const metricsServer =
    config.METRICS_PORT !== undefined
      ? createMetricsServer({ metrics, metricsToken: config.METRICS_TOKEN })
      : undefined
  return {
    server,
    metricsServer,
    gateway,
    metrics,
    /** Stops accepting, lets in-flight requests finish (at most graceMs), then closes the quota store and the issuance counters and writes the last usage counts. */
    close: async (graceMs = 10_000) => {
      // The metrics port closes at once: a scrape has nothing to finish.
      metricsServer?.close()
      metricsServer?.closeAllConnections()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      const grace = setTimeout(() => server.closeAllConnections(), graceMs)
      await closed
      clearTimeout(grace)
      siteIndex?.stop()
      await Promise.all([
        callers.close(),
        jobRuntime.close(),
        keyMail.close(),
        surveyUploads.close(),
        calibrations.settle(),
      ])
    },
  }
}
