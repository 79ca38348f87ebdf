import { utcDay } from './day-window.ts'
import type { QuotaConsumption, QuotaStore } from './quota-store.ts'

interface Waiting {
  keyId: string
  limit: number | null
  now: Date
  day: string
  answers: ((consumption: QuotaConsumption) => void)[]
  failures: ((error: unknown) => void)[]
}

/**
 * Single requests for one key that arrive in the same turn of the event loop are counted with one
 * `consumeEach` call (one Redis script, one timeout) instead of one call each, and answered as if they
 * had come one after another, in arrival order. Other counts (a job's cost, a peek) go straight through.
 */
export class CoalescingQuotaStore implements QuotaStore {
  private waiting = new Map<string, Waiting>()
  private scheduled = false

  constructor(private readonly store: QuotaStore) {}

  consume(keyId: string, limit: number | null, now: Date, count = 1): Promise<QuotaConsumption> {
    if (count !== 1) return this.store.consume(keyId, limit, now, count)
    return new Promise((resolve, reject) => {
      const day = utcDay(now)
      let group = this.waiting.get(keyId)
      // Another limit (the key changed tier) or another day (midnight passed) starts a call of its own.
      if (group && (group.limit !== limit || group.day !== day)) {
        this.send(group)
        group = undefined
      }
      if (!group) {
        group = { keyId, limit, now, day, answers: [], failures: [] }
        this.waiting.set(keyId, group)
      }
      group.answers.push(resolve)
      group.failures.push(reject)
      if (!this.scheduled) {
        this.scheduled = true
        // After this turn's I/O callbacks, so that requests whose bytes arrived together share one call.
        setImmediate(() => this.flush())
      }
    })
  }

  consumeEach(keyId: string, limit: number | null, now: Date, requests: number): Promise<QuotaConsumption[]> {
    return this.store.consumeEach(keyId, limit, now, requests)
  }

  private flush(): void {
    this.scheduled = false
    const groups = this.waiting
    this.waiting = new Map()
    for (const group of groups.values()) this.send(group)
  }

  private send(group: Waiting): void {
    if (this.waiting.get(group.keyId) === group) this.waiting.delete(group.keyId)
    const { keyId, limit, now, answers, failures } = group
    const counted =
      answers.length === 1
        ? this.store.consume(keyId, limit, now, 1).then((one) => [one])
        : this.store.consumeEach(keyId, limit, now, answers.length)
    counted.then(
      (consumptions) => {
        for (let i = 0; i < answers.length; i++)
          (answers[i] as Waiting['answers'][number])(consumptions[i] as QuotaConsumption)
      },
      (error: unknown) => {
        for (const fail of failures) fail(error)
      },
    )
  }

  close(): Promise<void> {
    return this.store.close()
  }
}
