import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'

const run = promisify(execFile)

/**
 * `npm run build` + `npm run start:prod` is what the Docker image runs: the compiled server must find
 * its migrations, schema, seed data and model artifact from dist/ and serve both APIs.
 * Built into a throwaway folder inside the checkout (the project root is found through package.json).
 */
describe('the compiled build (npm run build, npm run start:prod)', () => {
  const outDir = `.build-test-${randomBytes(4).toString('hex')}`
  let db: TestDatabase
  let server: ServerProcess | undefined

  beforeAll(async () => {
    await run(process.execPath, [
      'node_modules/typescript/bin/tsc',
      '-p',
      'tsconfig.build.json',
      '--outDir',
      outDir,
    ])
    db = await createSeededDatabase()
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await db?.drop()
    await rm(outDir, { recursive: true, force: true })
  })

  it('emits JavaScript only for the server, CLIs and seed (no tests)', () => {
    expect(existsSync(`${outDir}/src/main.js`)).toBe(true)
    expect(existsSync(`${outDir}/src/cli/db-migrate.js`)).toBe(true)
    expect(existsSync(`${outDir}/src/app.test.js`)).toBe(false)
    expect(existsSync(`${outDir}/test`)).toBe(false)
  })

  it('serves health, REST, GraphQL and the OpenAPI document, and stops cleanly', async () => {
    server = await startServerProcess({ DATABASE_URL: db.url }, 60_000, [`${outDir}/src/main.js`])
    const { key } = await issueKey(db, 'mycel')
    const health = await (await fetch(`${server.url}/v1/health`)).json()
    expect(health).toMatchObject({ status: 'healthy', database: 'connected' })

    const predict = await fetch(`${server.url}/v1/predict`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
      }),
    })
    expect(predict.status).toBe(200)
    expect((await predict.json()).predictions).toHaveLength(3)

    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        query: '{ species(search: "fir") { code } coverage { region searchRadiusKm } }',
      }),
    })
    const answer = await graphql.json()
    expect(answer.errors).toBeUndefined()
    expect(graphql.status).toBe(200)
    expect(answer.data.coverage).toEqual({ region: 'pnw', searchRadiusKm: 10 })

    const openapi = await fetch(`${server.url}/v1/openapi.json`)
    expect((await openapi.json()).openapi).toBe('3.1.0')

    expect(await server.stop()).toBe(0)
    server = undefined
  })
})
