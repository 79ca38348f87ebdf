const TOKEN = /\s*(?:"((?:[^"\\]|\\.)*)"|([{}[\],:])|([^\s{}[\],:"]+))/y

/**
 * A feature's id for a message, from its JSON text, whole or not (as far as it was read): its properties'
 * `site_id`, else their `id`, else the feature's own `id`; null when none is found.
 */
export function idInFeatureText(text: string): string | null {
  // One frame a container: an object's member name (once read), or null in an array.
  const frames: { object: boolean; key: string | null; name: boolean }[] = []
  const found: Record<string, string> = {}
  const path = () => frames.map((frame) => frame.key ?? '').join('.')
  TOKEN.lastIndex = 0
  for (let match = TOKEN.exec(text); match; match = TOKEN.exec(text)) {
    const [, string, punctuation, scalar] = match
    const frame = frames.at(-1)
    if (punctuation === '{' || punctuation === '[')
      frames.push({ object: punctuation === '{', key: null, name: true })
    else if (punctuation === '}' || punctuation === ']') frames.pop()
    else if (punctuation === ',' && frame?.object) frame.name = true
    else if (punctuation === undefined && frame) {
      if (frame.object && frame.name && string !== undefined) {
        frame.key = decoded(string)
        frame.name = false
      } else {
        const value = string !== undefined ? decoded(string) : scalar
        const at = path()
        if (value !== undefined && value !== '' && scalar !== 'null' && !(at in found)) found[at] = value
      }
    }
  }
  return found['properties.site_id'] ?? found['properties.id'] ?? found.id ?? null
}

function decoded(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string
  } catch {
    return text
  }
}
