import { existsSync, readFileSync } from 'node:fs'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { productionCommand } from '../bench/production-command.ts'
import { loadConfig, serverConfig } from '../src/config/config.ts'

const root = new URL('../', import.meta.url)
const read = (file: string) => readFileSync(new URL(file, root), 'utf8')
const scripts: Record<string, string> = JSON.parse(read('package.json')).scripts

/** Docker cannot run here: these checks keep the files consistent with the code by reading them. */
describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile')
  const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+ /.test(line))

  it('is multi-stage, runs as a non-root user and has a HEALTHCHECK on /v1/health', () => {
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2)
    expect(instructions.find((line) => line.startsWith('USER '))).toMatch(/^USER (node|\d{3,})/)
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/v1\/health/)
  })

  it('compiles in a build stage and runs the compiled server (npm run start:prod)', () => {
    expect(dockerfile).toMatch(/FROM \S+ AS build[\s\S]*RUN npm run build/)
    expect(dockerfile).toMatch(/COPY --from=build \/app\/dist \.\/dist/)
    const cmd = JSON.parse(instructions.at(-1)?.replace(/^CMD /, '') ?? '[]') as string[]
    const production = productionCommand(scripts['start:prod'])
    expect(cmd).toEqual(['node', ...production.nodeArgs, production.entry])
    // start:prod's settings (written before `node`) are the image's too, for the app and the worker alike.
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))
    expect(Object.keys(production.env).length).toBeGreaterThan(0)
    for (const [name, value] of Object.entries(production.env))
      expect(runtimeStage).toMatch(new RegExp(`^ENV ${name}=${value}$`, 'm'))
    expect(scripts.build).toMatch(/tsc -p tsconfig\.build\.json/)
    for (const file of ['tsconfig.json', 'tsconfig.build.json'])
      expect(dockerfile).toMatch(new RegExp(`COPY [^\\n]*${file.replace('.', '\\.')}`))
  })

  it('copies every folder the server reads at run time', () => {
    for (const folder of ['src', 'data', 'sql', 'schema']) {
      expect(dockerfile).toMatch(new RegExp(`COPY ${folder} \\./${folder}`))
      expect(existsSync(new URL(folder, root))).toBe(true)
    }
  })
})

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml')) as {
    services: Record<
      string,
      {
        environment?: Record<string, string>
        command?: string[]
        depends_on?: object
        profiles?: string[]
        ports?: string[]
        volumes?: string[]
        user?: string
      }
    >
  }
  /** A value as docker compose gives it when the variable is unset: `${NAME:-default}` → default. */
  const unsetVariables = (environment: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(environment).map(([name, value]) => [name, value.replace(/\$\{\w+:-([^}]*)\}/g, '$1')]),
    )

  it('starts PostgreSQL, Redis, a migrate-and-seed step, then the app and a job worker; a read replica only in its profile', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'app',
      'mailpit',
      'migrate',
      'postgres',
      'postgres-replica',
      'redis',
      'worker',
    ])
    const profiles: Record<string, string[]> = { 'postgres-replica': ['replica'], mailpit: ['dev'] }
    for (const [name, service] of Object.entries(compose.services))
      expect(service.profiles, name).toEqual(profiles[name])
    for (const service of ['app', 'worker'])
      expect(compose.services[service]?.depends_on).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
      })
  })

  it('clones the replica from the primary (pg_basebackup -R, as the postgres user), which allows it to stream', () => {
    const replica = compose.services['postgres-replica']
    expect(replica?.user).toBe('postgres')
    expect(replica?.command?.join(' ')).toMatch(/pg_basebackup -h postgres -U survival -D \S+ -R/)
    expect(replica?.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } })
    const mount = compose.services.postgres?.volumes?.find((volume) =>
      volume.includes('docker-entrypoint-initdb.d'),
    )
    const script = read(mount?.split(':')[0]?.replace(/^\.\//, '') ?? 'missing')
    expect(script).toMatch(/host replication all all scram-sha-256/)
    for (const service of ['app', 'worker'])
      expect(compose.services[service]?.environment?.DATABASE_REPLICA_URLS).toBe(
        `$\{DATABASE_REPLICA_URLS:-}`,
      )
  })

  it('runs the compiled worker the build emits, with the node flags of npm run start:prod', () => {
    const command = compose.services.worker?.command ?? []
    const entry = command.find((part) => part.endsWith('.js')) ?? ''
    expect(entry).toBe('dist/src/wiring/worker.js')
    expect(command).toEqual(['node', ...productionCommand(scripts['start:prod']).nodeArgs, entry])
    expect(existsSync(new URL('src/wiring/worker.ts', root))).toBe(true)
  })

  it('runs the key mail flow against the dev profile’s mail catcher, and keeps POST /keys off without SMTP_URL', () => {
    const app = compose.services.app?.environment ?? {}
    expect(app.SMTP_URL).toBe(`$\{SMTP_URL:-}`)
    // As the header says: SMTP_URL=smtp://mailpit:1025 docker compose --profile dev up
    expect(read('docker-compose.yml')).toContain(
      'SMTP_URL=smtp://mailpit:1025 docker compose --profile dev up',
    )
    const withCatcher = loadConfig(
      { ...unsetVariables(app), SMTP_URL: 'smtp://mailpit:1025' },
      { server: true },
    )
    expect(withCatcher).toMatchObject({
      SMTP_URL: 'smtp://mailpit:1025',
      PUBLIC_URL: 'http://localhost:8080',
    })
    expect(withCatcher.MAIL_FROM).toMatch(/<keys@localhost>$/)
    // mailpit takes SMTP on 1025 and shows its inbox on 8025, published to this host's loopback only.
    expect(compose.services.mailpit?.ports).toEqual(['127.0.0.1:8025:8025'])
  })

  it('runs npm scripts that exist', () => {
    const migrate = compose.services.migrate?.command?.join(' ') ?? ''
    for (const script of migrate.match(/npm run ([\w:]+)/g) ?? []) {
      expect(scripts[script.replace('npm run ', '')]).toBeDefined()
    }
    expect(migrate).toMatch(/db:migrate.*db:seed/)
  })

  it('sets only configuration the app knows, and values it accepts', () => {
    const schemaKeys = Object.keys(loadConfig({}))
    for (const service of ['app', 'migrate', 'worker'] as const) {
      const environment = unsetVariables(compose.services[service]?.environment ?? {})
      for (const name of Object.keys(environment))
        expect([
          ...schemaKeys,
          'DATABASE_URL',
          'REDIS_URL',
          'METRICS_TOKEN',
          'METRICS_PORT',
          'ADDRESS_HASH_KEY',
          'SMTP_URL',
          'MAIL_FROM',
          'PUBLIC_URL',
        ]).toContain(name)
      // The app is a server: with DATABASE_URL its /metrics must be closed (METRICS_TOKEN or METRICS_PORT).
      expect(() => loadConfig(environment, { server: service === 'app' })).not.toThrow()
      // A server with DATABASE_URL needs ADDRESS_HASH_KEY too (serverConfig); the worker and the tools do not.
      if (service === 'app') expect(() => serverConfig(loadConfig(environment))).not.toThrow()
    }
  })
})

/** npm ci warns EBADENGINE for every locked package whose engines leave out the Node we declare. */
describe('declared Node engines', () => {
  const manifest = JSON.parse(read('package.json')) as { engines: { node: string } }
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { engines?: { node?: string } | string[] }>
  }
  const lowestSupported = semver.minVersion(manifest.engines.node)?.version ?? ''

  it('hold for the Node this machine runs and the Docker image is built on', () => {
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true)
    const imageMajors = [...read('Dockerfile').matchAll(/^FROM node:(\d+)/gm)].map((match) => match[1])
    expect(new Set(imageMajors)).toEqual(new Set([String(semver.major(lowestSupported))]))
  })

  it('hold for every locked dependency (npm ci prints no EBADENGINE warning)', () => {
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      return path && range && !semver.satisfies(lowestSupported, range) ? [`${path} needs node ${range}`] : []
    })
    expect(refusing).toEqual([])
  })
})
