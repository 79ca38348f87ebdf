/**
 * `Survival-Data-Version` on prediction answers: the site data version the answer's sites came from
 * (docs/site-data.md), so an answer can be traced to its data without a field in the /v1 bodies.
 */
export const DATA_VERSION_HEADER = 'survival-data-version'

// One headers object per version: versions are few, and a request then allocates none.
const byVersion = new Map<string, Readonly<Record<string, string>>>()
const MOST_VERSIONS = 64

/** The header for `version`; none before any version is active. */
export function dataVersionHeaders(version: string | null | undefined): Record<string, string> | undefined {
  if (!version) return undefined
  let headers = byVersion.get(version)
  if (!headers) {
    headers = Object.freeze({ [DATA_VERSION_HEADER]: version })
    if (byVersion.size < MOST_VERSIONS) byVersion.set(version, headers)
  }
  return headers as Record<string, string>
}
