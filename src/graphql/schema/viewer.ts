import { apiError } from '../../domain/errors.ts'
import type { KeyUsage } from '../../domain/key-service.ts'
import type { DailyUsage, KeyStatus, TierName } from '../../types.ts'
import { builder } from './builder.ts'

const TierEnum = builder.enumType('Tier', {
  description: 'Service tier of an API key: its daily request limit and batch size (Viewer.limits)',
  values: {
    SPORE: {
      value: 'spore',
      description: 'Free, issued on request: the smallest daily limit and batch size',
    },
    MYCEL: {
      value: 'mycel',
      description: 'Issued by an operator: a larger daily limit and batch size',
    },
    HYPHA: {
      value: 'hypha',
      description: 'Issued by an operator: no daily limit and the largest batch size',
    },
  } as const satisfies Record<string, { value: TierName; description: string }>,
})

const KeyStatusEnum = builder.enumType('KeyStatus', {
  description: 'Whether an API key is accepted',
  values: {
    ACTIVE: { value: 'active', description: 'Accepted' },
    INACTIVE: { value: 'inactive', description: 'Deactivated by an operator; refused until reactivated' },
    ROTATED: {
      value: 'rotated',
      description: 'Replaced by a new key; accepted until its grace period ends (expiresAt)',
    },
    REVOKED: { value: 'revoked', description: 'Withdrawn for good; refused' },
  } as const satisfies Record<string, { value: KeyStatus; description: string }>,
})

const ApiKeyRef = builder.objectRef<KeyUsage['key']>('ApiKey').implement({
  description: 'An API key as its holder sees it (never the key itself, which is shown once at issue)',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Key id, e.g. key_…; safe to show and log' }),
    tier: t.field({
      type: TierEnum,
      description: 'The tier the key belongs to',
      resolve: (k) => k.tier as TierName,
    }),
    status: t.field({ type: KeyStatusEnum, description: 'Whether it is accepted', resolve: (k) => k.status }),
    name: t.exposeString('name', { nullable: true, description: 'Label given at issue, if any' }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was issued', resolve: (k) => k.createdAt }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it stops working (its expiry, or the end of a rotation grace period); null = never',
      resolve: (k) => k.expiresAt,
    }),
    lastUsedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was last used (recorded at most once a minute); null when never',
      resolve: (k) => k.lastUsedAt,
    }),
  }),
})

const TierLimitsRef = builder.objectRef<KeyUsage['limits']>('TierLimits').implement({
  description: 'What the key’s tier allows',
  fields: (t) => ({
    requestsPerDay: t.exposeInt('requestsPerDay', {
      nullable: true,
      description: 'Requests per UTC day; null = unlimited',
    }),
    batchSize: t.exposeInt('batchSize', {
      description: 'Sites per call at most (predictBatch items and aliased predictions counted)',
    }),
  }),
})

const UsageTodayRef = builder.objectRef<KeyUsage['today']>('UsageToday').implement({
  description: 'Today’s requests (UTC day), this one counted',
  fields: (t) => ({
    used: t.exposeInt('used', { description: 'Requests counted today, this one included' }),
    remaining: t.exposeInt('remaining', {
      nullable: true,
      description: 'Requests left today; null = unlimited',
    }),
    resetsAt: t.field({
      type: 'DateTime',
      description: 'When the count starts again: the next midnight UTC',
      resolve: (d) => d.resetsAt,
    }),
  }),
})

const UsageDayRef = builder.objectRef<DailyUsage>('UsageDay').implement({
  description: 'Requests counted on one UTC day',
  fields: (t) => ({
    date: t.exposeString('day', { description: 'The UTC day, YYYY-MM-DD' }),
    requests: t.exposeInt('requests', { description: 'Requests counted that day (0 when none)' }),
  }),
})

const ViewerRef = builder.objectRef<KeyUsage>('Viewer').implement({
  description:
    'The calling API key: its tier’s limits, today’s quota and the last 30 days (as GET /v1/usage)',
  fields: (t) => ({
    key: t.field({
      type: ApiKeyRef,
      description: 'The key the request was made with',
      resolve: (u) => u.key,
    }),
    limits: t.field({ type: TierLimitsRef, description: 'What its tier allows', resolve: (u) => u.limits }),
    today: t.field({ type: UsageTodayRef, description: 'Where it stands today', resolve: (u) => u.today }),
    history: t.field({
      type: [UsageDayRef],
      description:
        'Requests per UTC day for the last 30 days, oldest first, today last (shared by the keys of one rotation chain)',
      resolve: (u) => u.history,
    }),
  }),
})

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    description:
      'The calling key and its usage: the same data as GET /v1/usage (needs a key; counts as one request)',
    resolve: (_root, _args, ctx) => {
      // Access control admits every operation that asks for `viewer`, and puts both in the context.
      if (!ctx.caller || !ctx.quota) throw apiError('invalid_api_key')
      return ctx.keys.usage({
        keyId: ctx.caller.keyId,
        accountId: ctx.caller.accountId,
        tier: ctx.caller.tier,
        used: ctx.quota.used,
        remaining: ctx.quota.remaining,
        resetsAt: ctx.quota.resetAt,
      })
    },
  }),
}))
