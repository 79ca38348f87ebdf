import { readFileSync } from 'node:fs'
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql'
import { describe, expect, it } from 'vitest'
import { printSchemaSdl, schema } from './schema.ts'

/** Every type, field, argument and enum value of the schema that has no description. */
function undescribed(): string[] {
  const missing: string[] = []
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue
    if (!type.description?.trim()) missing.push(type.name)
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description?.trim()) missing.push(`${type.name}.${field.name}`)
        for (const arg of 'args' in field ? field.args : []) {
          if (!arg.description?.trim()) missing.push(`${type.name}.${field.name}(${arg.name}:)`)
        }
      }
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) {
        if (!value.description?.trim()) missing.push(`${type.name}.${value.name}`)
      }
    }
  }
  return missing
}

describe('schema/schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema:print` after changing types)', () => {
    const committed = readFileSync(new URL('../../../schema/schema.graphql', import.meta.url), 'utf8')
    expect(committed).toBe(printSchemaSdl())
  })

  it('describes every type, field, argument and enum value (GraphiQL’s docs pane shows them)', () => {
    expect(undescribed()).toEqual([])
  })
})
