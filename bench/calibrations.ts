/**
 * The calibrated versions `rest_predict_calibrated` pins: surveys stored for the bench key's account on
 * points of the load's pool, then one calibration per window of survey dates, each a version of its
 * own. The load then pins its requests to every one of them in turn, so the server holds that many
 * versions in use while its RSS is measured.
 */

import type { PredictBody } from './scenario-types.ts'
import type { MeasuredProcess } from './servers.ts'

/** Versions in use at once: the RSS target holds with 50. */
export const CALIBRATED_VERSIONS = 50
const PLOTS = 900
const FIRST_SURVEY = Date.UTC(2020, 0, 1)
const DAY_MS = 86_400_000

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

async function call(target: MeasuredProcess, method: string, path: string, body: unknown) {
  const response = await fetch(target.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': target.apiKey },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** A plot per point: survived about 15 % less than a typical prediction, surveyed a day apart. */
function plots(points: readonly PredictBody[]) {
  return points.slice(0, PLOTS).map((point, i) => {
    const surveyed = FIRST_SURVEY + i * DAY_MS
    const planted = 30 + (i % 50)
    return {
      plot_id: `bench-${i}`,
      latitude: point.latitude,
      longitude: point.longitude,
      species_code: point.species_code,
      planting_method: point.planting_method,
      planted_on: isoDay(surveyed - (1 + (i % 5)) * 365 * DAY_MS),
      surveyed_on: isoDay(surveyed),
      planted,
      alive: Math.round(planted * (0.45 + ((i * 7) % 40) / 100)),
    }
  })
}

/** Stores the surveys and makes CALIBRATED_VERSIONS versions (surveyed_to a week apart); their names. */
export async function benchCalibrations(
  target: MeasuredProcess,
  points: readonly PredictBody[],
  log: (message: string) => void,
): Promise<string[]> {
  const all = plots(points)
  for (let start = 0; start < all.length; start += 1000)
    await call(target, 'POST', '/v1/surveys', { plots: all.slice(start, start + 1000) })
  const versions: string[] = []
  const started = performance.now()
  for (let k = 0; k < CALIBRATED_VERSIONS; k++) {
    const surveyedTo = isoDay(FIRST_SURVEY + (400 + 7 * k) * DAY_MS)
    let run = await call(target, 'POST', '/v1/models/calibrations', { surveyed_to: surveyedTo })
    while (run.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 250))
      run = await call(target, 'GET', (run.links as { self: string }).self, undefined)
    }
    if (run.status !== 'succeeded') throw new Error(`calibration ${run.id} ${run.status}`)
    versions.push(run.model_version as string)
  }
  log(
    `made ${versions.length} calibrated versions on ${all.length} surveyed plots (${((performance.now() - started) / versions.length).toFixed(0)} ms a calibration)`,
  )
  return versions
}
