import { apiError } from '../../domain/errors.ts'
import type { JobView } from '../../domain/jobs/job-service.ts'
import type { JobFormat, JobStatus } from '../../types.ts'
import { builder } from './builder.ts'
import { reportLinkField } from './report-links.ts'

/*
 * A portfolio job as its owner sees it (GET /v1/jobs/{id}), and the link to a finished job's report.
 * Jobs are uploaded and their results downloaded over REST (docs/jobs.md): the bodies are streams.
 */

const JobStatusEnum = builder.enumType('JobStatus', {
  description: 'Where a job stands',
  values: {
    QUEUED: { value: 'queued', description: 'Accepted; no chunk scored yet' },
    RUNNING: { value: 'running', description: 'Its chunks are being scored' },
    SUCCEEDED: { value: 'succeeded', description: 'Every row scored: its results and report are ready' },
    FAILED: { value: 'failed', description: 'A chunk could not be scored (failure says why)' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled by its owner' },
  } as const satisfies Record<string, { value: JobStatus; description: string }>,
})

const JobFormatEnum = builder.enumType('JobFormat', {
  description: 'A job’s upload format',
  values: {
    CSV: { value: 'csv', description: 'A CSV file, a row per site' },
    NDJSON: { value: 'ndjson', description: 'Newline-delimited JSON, an object per site' },
    GEOJSON: { value: 'geojson', description: 'A GeoJSON FeatureCollection of points and stands' },
  } as const satisfies Record<string, { value: JobFormat; description: string }>,
})

/** The job's report, or job_not_finished (409) until it has succeeded, as GET /v1/jobs/{id}/report.pdf. */
function finishedJob(job: JobView) {
  if (job.status !== 'succeeded') throw apiError('job_not_finished', { job: job.id, status: job.status })
  return { linked: { operation: 'job' as const, request: { jobId: job.id } }, modelVersion: job.modelVersion }
}

const JobRef = builder.objectRef<JobView>('Job').implement({
  description: 'A portfolio job of the account, as GET /v1/jobs/{id} shows it (docs/jobs.md)',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The job’s id, job_…' }),
    status: t.field({ type: JobStatusEnum, description: 'Where it stands', resolve: (job) => job.status }),
    format: t.field({ type: JobFormatEnum, description: 'Its upload format', resolve: (job) => job.format }),
    modelVersion: t.exposeString('modelVersion', {
      description: 'The model version every row is scored with',
    }),
    rowsTotal: t.exposeInt('rowsTotal', { description: 'Rows uploaded' }),
    rowsDone: t.exposeInt('rowsDone', { description: 'Rows scored so far, failed ones included' }),
    rowsFailed: t.exposeInt('rowsFailed', { description: 'Rows that could not be scored' }),
    dataVersions: t.exposeStringList('dataVersions', {
      description: 'The site data versions its chunks were scored from, in the order first seen',
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was uploaded',
      resolve: (j) => j.createdAt,
    }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it finished; null until then',
      resolve: (job) => job.finishedAt,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When it and its results are purged',
      resolve: (job) => job.expiresAt,
    }),
    reportLink: reportLinkField(
      t,
      'job',
      finishedJob,
      '(as GET /v1/jobs/{id}/report.pdf answers it, summed from its results when fetched): job_not_finished until the job has succeeded. Not counted; fetching it counts one request on the job’s account',
    ),
  }),
})

builder.queryFields((t) => ({
  job: t.field({
    type: JobRef,
    description:
      'One of the account’s portfolio jobs, as GET /v1/jobs/{id} (uploads and results are REST’s: docs/jobs.md); not_found for another account’s job or none. Counts as one request',
    args: { id: t.arg.id({ required: true, description: 'The job’s id, job_…' }) },
    resolve: (_root, { id }, ctx) => {
      if (!ctx.caller) throw apiError('invalid_api_key')
      const { accountId, keyId, tier } = ctx.caller
      return ctx.jobs.status({ accountId, keyId, tier }, String(id))
    },
  }),
}))
