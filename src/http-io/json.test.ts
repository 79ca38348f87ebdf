import type { ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { SerializedJson, sendJson } from './json.ts'

function recordingResponse() {
  const sent: { status?: number; headers?: Record<string, unknown>; body?: string | Buffer } = {}
  const res = {
    writeHead(status: number, headers: Record<string, unknown>) {
      sent.status = status
      sent.headers = headers
      return this
    },
    end(body: string | Buffer) {
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
})
