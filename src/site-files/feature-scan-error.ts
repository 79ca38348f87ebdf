/**
 * What stopped a scan: broken JSON, a document cut short, a feature past the limit, a JSON array at the
 * top, "features" not an array.
 */
export type FeatureScanErrorKind =
  | 'syntax'
  | 'truncated'
  | 'too_large'
  | 'not_an_object'
  | 'features_not_array'

/** Where a scan stopped, and why, in words that name the feature (as `FeatureNamer` does) and the byte. */
export class FeatureScanError extends Error {
  override readonly name = 'FeatureScanError'

  constructor(
    readonly kind: FeatureScanErrorKind,
    message: string,
    /** The feature at fault (in it, or just after it), from 1; null when the fault is not near a feature. */
    readonly feature: number | null,
  ) {
    super(message)
  }
}

/** A size for a message: in MiB or KiB when it is a whole number of them. */
export function sizeText(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MiB`
  if (bytes >= 2 ** 10 && bytes % 2 ** 10 === 0) return `${bytes / 2 ** 10} KiB`
  return `${bytes} bytes`
}

/** A byte for a message: the character when it is printable ASCII. */
export function shownByte(byte: number): string {
  return byte > 0x20 && byte < 0x7f
    ? JSON.stringify(String.fromCharCode(byte))
    : `byte 0x${byte.toString(16)}`
}
