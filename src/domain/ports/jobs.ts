import type { JobFormat, JobOutline, JobRecord, JobResultChunk, NewJob } from '../../types.ts'

/** Where jobs, their uploads and their results are kept (PostgreSQL), shared by servers and workers. */
export interface JobStore {
  create(job: NewJob): Promise<void>
  addInputChunk(jobId: string, chunkIndex: number, firstRow: number, rows: string): Promise<void>
  /** The upload is complete: queued with its size. */
  accept(jobId: string, rowsTotal: number, chunksTotal: number): Promise<void>
  remove(jobId: string): Promise<void>
  find(jobId: string): Promise<JobRecord | null>
  /** What a worker needs to score a chunk, without the progress summed over every chunk written. */
  outline(jobId: string): Promise<JobOutline | null>
  /** queued → running (the first chunk to start); false when the job is no longer queued or running. */
  markRunning(jobId: string, at: Date): Promise<boolean>
  inputChunk(jobId: string, chunkIndex: number): Promise<string | null>
  /**
   * Writes a chunk's results once; false when they were already written (a retried chunk).
   * `dataVersion`: the site data version the chunk was scored from.
   */
  writeResultChunk(
    jobId: string,
    chunkIndex: number,
    result: JobResultChunk,
    dataVersion: string | null,
  ): Promise<boolean>
  /** running → succeeded once every chunk's results are written. */
  finishIfComplete(jobId: string, at: Date): Promise<boolean>
  fail(jobId: string, reason: string, at: Date): Promise<void>
  /** queued or running → cancelled; false when the job had already finished. */
  cancel(jobId: string, at: Date): Promise<boolean>
  /** Chunks of queued and running jobs whose results are not written yet. */
  pendingChunks(): Promise<{ jobId: string; chunkIndex: number }[]>
  /** Byte length of each chunk's results in one format, in chunk order. */
  resultSizes(jobId: string, format: JobFormat): Promise<number[]>
  /** Results of chunks `from` to `from + count − 1` in one format, in chunk order. */
  resultTexts(jobId: string, format: JobFormat, from: number, count: number): Promise<string[]>
  /** Deletes jobs past their expiry, and uploads abandoned while arriving; returns how many. */
  purge(now: Date, abandonedBefore: Date): Promise<number>
}
