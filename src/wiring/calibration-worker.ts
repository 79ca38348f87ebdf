import { parentPort } from 'node:worker_threads'
import { fitCalibration } from '../domain/calibration/calibration-fit.ts'
import { calibrationInput, type FitRequest } from '../domain/calibration/calibration-service.ts'

/*
 * A calibration fit on a thread of its own (./calibration-thread.ts starts it): one request in, the
 * stages as they end, then the fit or the error's message.
 */
export type FitMessage =
  | { kind: 'stage'; done: number }
  | { kind: 'fit'; fit: ReturnType<typeof fitCalibration> }
  | { kind: 'error'; message: string }

parentPort?.once('message', (request: FitRequest) => {
  const post = (message: FitMessage) => parentPort?.postMessage(message)
  try {
    const fit = fitCalibration(calibrationInput(request), (done) => post({ kind: 'stage', done }))
    post({ kind: 'fit', fit })
  } catch (error) {
    post({ kind: 'error', message: error instanceof Error ? error.message : String(error) })
  }
})
