import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodedText, JsonEncoder, SerializedJson, sendJson } from './json.ts'

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

describe('JsonEncoder pieces', () => {
  const anyDouble = fc.oneof(
    fc.double(),
    fc.constantFrom(-0, 1e-7, 1e21, -1.2345678901234567e-308, Number.MAX_VALUE, Number.MIN_VALUE),
  )

  it('copies each number of a JSON.stringify-ed list as JSON writes it, whichever buffer it falls in, and no more', () => {
    fc.assert(
      fc.property(fc.array(anyDouble, { minLength: 1, maxLength: 60 }), fc.nat(40), (values, chunk) => {
        const numbers = JSON.stringify(values)
        const out = new JsonEncoder(chunk + 1)
        out.useNumbers(numbers)
        for (let i = 0; i < values.length; i++) {
          if (i) out.write(',')
          out.writeNumber()
        }
        expect(() => out.writeNumber()).toThrow(RangeError)
        expect(out.finish().text).toBe(numbers.slice(1, -1))
      }),
    )
  })

  it('writes counts as JSON does, and any other number as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(), fc.maxSafeNat(), anyDouble), (value) => {
        const out = new JsonEncoder(8)
        out.writeCount(value)
        expect(out.finish().text).toBe(JSON.stringify(value))
      }),
    )
  })

  it('writes encoded pieces and texts in order, each whole, across buffers of any size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.string({ unit: 'grapheme', maxLength: 40 })), { maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        (pieces, chunk) => {
          const out = new JsonEncoder(chunk)
          for (const [asBytes, text] of pieces) asBytes ? out.writeBytes(Buffer.from(text)) : out.write(text)
          const encoded = out.finish()
          expect(encoded.text).toBe(pieces.map(([, text]) => text).join(''))
          expect(encoded.byteLength).toBe(Buffer.byteLength(encoded.text))
        },
      ),
    )
  })
})

describe('JsonEncoder numbers', () => {
  it('stops at the end of a list that lacks its closing bracket, and refuses to read past it', () => {
    const out = new JsonEncoder(8)
    out.useNumbers('[1.5,2.25,3.125]')
    out.writeNumber()
    out.useNumbers('[4,5')
    out.writeNumber()
    out.writeNumber()
    expect(() => out.writeNumber()).toThrow(RangeError)
    expect(out.finish().text).toBe('1.545')
  })

  it('shares one buffer of numbers between encoders, refusing numbers another was given since', () => {
    const first = new JsonEncoder()
    const second = new JsonEncoder()
    first.useNumbers('[1,2]')
    first.writeNumber()
    second.useNumbers(JSON.stringify(Array.from({ length: 3000 }, (_, i) => i + 0.5)))
    second.writeNumber()
    expect(() => first.writeNumber()).toThrow(/another encoder/)
    expect(second.finish().text).toBe('0.5')
  })
})

describe('encodedText', () => {
  it('gives each call its own text, long or short, and a call made while another writes its own buffers', () => {
    const long = 'é'.repeat(50_000)
    expect(encodedText((out) => out.write(long))).toBe(long)
    let inner = ''
    const outer = encodedText((out) => {
      out.write('{"a":')
      inner = encodedText((nested) => nested.write('"inner"'))
      out.write('1}')
    })
    expect(outer).toBe('{"a":1}')
    expect(inner).toBe('"inner"')
    expect(encodedText((out) => out.write('short'))).toBe('short')
  })

  it('is free again after a writer throws', () => {
    expect(() =>
      encodedText(() => {
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(encodedText((out) => out.write('after'))).toBe('after')
  })
})
