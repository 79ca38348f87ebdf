import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql'
import type { Caller } from '../../access/caller.ts'
import { apiError, invalidField } from '../../domain/errors.ts'
import type { SurveyWriter } from '../../domain/surveys/survey-service.ts'
import type { GraphQLContext } from './context.ts'

/*
 * Who calls a survey field (surveys, uploads, calibrations): the admitted key's account, checked once
 * for the whole operation so that aliases cannot multiply a field's work.
 */

/** Root fields whose work grows with what they ask for: once each per operation, so aliases cannot multiply it. */
const ONCE_PER_OPERATION = [
  'storeSurveys',
  'surveys',
  'surveyReport',
  'surveyUploadTicket',
  'calibrateModel',
] as const

function countRootFields(
  selectionSet: SelectionSetNode,
  info: GraphQLResolveInfo,
  counts: Map<string, number>,
  seen: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD)
      counts.set(selection.name.value, (counts.get(selection.name.value) ?? 0) + 1)
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      countRootFields(selection.selectionSet, info, counts, seen)
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value)
      const fragment = info.fragments[selection.name.value]
      if (fragment) countRootFields(fragment.selectionSet, info, counts, seen)
    }
  }
}

/**
 * Every survey field checks the whole operation before doing anything: a mutation's fields run one
 * after another, so a refusal found only at the second storeSurveys would come after the first had stored.
 */
function assertOncePerOperation(info: GraphQLResolveInfo): void {
  const counts = new Map<string, number>()
  countRootFields(info.operation.selectionSet, info, counts, new Set())
  for (const name of ONCE_PER_OPERATION)
    if ((counts.get(name) ?? 0) > 1)
      throw invalidField(name, 'may appear once in an operation; send another request for more', 'operation')
}

/** The admitted caller: access control admits every operation that asks for a survey field. */
export function callerOf(ctx: GraphQLContext, info: GraphQLResolveInfo): Caller {
  if (!ctx.caller) throw apiError('invalid_api_key')
  assertOncePerOperation(info)
  return ctx.caller
}

/** Who writes: the admitted key's account and tier, the key, and the client address the front door found. */
export function writerOf(ctx: GraphQLContext, info: GraphQLResolveInfo): SurveyWriter {
  const caller = callerOf(ctx, info)
  return {
    accountId: caller.accountId,
    tierName: caller.tier.name,
    keyId: caller.keyId,
    clientAddress: ctx.request.clientAddress,
  }
}
