import { describe, expect, it } from 'vitest'
import { profilerKind } from './window-profiler.ts'

describe('BENCH_PROFILER', () => {
  it('means the V8 profiler when unset or empty', () => {
    expect(profilerKind(undefined)).toBe('v8')
    expect(profilerKind('')).toBe('v8')
  })

  it('takes the profilers it knows', () => {
    expect(profilerKind('v8')).toBe('v8')
    expect(profilerKind('perf')).toBe('perf')
  })

  it('refuses anything else rather than quietly profiling with V8', () => {
    expect(() => profilerKind('Perf')).toThrow(/BENCH_PROFILER must be v8 or perf, not "Perf"/)
    expect(() => profilerKind('valgrind')).toThrow(/not "valgrind"/)
  })
})
