import { createServer, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { freePort } from './net.ts'
import { checkServices } from './preflight.ts'
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from './services.ts'

/** The preflight `npm test` runs first (vitest globalSetup), against services that are not there. */
describe('the PostgreSQL and Redis preflight', () => {
  it('passes when both answer', async () => {
    await expect(
      checkServices({ databaseUrl: ADMIN_DATABASE_URL, redisUrl: TEST_REDIS_URL }),
    ).resolves.toBeUndefined()
  })

  it.each([
    {
      service: 'PostgreSQL',
      other: 'Redis',
      targets: (port: number) => ({
        databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
        redisUrl: TEST_REDIS_URL,
      }),
      remedies: [
        'docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15',
        'TEST_ADMIN_DATABASE_URL',
      ],
    },
    {
      service: 'Redis',
      other: 'PostgreSQL',
      targets: (port: number) => ({ databaseUrl: ADMIN_DATABASE_URL, redisUrl: `redis://127.0.0.1:${port}` }),
      remedies: ['docker run -d -p 6379:6379 redis:7', 'TEST_REDIS_URL'],
    },
  ])(
    'names $service and its remedy in one line, at once, when nothing listens on its port',
    async ({ service, other, targets, remedies }) => {
      const port = await freePort()
      const started = Date.now()
      const error = await checkServices(targets(port)).catch((e: Error) => e)
      expect(Date.now() - started).toBeLessThan(2500)
      expect(error).toBeInstanceOf(Error)
      const { message } = error as Error
      expect(message).not.toContain('\n')
      expect(message).toContain(`${service} at 127.0.0.1:${port} is unavailable (connect ECONNREFUSED`)
      for (const remedy of remedies) expect(message).toContain(remedy)
      expect(message).not.toContain(`${other} at`)
    },
  )

  it('names both, never the credentials of a URL', async () => {
    const port = await freePort()
    const error = await checkServices({
      databaseUrl: `postgres://admin:s3cret@127.0.0.1:${port}/postgres`,
      redisUrl: `redis://:s3cret@127.0.0.1:${port}`,
    }).catch((e: Error) => e)
    const { message } = error as Error
    expect(message).toMatch(/PostgreSQL at .* is unavailable.*; Redis at .* is unavailable/)
    expect(message).not.toContain('s3cret')
  })

  it('gives up after the timeout on a port that accepts and never answers', async () => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => void sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as { port: number }
    try {
      const started = Date.now()
      const error = await checkServices(
        {
          databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
          redisUrl: `redis://127.0.0.1:${port}`,
        },
        300,
      ).catch((e: Error) => e)
      expect(Date.now() - started).toBeLessThan(1500)
      expect((error as Error).message).toMatch(
        /PostgreSQL at .* is unavailable.*; Redis at .* is unavailable/,
      )
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})
