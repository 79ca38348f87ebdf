/**
 * `npm run build` (after tsc): bundles the explorer page into dist/explorer (or the folder given),
 * beside the compiled server, which serves it from there (npm run start:prod, the Docker image).
 * `npm start` bundles the page in memory instead.
 */
import { resolve } from 'node:path'
import { BUILT_ASSETS_DIR, writeExplorerAssets } from '../explorer/assets.ts'

const target = process.argv[2] ? resolve(process.argv[2]) : BUILT_ASSETS_DIR
const started = performance.now()
const files = await writeExplorerAssets(target)
process.stderr.write(
  `explorer bundle: ${files.join(', ')} → ${target} (${Math.round(performance.now() - started)} ms)\n`,
)
