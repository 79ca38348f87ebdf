import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

const OPENAPI_FILE = new URL('../../schema/openapi.yaml', import.meta.url)

/** schema/openapi.yaml as a JSON object, read once: served at GET /v1/openapi.json. */
export const OPENAPI_DOCUMENT: Record<string, unknown> = parse(readFileSync(OPENAPI_FILE, 'utf8'))
