import { describe, expect, it } from 'vitest'
import { productionCommand } from './production-command.ts'

describe('npm run start:prod, taken apart for the bench', () => {
  it('splits the settings before node, its flags and the entry', () => {
    expect(
      productionCommand('MALLOC_MMAP_THRESHOLD_=131072 A_B=x node --max-semi-space-size=16 dist/src/main.js'),
    ).toEqual({
      env: { MALLOC_MMAP_THRESHOLD_: '131072', A_B: 'x' },
      nodeArgs: ['--max-semi-space-size=16'],
      entry: 'dist/src/main.js',
    })
    expect(productionCommand('node dist/src/main.js')).toEqual({
      env: {},
      nodeArgs: [],
      entry: 'dist/src/main.js',
    })
  })

  it('refuses a command that does not run node, or names no entry', () => {
    expect(() => productionCommand('X=1 tsx src/main.ts')).toThrow(/must run node/)
    expect(() => productionCommand('X=1')).toThrow(/must run node/)
    expect(() => productionCommand('node')).toThrow(/no entry/)
  })

  it("reads package.json's own", () => {
    const command = productionCommand()
    expect(command.entry).toBe('dist/src/wiring/main.js')
    expect(command.env.MALLOC_MMAP_THRESHOLD_).toBe('131072')
  })
})
