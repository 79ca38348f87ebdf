import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { get, post } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { type ServerProcess, startServerProcess } from '../support/process.ts'
import { predictBody } from '../support/sites.ts'

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
    await run(process.execPath, ['--import', 'tsx', 'src/cli/build-explorer.ts', `${outDir}/explorer`])
    db = await createSeededDatabase()
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await db?.drop()
    await rm(outDir, { recursive: true, force: true })
  })

  it('emits JavaScript only for the server, CLIs and seed (no tests)', () => {
    expect(existsSync(`${outDir}/src/wiring/main.js`)).toBe(true)
    expect(existsSync(`${outDir}/src/cli/db-migrate.js`)).toBe(true)
    expect(existsSync(`${outDir}/src/app.test.js`)).toBe(false)
    expect(existsSync(`${outDir}/test`)).toBe(false)
  })

  it('serves health, REST, GraphQL and the OpenAPI document, and stops cleanly', async () => {
    server = await startServerProcess({ DATABASE_URL: db.url }, 60_000, [`${outDir}/src/wiring/main.js`])
    const { key } = await issueKey(db, 'mycel')
    const health = await get(server.url, '/v1/health')
    expect(health.body).toMatchObject({ status: 'healthy', database: 'connected' })

    const predict = await post(server.url, '/v1/predict', predictBody(), key)
    expect(predict.status).toBe(200)
    expect(predict.body.predictions).toHaveLength(3)

    const answer = await graphql(
      server.url,
      '{ species(search: "fir") { code } coverage { region searchRadiusKm } }',
      { key },
    )
    expect(answer.body.errors).toBeUndefined()
    expect(answer.status).toBe(200)
    expect(answer.body.data.coverage).toEqual({ region: 'pnw', searchRadiusKm: 10 })

    expect((await get(server.url, '/v1/openapi.json')).body.openapi).toBe('3.1.0')

    // The explorer page comes from the bundle built beside the compiled server, not rebuilt.
    const built = JSON.parse(readFileSync(`${outDir}/explorer/manifest.json`, 'utf8')) as string[]
    const html = await (await fetch(`${server.url}/`)).text()
    for (const name of built) {
      expect(html).toContain(`/explorer/assets/${name}`)
      expect((await fetch(`${server.url}/explorer/assets/${name}`)).status).toBe(200)
    }

    expect(await server.stop()).toBe(0)
    server = undefined
  })
})
