import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JsonEncoder, SerializedJson, sendJson } from './json.ts'

function recordingResponse() {
  const sent: {
    status?: number
    headers?: Record<string, unknown>
    body?: string | Buffer
    written: Buffer[]
    corked: number
  } = { written: [], corked: 0 }
  const res = {
    writeHead(status: number, headers: Record<string, unknown>) {
      sent.status = status
      sent.headers = headers
      return this
    },
    cork() {
      sent.corked += 1
    },
    uncork() {
      sent.corked -= 1
    },
    write(chunk: Buffer) {
      sent.written.push(chunk)
      return true
    },
    end(body?: string | Buffer) {
      sent.body = body
    },
  } as unknown as ServerResponse
  return { res, sent }
}

describe('sendJson', () => {
  it('sends a small body as text, with its UTF-8 byte length as Content-Length', () => {
    const { res, sent } = recordingResponse()
    sendJson(res, 200, { name: 'Épinette — 😀' }, { 'x-request-id': 'r1' })
    expect(typeof sent.body).toBe('string')
    expect(sent.headers).toMatchObject({
      'x-request-id': 'r1',
      'content-type': 'application/json; charset=utf-8',
    })
    expect(sent.headers?.['content-length']).toBe(
      Buffer.byteLength(JSON.stringify({ name: 'Épinette — 😀' })),
    )
  })

  it('encodes a large body once into a buffer whose length is the Content-Length', () => {
    const { res, sent } = recordingResponse()
    const text = JSON.stringify({ results: 'é'.repeat(40_000) })
    sendJson(res, 200, new SerializedJson(text))
    expect(Buffer.isBuffer(sent.body)).toBe(true)
    expect(sent.headers?.['content-length']).toBe((sent.body as Buffer).length)
    expect((sent.body as Buffer).toString('utf8')).toBe(text)
  })

  it('sends an encoded body as its chunks, corked, with their total length as Content-Length', () => {
    const { res, sent } = recordingResponse()
    const out = new JsonEncoder()
    const pieces = Array.from(
      { length: 300 },
      (_, i) => `{"i":${i},"name":"Épinette — 😀 ${'x'.repeat(i * 3)}"},`,
    )
    for (const piece of pieces) out.write(piece)
    sendJson(res, 200, out.finish())
    expect(sent.written.length).toBeGreaterThan(1)
    expect(sent.corked).toBe(0)
    const bytes = Buffer.concat(sent.written)
    expect(sent.headers?.['content-length']).toBe(bytes.length)
    expect(bytes.toString('utf8')).toBe(pieces.join(''))
  })
})

describe('JsonEncoder', () => {
  it('encodes any sequence of texts to exactly their UTF-8 bytes, whatever their sizes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'grapheme', maxLength: 300 }),
            fc.string({ minLength: 30_000, maxLength: 40_000 }),
          ),
          {
            maxLength: 12,
          },
        ),
        (texts) => {
          const out = new JsonEncoder()
          for (const text of texts) out.write(text)
          const encoded = out.finish()
          const expected = Buffer.from(texts.join(''))
          expect(encoded.byteLength).toBe(expected.length)
          expect(Buffer.concat(encoded.chunks).equals(expected)).toBe(true)
          expect(encoded.chunks.every((chunk) => chunk.length > 0)).toBe(true)
        },
      ),
      { numRuns: 40 },
    )
  })
})
