import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The nearest folder above this module holding package.json: the checkout, or /app in the image. */
function findProjectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('package.json not found above the server code')
    dir = parent
  }
  return dir
}

export const PROJECT_ROOT = findProjectRoot()

/**
 * A file shipped beside the code (SQL migrations, schema, seed data, the model artifact), addressed
 * from the project root so the same path works from src/ under tsx and from dist/ after `npm run build`.
 */
export function projectFile(relativePath: string): URL {
  return pathToFileURL(join(PROJECT_ROOT, relativePath))
}
