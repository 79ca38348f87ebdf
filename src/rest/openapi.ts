import { readFile } from 'node:fs/promises'
import { projectFile } from '../project-files.ts'

const OPENAPI_FILE = projectFile('schema/openapi.yaml')

let document: Promise<Record<string, unknown>> | null = null

/**
 * schema/openapi.yaml as a JSON object, served at GET /v1/openapi.json: read and parsed on the first
 * request and kept, so a server nobody asks for it does not carry the YAML parser and the document.
 */
export function openapiDocument(): Promise<Record<string, unknown>> {
  document ??= Promise.all([import('yaml'), readFile(OPENAPI_FILE, 'utf8')]).then(
    ([yaml, text]) => yaml.parse(text) as Record<string, unknown>,
  )
  document.catch(() => {
    document = null
  })
  return document
}
