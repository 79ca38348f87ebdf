import { createServer, type IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { ApiError, ClientClosedError } from '../domain/errors.ts'
import { readBodyBytes } from './body.ts'

/** A server whose one request's body read ends (bytes or error) is handed back; the client is `send`. */
async function readOne(send: (port: number) => void, limit = 1024): Promise<Buffer | Error> {
  let settle: (outcome: Buffer | Error) => void = () => {}
  const outcome = new Promise<Buffer | Error>((resolve) => {
    settle = resolve
  })
  const server = createServer((req: IncomingMessage, res) => {
    readBodyBytes(req, limit).then(settle, settle)
    req.on('end', () => res.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  send(port)
  try {
    return await outcome
  } finally {
    server.closeAllConnections()
    server.close()
  }
}

/** 413 payload_too_large, telling the client the connection closes. */
function expectTooLarge(outcome: Buffer | Error, limit: number) {
  expect(outcome).toBeInstanceOf(ApiError)
  expect(outcome).toMatchObject({
    code: 'payload_too_large',
    status: 413,
    details: { limit_bytes: limit },
    headers: { connection: 'close' },
  })
}

const head = (length: number) =>
  `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`

describe('readBodyBytes', () => {
  it('reads the whole body', async () => {
    const outcome = await readOne((port) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`${head(7)}{"a":1}`))
    })
    expect(outcome).toEqual(Buffer.from('{"a":1}'))
  })

  it('joins a body that arrives in several pieces', async () => {
    const outcome = await readOne((port) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`${head(11)}{"ab`)
        setTimeout(() => socket.write('c":'), 10)
        setTimeout(() => socket.write('123}'), 20)
      })
    })
    expect(outcome).toEqual(Buffer.from('{"abc":123}'))
  })

  it('reports a client that hangs up mid-body as ClientClosedError, not as a failure of ours', async () => {
    const outcome = await readOne((port) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`${head(100)}{"lat`)
        setTimeout(() => socket.destroy(), 20)
      })
    })
    expect(outcome).toBeInstanceOf(ClientClosedError)
  })

  it('reads a chunked body too, and stops a chunked body at the limit', async () => {
    const chunked = (body: string) =>
      `POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
    const small = await readOne((port) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(chunked('{"a":1}')))
    })
    expect(small).toEqual(Buffer.from('{"a":1}'))
    const big = await readOne((port) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(chunked('x'.repeat(40))))
    }, 10)
    expectTooLarge(big, 10)
  })

  it('refuses a declared Content-Length over the limit before reading', async () => {
    const outcome = await readOne((port) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`${head(40)}${'x'.repeat(40)}`))
    }, 10)
    expectTooLarge(outcome, 10)
  })
})
