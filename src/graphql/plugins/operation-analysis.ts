import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql'

/** Top-level fields anyone may query without a key, and that never count against a quota. */
const PUBLIC_ROOT_FIELDS = new Set(['health', 'model', '__schema', '__type', '__typename'])

/** `model` is public as the current base version; `model(version: …)` may name an account's own. */
function isPublicField(field: FieldNode): boolean {
  const name = field.name.value
  return PUBLIC_ROOT_FIELDS.has(name) && !(name === 'model' && (field.arguments?.length ?? 0) > 0)
}

/**
 * Root fields that count as one site prediction against the tier's batch size, each alias again:
 * `speciesRanking` looks up one site (and evaluates every species there); `survivalMap` costs one unit
 * too (and so do `stockingPlan` and `plantingOptions`), so a single one always passes while aliasing many is capped like aliasing `predict` (its model
 * work is throttled per key on its own, see plugins/survival-map-throttle.ts).
 */
const SINGLE_SITE_FIELDS = new Set([
  'predict',
  'compareMethods',
  'speciesRanking',
  'survivalMap',
  'stockingPlan',
  'plantingOptions',
])
const BATCH_FIELD = 'predictBatch'

export interface OperationFacts {
  operation: OperationDefinitionNode | null
  /** Every root field is public (health, model, introspection). */
  isPublic: boolean
  /** Site predictions the operation asks for: aliases and batch lists counted. */
  sitePredictions: number
  /**
   * The schema field the operation asks for ('predict', 'species', …), 'multiple' when it asks for
   * several, 'none' when it asks for nothing: a metrics label with a bounded set of values, unlike the
   * client-chosen operation name.
   */
  rootField: string
}

function distinctRootField(fields: readonly FieldNode[]): string {
  const names = new Set(fields.map((field) => field.name.value))
  if (names.size === 0) return 'none'
  return names.size === 1 ? ([...names][0] ?? 'none') : 'multiple'
}

function rootFields(
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): FieldNode[] {
  const fields: FieldNode[] = []
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection)
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      fields.push(...rootFields(selection.selectionSet, fragments, seen))
    else {
      const name = selection.name.value
      const fragment = fragments.get(name)
      if (fragment && !seen.has(name)) {
        seen.add(name)
        fields.push(...rootFields(fragment.selectionSet, fragments, seen))
      }
    }
  }
  return fields
}

function listLength(value: ValueNode | undefined, variables: Record<string, unknown>): number {
  if (!value) return 0
  if (value.kind === Kind.LIST) return value.values.length
  if (value.kind === Kind.VARIABLE) {
    const bound = variables[value.name.value]
    return Array.isArray(bound) ? bound.length : bound == null ? 0 : 1
  }
  return value.kind === Kind.NULL ? 0 : 1
}

export function analyzeOperation(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> = {},
): OperationFacts {
  const operation = getOperationAST(document, operationName)
  if (!operation) return { operation: null, isPublic: false, sitePredictions: 0, rootField: 'none' }
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  )
  const fields = rootFields(operation.selectionSet, fragments)
  let sitePredictions = 0
  for (const field of fields) {
    if (SINGLE_SITE_FIELDS.has(field.name.value)) sitePredictions += 1
    if (field.name.value === BATCH_FIELD) {
      const sites = field.arguments?.find((arg) => arg.name.value === 'sites')
      sitePredictions += listLength(sites?.value, variables)
    }
  }
  return {
    operation,
    isPublic: fields.length > 0 && fields.every(isPublicField),
    sitePredictions,
    rootField: distinctRootField(fields),
  }
}
