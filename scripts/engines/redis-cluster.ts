/** A Redis 7 Cluster of 3 masters and 3 replicas, for tests and benchmarks (scripts/engines.ts). */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventually } from '../../test/support/waiting.ts'
import { HOST, portIsFree, type RunResult, run, runOk, START_TIMEOUT_MS, waitForExit } from './processes.ts'

export interface RedisCluster {
  /** `host:port` of the six nodes. */
  nodes: string[]
  /** The redis-server PIDs, in the order of `nodes`. */
  pids: number[]
  /** The temporary directory holding the nodes' cluster config files. */
  dataDir: string
  stop(): Promise<void>
  startupMs: number
}

/**
 * Ports P for Redis Cluster nodes: P and its cluster bus port P + 10000 both free. Drawn from 20000-55000,
 * below the kernel's ephemeral range start, so P + 10000 stays a valid port.
 */
async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = []
  for (let attempt = 0; ports.length < count && attempt < 1000; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000)
    if (ports.some((taken) => taken === port || taken === port + 10_000 || taken + 10_000 === port)) continue
    if ((await portIsFree(port)) && (await portIsFree(port + 10_000))) ports.push(port)
  }
  if (ports.length < count) throw new Error('no free ports for the Redis Cluster')
  return ports
}

async function redisCli(port: number, ...args: string[]): Promise<RunResult> {
  return run('redis-cli', ['-h', HOST, '-p', String(port), ...args], 5000)
}

/**
 * A Redis 7 Cluster of 3 masters and 3 replicas: six `redis-server` processes spawned on free ports (their
 * PIDs kept), joined by `redis-cli --cluster create --cluster-replicas 1`. Resolves once every node's
 * CLUSTER INFO says `cluster_state:ok` and knows all six nodes.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const started = performance.now()
  const dataDir = mkdtempSync(join(tmpdir(), 'engines-redis-'))
  const children: { port: number; child: ChildProcess; output: () => string }[] = []

  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    const pids = children.map(({ child }) => child.pid).filter((pid): pid is number => pid !== undefined)
    for (const { child } of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await waitForExit(pids)
    rmSync(dataDir, { recursive: true, force: true })
  }

  try {
    const ports = await clusterPorts(6)
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dataDir, `nodes-${port}.conf`),
          '--bind',
          HOST,
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dataDir,
          '--daemonize',
          'no',
        ],
        // Its own process group: a Ctrl-C in the terminal reaches the CLI, which then stops the nodes in order.
        { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      )
      let output = ''
      child.stdout?.on('data', (chunk) => {
        output += chunk
      })
      child.stderr?.on('data', (chunk) => {
        output += chunk
      })
      children.push({ port, child, output: () => output })
    }
    for (const { port, child, output } of children) {
      const up = await eventually(
        async () => {
          if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited:\n${output()}`)
          return (await redisCli(port, 'PING')).output.trim() === 'PONG'
        },
        START_TIMEOUT_MS,
        25,
      )
      if (!up) throw new Error(`redis-server on ${port} did not answer PING:\n${output()}`)
    }

    const nodes = ports.map((port) => `${HOST}:${port}`)
    await runOk('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '1', '--cluster-yes'])
    for (const port of ports) {
      const ok = await eventually(
        async () => {
          const info = (await redisCli(port, 'CLUSTER', 'INFO')).output
          return info.includes('cluster_state:ok') && info.includes('cluster_known_nodes:6')
        },
        START_TIMEOUT_MS,
        50,
      )
      if (!ok) throw new Error(`the cluster is not ok on ${HOST}:${port}`)
    }
    const pids = children.map(({ child }) => child.pid as number)
    return { nodes, pids, dataDir, stop, startupMs: Math.round(performance.now() - started) }
  } catch (error) {
    await stop().catch(() => {})
    throw error
  }
}
