/**
 * Loaded into a measured server with `--import` (BENCH_PROFILE_DIR, bench/servers.ts): a CPU profile of the
 * load window only. The first SIGUSR2 starts V8's sampling profiler in this process, the next one stops it
 * and writes `<dir>/<label>.cpuprofile`, the label read from `<dir>/next-label` (written by the bench just
 * before the signal). Startup, the pre-pass and the warm-up are never in a profile.
 * Plain JavaScript: the production server runs without a TypeScript loader.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'

const dir = process.env.BENCH_PROFILE_DIR
if (dir) {
  const session = new Session()
  session.connect()
  let running = false
  let busy = Promise.resolve()
  process.on('SIGUSR2', () => {
    busy = busy.then(async () => {
      if (!running) {
        await session.post('Profiler.enable')
        await session.post('Profiler.setSamplingInterval', { interval: 200 })
        await session.post('Profiler.start')
        running = true
        return
      }
      const { profile } = await session.post('Profiler.stop')
      running = false
      const label = readFileSync(join(dir, 'next-label'), 'utf8').trim()
      writeFileSync(join(dir, `${label}.cpuprofile`), JSON.stringify(profile))
      writeFileSync(join(dir, `${label}.done`), '')
    })
  })
}
