import { JobService } from '../../src/domain/jobs/job-service.ts'
import { DEFAULT_JOB_SETTINGS, type JobSettings } from '../../src/domain/jobs/job-settings.ts'
import { PredictionService } from '../../src/domain/prediction-service.ts'
import { JOB_FILE_FORMATS } from '../../src/job-files/file-formats.ts'
import type { NewJob } from '../../src/types.ts'
import { FakeJobStore, RecordingChunkQueue } from './fake-jobs.ts'
import { FakeSiteLookup } from './fakes.ts'
import { HEADER } from './job-uploads.ts'
import { model } from './survival-model.ts'

/** The JobService unit tests' service: over the fakes, with a clock the test moves; and jobs to store. */

/** When the service's clock starts. */
export const T0 = new Date('2026-11-22T12:00:00Z')

/** A service over the fakes with a clock the test moves, recording charges and scored chunks. */
export function setup(settings: Partial<JobSettings> = {}) {
  const clock = { now: T0 }
  const lookup = new FakeSiteLookup()
  const predictions = new PredictionService(model, lookup, () => clock.now)
  const store = new FakeJobStore()
  const queue = new RecordingChunkQueue()
  const scoredChunks: [number, number][] = []
  const jobs = new JobService(
    {
      store,
      queue,
      files: JOB_FILE_FORMATS,
      predictions,
      now: () => clock.now,
      onChunkScored: (rows, failed) => scoredChunks.push([rows, failed]),
    },
    { ...DEFAULT_JOB_SETTINGS, chunkRows: 2, ...settings },
  )
  const charges: number[] = []
  const charge = async (requests: number) => {
    charges.push(requests)
  }
  return { jobs, store, queue, lookup, clock, charges, charge, scoredChunks }
}

/** Runs every queued chunk, in the order queued or the reverse. */
export async function runAll(
  jobs: JobService,
  queue: RecordingChunkQueue,
  order: 'queued' | 'reversed' = 'queued',
) {
  const tasks = order === 'queued' ? [...queue.added] : [...queue.added].reverse()
  for (const task of tasks) await jobs.runChunk(task)
}

/** A job as stored when its upload begins: acct_a's mycel key, chunks of 2 rows, a CSV of HEADER unless told. */
export function newJob(job: Pick<NewJob, 'id' | 'expiresAt'> & Partial<NewJob>): NewJob {
  return {
    accountId: 'acct_a',
    keyId: 'key_a',
    tier: 'mycel',
    format: 'csv',
    columns: HEADER,
    chunkRows: 2,
    modelVersion: '0.2',
    defaults: {},
    ...job,
  }
}
