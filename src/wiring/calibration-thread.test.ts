import { describe, expect, it } from 'vitest'
import { calibrationColumns } from '../../test/support/calibration-plots.ts'
import { type FitRequest, fitHere } from '../domain/calibration/calibration-service.ts'
import { calibrationSurvey, SIX_YEARS, WANTED } from '../seed/calibration-surveys.ts'
import { createRandom } from '../seed/survey-simulation.ts'
import { fitInThread } from './calibration-thread.ts'

/** A request as the service makes it, its columns fresh each time (the thread takes them over). */
function request(plots = calibrationSurvey(createRandom(5), SIX_YEARS)): FitRequest {
  return {
    parent: { version: '0.2', uncertainty: { plantingYearSd: 0.8, siteSd: 0.5, clumpingDispersion: 2 } },
    filter: { speciesCode: 'PSME' },
    columns: calibrationColumns(plots),
    wanted: WANTED,
  }
}

describe('fitInThread', () => {
  it('fits in a worker thread exactly as on the calling thread, reporting each stage', async () => {
    const stages: number[] = []
    const threaded = await fitInThread(request(), (done) => stages.push(done))
    expect(threaded).toEqual(await fitHere(request(), () => {}))
    expect(stages).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('passes the fit’s refusal back as an error', async () => {
    const few = calibrationSurvey(createRandom(5), SIX_YEARS).slice(0, 4)
    await expect(fitInThread(request(few), () => {})).rejects.toThrow(/at least 10 plots/)
  })
})
