import { Worker } from 'node:worker_threads'
import type { FitRunner } from '../domain/calibration/calibration-service.ts'
import type { FitMessage } from './calibration-worker.ts'

/*
 * Runs each calibration fit in a worker thread, so that a fit of 100,000 plots (seconds of arithmetic)
 * never holds up the requests the process serves. Run from TypeScript sources (npm start, the tests)
 * the thread loads the worker through tsx, as the main thread was; built, it loads the .js beside this.
 */

const fromSources = import.meta.url.endsWith('.ts')
const WORKER_URL = new URL(`./calibration-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url)

function startWorker(): Worker {
  if (!fromSources) return new Worker(WORKER_URL)
  const loader = import.meta.resolve('tsx/esm/api')
  const entry = WORKER_URL.href
  return new Worker(
    `import(${JSON.stringify(loader)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`,
    { eval: true },
  )
}

export const fitInThread: FitRunner = (request, onStage) =>
  new Promise((resolve, reject) => {
    const worker = startWorker()
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      outcome()
      void worker.terminate()
    }
    worker.on('message', (message: FitMessage) => {
      if (message.kind === 'stage') onStage(message.done)
      else if (message.kind === 'fit') settle(() => resolve(message.fit))
      else settle(() => reject(new Error(`calibration fit failed: ${message.message}`)))
    })
    worker.on('error', (error) => settle(() => reject(error)))
    worker.on('exit', (code) =>
      settle(() => reject(new Error(`calibration thread exited with code ${code}`))),
    )
    const transfer = request.columns.groups.flatMap((group) => [
      group.planted.buffer,
      group.alive.buffer,
      group.predicted.buffer,
      group.ageYears.buffer,
      group.plantingYear.buffer,
    ])
    worker.postMessage(request, transfer as ArrayBuffer[])
  })
