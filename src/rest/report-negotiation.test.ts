import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../domain/errors.ts'
import { reportAsked } from './report-negotiation.ts'

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage
const url = (query = '') => new URL(`http://api.test/v1/predict/compare${query}`)

describe('whether an answer is a PDF report, and which', () => {
  it.each([
    [{}, null],
    [{ accept: '*/*' }, null],
    [{ accept: 'application/json, application/pdf' }, null],
    [{ accept: 'application/pdf;q=0' }, null],
    [{ accept: 'text/html' }, null],
    [{ accept: 'application/pdf' }, { language: 'en', paper: 'letter' }],
    [{ accept: 'application/json;q=0.1, application/pdf' }, { language: 'en', paper: 'letter' }],
    [
      { accept: 'application/pdf', 'accept-language': 'es-ES' },
      { language: 'es', paper: 'a4' },
    ],
    [
      { accept: 'application/pdf', 'accept-language': 'es-MX, en;q=0.5' },
      { language: 'es', paper: 'letter' },
    ],
    [
      { accept: 'application/pdf', 'accept-language': 'en;q=0.2, es;q=0.9' },
      { language: 'es', paper: 'a4' },
    ],
    [
      { accept: 'application/pdf', 'accept-language': 'de-CH, en;q=0.8' },
      { language: 'en', paper: 'a4' },
    ],
  ])('%j → %j', (headers, expected) => {
    expect(reportAsked(request(headers), url())).toEqual(expected)
  })

  it('takes ?paper= over the language', () => {
    expect(
      reportAsked(request({ accept: 'application/pdf', 'accept-language': 'en-US' }), url('?paper=a4')),
    ).toEqual({
      language: 'en',
      paper: 'a4',
    })
  })

  it.each([
    ['?paper=A3', 'must be a4 or letter'],
    ['?paper=', 'must be a4 or letter'],
    ['?paper=a4&paper=a4', 'must be given once'],
  ])('refuses %s, whatever the Accept, naming the parameter', (query, reason) => {
    for (const accept of ['application/pdf', 'application/json']) {
      let refused: unknown
      try {
        reportAsked(request({ accept }), url(query))
      } catch (error) {
        refused = error
      }
      expect(refused).toBeInstanceOf(ApiError)
      expect((refused as ApiError).code).toBe('invalid_request')
      expect((refused as ApiError).details).toMatchObject({ field: 'paper', reason })
    }
  })
})
