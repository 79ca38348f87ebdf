import type { Tier } from '../types.ts'
import { apiError } from './errors.ts'

/** A call may ask for at most the tier's batch size in site predictions (a batch, or GraphQL aliases). */
export function assertBatchSize(submitted: number, tier: Tier): void {
  if (submitted > tier.batchSizeLimit) {
    throw apiError(
      'batch_too_large',
      { submitted, tier: tier.name, limit: tier.batchSizeLimit },
      { details: { submitted, tier_limit: tier.batchSizeLimit, tier: tier.name } },
    )
  }
}
