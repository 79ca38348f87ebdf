import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** A full garbage collection now, for tests that weigh what stays in memory (no --expose-gc needed). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}
