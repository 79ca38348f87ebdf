// The slice of autocannon 9's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  export interface AutocannonRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest
    /** Called with each answer and the context its setupRequest saw (one request in flight per connection). */
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string | string[]>,
    ) => void
  }

  export interface AutocannonOptions {
    url: string
    connections?: number
    duration?: number
    timeout?: number
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
    requests?: AutocannonRequest[]
    title?: string
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    sent: number
    p50: number
    p90: number
    p99: number
    p99_9: number
  }

  export interface AutocannonResult {
    title?: string
    url: string
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    duration: number
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    resets: number
    statusCodeStats: Record<string, { count: number }>
    '1xx': number
    '2xx': number
    '3xx': number
    '4xx': number
    '5xx': number
  }

  export interface Instance extends NodeJS.EventEmitter {
    stop(): void
  }

  function autocannon(
    options: AutocannonOptions,
    callback: (error: Error | null, result: AutocannonResult) => void,
  ): Instance

  export default autocannon
}
