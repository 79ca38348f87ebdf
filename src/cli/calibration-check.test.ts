import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../project-files.ts'

const run = promisify(execFile)
const tsx = `${PROJECT_ROOT}/node_modules/.bin/tsx`
const script = `${PROJECT_ROOT}/src/cli/calibration-check.ts`

describe('npm run calibration:check', () => {
  it('prints the coverages, the variance terms and the cross-validation, the same for a seed', async () => {
    const args = [script, '--data-sets', '4', '--cross-validated', '2', '--seed', '3']
    const { stdout } = await run(tsx, args, { cwd: PROJECT_ROOT })
    expect(stdout).toMatch(/^4 data sets of ~300 plots over 6 planting years \(seed 3\)/)
    expect(stdout).toMatch(/90 % intervals of the offsets hold the truth: \d+\.\d % of all/)
    expect(stdout).toMatch(
      /90 % intervals of the variance terms hold the truth: planting year \d+\.\d %, site \d+\.\d %, clumping \d+\.\d %/,
    )
    expect(stdout).toMatch(/mean variance terms: planting year \d\.\d{3}/)
    expect(stdout).toMatch(/where the truth is the base: .* in \d of 2/)
    const again = await run(tsx, args, { cwd: PROJECT_ROOT })
    const withoutTiming = (text: string) => text.replace(/\d+ ms a fit/, '')
    expect(withoutTiming(again.stdout)).toBe(withoutTiming(stdout))
  }, 60_000)

  it('refuses a bad count with its usage, exit code 2', async () => {
    const failed = await run(tsx, [script, '--data-sets', '0'], { cwd: PROJECT_ROOT }).catch((error) => error)
    expect(failed.code).toBe(2)
    expect(failed.stderr).toMatch(/--data-sets must be a whole number from 1 to 2000/)
    expect(failed.stderr).toMatch(/usage: npm run calibration:check/)
    const twoYears = await run(tsx, [script, '--years', '2'], { cwd: PROJECT_ROOT }).catch((error) => error)
    expect(twoYears.code).toBe(2)
    expect(twoYears.stderr).toMatch(/--years must be a whole number from 3 to 30/)
  }, 60_000)

  it('spreads the plots over the planting years asked for', async () => {
    const args = [script, '--data-sets', '2', '--cross-validated', '1', '--years', '10', '--seed', '3']
    const { stdout } = await run(tsx, args, { cwd: PROJECT_ROOT })
    expect(stdout).toMatch(/^2 data sets of ~300 plots over 10 planting years \(seed 3\)/)
  }, 60_000)
})
