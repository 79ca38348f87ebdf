import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { projectFile } from '../project-files.ts'

const OPENAPI_FILE = projectFile('schema/openapi.yaml')

/** schema/openapi.yaml as a JSON object, read once: served at GET /v1/openapi.json. */
export const OPENAPI_DOCUMENT: Record<string, unknown> = parse(readFileSync(OPENAPI_FILE, 'utf8'))
