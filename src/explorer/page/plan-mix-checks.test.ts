import { describe, expect, it } from 'vitest'
import { formatShare, mixProblem } from './plan-mix-checks.ts'

const name = (code: string) => ({ PSME: 'Douglas-fir', TSHE: 'western hemlock' })[code] ?? code

describe('the species mix', () => {
  it('passes shares summing to 1, within the API’s tolerance', () => {
    expect(mixProblem([{ speciesCode: 'PSME', share: 1 }], name)).toBeNull()
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 0.333 },
          { speciesCode: 'TSHE', share: 0.333 },
          { speciesCode: 'THPL', share: 0.334 },
        ],
        name,
      ),
    ).toBeNull()
  })

  it('names what is wrong: the sum, a share out of range, a species twice', () => {
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 0.6 },
          { speciesCode: 'TSHE', share: 0.3 },
        ],
        name,
      ),
    ).toEqual({
      message: 'The shares of the species mix sum to 0.90; they must sum to 1.',
      rows: [0, 1],
      kind: 'sum',
    })
    expect(mixProblem([{ speciesCode: 'PSME', share: Number.NaN }], name)?.message).toBe(
      'The share of species 1 (Douglas-fir) must be above 0 and at most 1.',
    )
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 1 },
          { speciesCode: 'TSHE', share: 0 },
        ],
        name,
      )?.rows,
    ).toEqual([1])
    expect(
      mixProblem(
        [
          { speciesCode: 'PSME', share: 0.5 },
          { speciesCode: 'PSME', share: 0.5 },
        ],
        name,
      ),
    ).toMatchObject({
      kind: 'species',
      rows: [0, 1],
      message: expect.stringMatching(/^Douglas-fir is in the mix twice/),
    })
    expect(mixProblem([], name)?.kind).toBe('species')
  })

  it('writes a sum with the digits that show how far it is from 1', () => {
    expect(formatShare(1)).toBe('1.00')
    expect(formatShare(0.9)).toBe('0.90')
    expect(formatShare(0.999)).toBe('0.999')
  })
})
