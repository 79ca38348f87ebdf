import { z } from 'zod'
import {
  type LinkedRequest,
  REPORT_LINK_SETTINGS,
  type ReportLink,
} from '../../domain/reports/report-links.ts'
import { paperForLanguageTag, reportLanguage } from '../../domain/reports/report-locale.ts'
import type { ModelInfo } from '../../types.ts'
import { builder } from './builder.ts'

/*
 * reportLink on a comparison, a ranking and a stocking plan: a signed URL, good for 15 minutes, to the
 * PDF report of the same answer (docs/reports.md → GraphQL). The query fields record which request
 * made each answer; the link carries it with the model version that answered.
 */

/** The request each answer of this GraphQL request was made for (answers are fresh objects per call). */
const answeredFor = new WeakMap<object, LinkedRequest>()

/** Records the request an answer was made for, so its reportLink can ask for the same again. */
export function linkable<T extends object>(answer: T, linked: LinkedRequest): T {
  answeredFor.set(answer, linked)
  return answer
}

/** A BCP 47 language tag (`en`, `es-MX`, `en-GB`), as Accept-Language names one. */
const languageTag = z
  .string({ error: 'must be a string' })
  .max(35, 'must be at most 35 characters')
  .regex(/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en, en-GB or es-MX')

const ReportPaperEnum = builder.enumType('ReportPaper', {
  description: 'The paper a PDF report is laid out on',
  values: {
    A4: { value: 'a4', description: 'ISO A4, 210 × 297 mm' },
    LETTER: { value: 'letter', description: 'US Letter, 8.5 × 11 in' },
  },
})

const ReportLinkRef = builder.objectRef<ReportLink>('ReportLink').implement({
  description: `A short-lived link to the PDF report of an answer: GET it, with no key, within ${REPORT_LINK_SETTINGS.lifetimeMs / 60_000} minutes. Each GET counts one request on the account of the key that asked, and makes the same answer again with the model version that answered (docs/reports.md)`,
  fields: (t) => ({
    path: t.exposeString('path', {
      description:
        'Where to GET the PDF, relative to the API’s origin: /v1/reports/{token}.pdf. The token is the credential: share it as you would the report',
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When the link stops working (403 invalid_report_link)',
      resolve: (link) => link.expiresAt,
    }),
    language: t.exposeString('language', { description: 'The report’s language: en or es' }),
    paper: t.field({
      type: ReportPaperEnum,
      description: 'The report’s paper',
      resolve: (link) => link.paper,
    }),
  }),
})

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never

/** What a link is for: the request to report and the model version that answered it. */
export interface LinkTarget {
  linked: LinkedRequest
  modelVersion: string
}

/** The request a query field recorded for this answer (`linkable`), with the version that answered. */
export function recordedTarget(answer: object, modelVersion: string): LinkTarget {
  const linked = answeredFor.get(answer)
  if (!linked) throw new Error('reportLink resolved on an answer no query field recorded')
  return { linked, modelVersion }
}

const answeredTarget = (answer: { model: ModelInfo }) => recordedTarget(answer, answer.model.version)

/**
 * The reportLink field of an answer type: by default one whose query field recorded its request
 * (`linkable`); `target` names another's (a job, the survey check), and may refuse (job_not_finished).
 */
export function reportLinkField<P extends object>(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>,
  what: string,
  target: (answer: P) => LinkTarget = answeredTarget as unknown as (answer: P) => LinkTarget,
  about = '(as POST with Accept: application/pdf answers it). Not counted; fetching it counts one request. A request too large for a URL (a stand of many vertices) is invalid_request naming reportLink: POST it with Accept: application/pdf instead',
) {
  return t.field({
    type: ReportLinkRef,
    description: `A signed link, good for ${REPORT_LINK_SETTINGS.lifetimeMs / 60_000} minutes, to the PDF report of this ${what} ${about}`,
    args: {
      language: t.arg.string({
        required: false,
        defaultValue: 'en',
        description:
          'A language tag, as Accept-Language names one (en, en-GB, es, es-MX): the report’s language (Spanish for es-*, else English) and, unless paper is given, its paper (US Letter in the Americas’ Letter regions and for en, A4 elsewhere)',
        validate: { schema: languageTag },
      }),
      paper: t.arg({
        type: ReportPaperEnum,
        required: false,
        description: 'The paper, instead of the one the language tag’s region uses',
      }),
    },
    resolve: (answer, args, ctx) => {
      if (!ctx.caller) throw new Error('reportLink resolved without an admitted caller')
      const { linked, modelVersion } = target(answer)
      const tag = args.language ?? 'en'
      return ctx.reportLinks.issue({
        ...linked,
        holder: { keyId: ctx.caller.keyId, accountId: ctx.caller.accountId },
        modelVersion,
        language: reportLanguage([tag]),
        paper: args.paper ?? paperForLanguageTag(tag),
      })
    },
  })
}
