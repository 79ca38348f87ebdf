/**
 * The model versions of the typed client (`/v1/models`, docs/models.md): the versions a request may
 * pin, the calibrations that fit the account's own versions on its surveys (started, waited for,
 * read), and the account's default version. `createSurvivalClient` spreads these methods in, as it
 * does the survey methods, handing over its openapi-fetch client and its `call`/`body`/`init` helpers
 * (retries, errors and `Request-Id` as for every other method).
 */
import type {
  CalibrationRequest,
  CalibrationRun,
  CalibrationRunError,
  SucceededCalibration,
} from './api-types.ts'
import type { CallOptions, Outcome } from './call-options.ts'
import { SurvivalApiError } from './errors.ts'
import { type PollOptions, pollUntilSettled } from './poll.ts'
import type { SurveyClientParts } from './surveys.ts'

/**
 * `calibrate`'s options: `signal` and `requestId` (sent on the start and on every poll), and how a
 * calibration still running after the server's wait (202) is polled: from `pollMs` (default 1 s),
 * each wait `backoff` (1.5) times the one before up to `maxPollMs` (10 s), `onProgress` with every
 * status read (the start's included), for at most `timeoutMs` (default: no limit).
 */
export interface CalibrateOptions extends CallOptions, PollOptions<CalibrationRun> {}

/**
 * `details` of the SurvivalApiError `calibration_failed` that `calibrate` rejects with when the fit
 * failed (nothing was kept): the calibration's id, why (`interrupted`: start it again), and the run.
 */
export interface CalibrationFailedDetails {
  calibration: string
  reason: CalibrationRunError['code'] | null
  run: CalibrationRun
}

const CALIBRATION_POLL = { pollMs: 1000, backoff: 1.5, maxPollMs: 10_000 }

export interface ModelClientParts extends Pick<SurveyClientParts, 'api' | 'body' | 'init'> {
  /** Sends (again on 429/503), and returns the body of a 2xx with its response, or throws SurvivalApiError. */
  call: <T>(
    send: () => Promise<Outcome<T>>,
    signal: AbortSignal | undefined,
  ) => Promise<{ data: T; response: Response }>
}

/** The error of a calibration that ended `failed`, with the Request-Id of the answer that said so. */
function calibrationFailed(run: CalibrationRun, response: Response): SurvivalApiError {
  const why = run.error ? ` (${run.error.code}): ${run.error.message}` : ''
  return new SurvivalApiError({
    status: response.status,
    code: 'calibration_failed',
    message: `Calibration ${run.id} failed${why}`,
    details: { calibration: run.id, reason: run.error?.code ?? null, run } satisfies CalibrationFailedDetails,
    requestId: response.headers.get('request-id'),
  })
}

export function modelMethods({ api, body, call, init }: ModelClientParts) {
  const readCalibration = (id: string, options: CallOptions) =>
    call(
      () => api.GET('/v1/models/calibrations/{id}', { params: { path: { id } }, ...init(options) }),
      options.signal,
    )

  return {
    /** The model versions this key's account may answer with (pin one with `model_version`). */
    models: (options?: CallOptions) => body(() => api.GET('/v1/models', init(options)), options),

    /** One model version; `invalid_model_version` (422) for one the account cannot use. */
    model: (version: string, options?: CallOptions) =>
      body(
        () => api.GET('/v1/models/{version}', { params: { path: { version } }, ...init(options) }),
        options,
      ),

    /**
     * Fits a calibrated version of the current base version on the account's surveys that `filter`
     * keeps (none: every plot), `POST /v1/models/calibrations`, and resolves with the calibration once
     * it has succeeded: `model_version` (`<parent>+cal.<8 hex>`) and `model`, the version with its
     * `fit`. A fit the server finished within its wait (201) resolves at once; one still running (202)
     * is polled (`GET /v1/models/calibrations/{id}`) with backoff until it settles. A failed fit is a
     * SurvivalApiError `calibration_failed` (`details`: CalibrationFailedDetails). Too few plots is
     * `422 not_enough_surveys`, another calibration of the account still running `409
     * calibration_running` (`details.calibration` its id). An abort or `timeoutMs` ends the wait, not
     * the fit: read it later with `calibration(id)` (`onProgress` gives the id first).
     */
    async calibrate(
      filter: CalibrationRequest = {},
      options: CalibrateOptions = {},
    ): Promise<SucceededCalibration> {
      const started = await call(
        () => api.POST('/v1/models/calibrations', { body: filter, ...init(options) }),
        options.signal,
      )
      let answer = started.response
      const id = started.data.id
      const run = await pollUntilSettled(
        {
          name: `calibration ${id}`,
          read: async (signal) => {
            const read = await readCalibration(id, { ...options, signal })
            answer = read.response
            return read.data
          },
          settled: (status) => status.status !== 'running',
          defaults: CALIBRATION_POLL,
        },
        options,
        started.data,
      )
      if (run.status !== 'succeeded') throw calibrationFailed(run, answer)
      return run as SucceededCalibration
    },

    /**
     * One of the account's calibrations as it stands (`running`, `succeeded` or `failed`); another
     * account's, or an unknown id, is `404 not_found`. Not counted against the quota.
     */
    calibration: async (id: string, options: CallOptions = {}): Promise<CalibrationRun> =>
      (await readCalibration(id, options)).data,

    /**
     * Makes `version` the account's default (`PUT /v1/models/default`): the version every request that
     * names no `model_version` answers with; null goes back to the current base version. Resolves with
     * the version as `model(version)` shows it (`default: true`); one the account cannot use is
     * `422 invalid_model_version` and changes nothing.
     */
    setDefaultModel: (version: string | null, options?: CallOptions) =>
      body(
        () => api.PUT('/v1/models/default', { body: { model_version: version }, ...init(options) }),
        options,
      ),
  }
}
