import { describe, expect, it } from 'vitest'
import { renderGraphiQLOnce } from './graphiql-page.ts'

const asBytes = (page: string) => page as unknown as Buffer
/** Identity, not contents: vitest's toBe would compare two 9 MB pages byte by byte for its hint. */
const same = (a: Buffer, b: Buffer) => a === b

describe('the GraphiQL page', () => {
  it('is rendered once per options and served as the same bytes on every view', () => {
    const options = { title: 'Survival Prediction API', defaultQuery: '{ health { status } }' }
    const first = asBytes(renderGraphiQLOnce(options))
    const again = asBytes(renderGraphiQLOnce({ ...options }))
    expect(Buffer.isBuffer(first)).toBe(true)
    expect(same(again, first)).toBe(true)
    const html = first.toString('utf8')
    expect(html).toMatch(/<title>Survival Prediction API<\/title>/)
    expect(html).toContain(JSON.stringify(options.defaultQuery))
  })

  it('renders other options as a page of their own', () => {
    const one = asBytes(renderGraphiQLOnce({ title: 'one' }))
    const two = asBytes(renderGraphiQLOnce({ title: 'two' }))
    expect(same(two, one)).toBe(false)
    expect(two.toString('utf8')).toMatch(/<title>two<\/title>/)
  })

  it('keeps at most a few pages, whatever options it is given', () => {
    const first = asBytes(renderGraphiQLOnce({ title: 'kept 0' }))
    for (let n = 1; n <= 4; n++) renderGraphiQLOnce({ title: `kept ${n}` })
    // The first was let go to stay within the bound: asking again renders it anew.
    expect(same(asBytes(renderGraphiQLOnce({ title: 'kept 0' })), first)).toBe(false)
  })
})
