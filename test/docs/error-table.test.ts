import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES, errorStatus } from '../../src/domain/errors.ts'

/** docs/api.md → Errors lists every code of src/domain/errors.ts once, with its HTTP status. */

const API_DOC = resolve(import.meta.dirname, '../../docs/api.md')

function documentedCodes(): Map<string, number> {
  const text = readFileSync(API_DOC, 'utf8')
  const section = text.slice(text.indexOf('\n## Errors\n'))
  const end = section.indexOf('\n## ', 1)
  const rows = (end === -1 ? section : section.slice(0, end)).matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)
  const codes = new Map<string, number>()
  for (const [, code, status] of rows) {
    expect(codes.has(code as string), `${code} is listed twice`).toBe(false)
    codes.set(code as string, Number(status))
  }
  return codes
}

describe('docs/api.md error table', () => {
  it('lists every error code with its status, and no other', () => {
    const documented = documentedCodes()
    expect([...documented.keys()].sort()).toEqual([...ERROR_CODES].sort())
    for (const code of ERROR_CODES) expect(documented.get(code), code).toBe(errorStatus(code))
  })
})
