/*
 * Classic little-endian TIFF structure: the 8-byte header and image file directories (IFDs) with
 * their tags. An IFD is written as its entry count, 12-byte entries in increasing tag order, the offset
 * of the next IFD, then the values too long for an entry's 4 bytes, each starting on an even offset.
 */

const TIFF_TYPE = { ascii: 2, short: 3, long: 4, double: 12 } as const
const TYPE_SIZE = { ascii: 1, short: 2, long: 4, double: 8 } as const

export const TIFF_HEADER_LENGTH = 8
/** Classic TIFF addresses bytes with 32-bit offsets. */
export const MAX_CLASSIC_TIFF_LENGTH = 0xffff_ffff

export type TiffTag =
  | { tag: number; type: 'short' | 'long' | 'double'; values: readonly number[] }
  | { tag: number; type: 'ascii'; bytes: Uint8Array }

export function shortTag(tag: number, values: readonly number[]): TiffTag {
  return { tag, type: 'short', values }
}

export function longTag(tag: number, values: readonly number[]): TiffTag {
  return { tag, type: 'long', values }
}

export function doubleTag(tag: number, values: readonly number[]): TiffTag {
  return { tag, type: 'double', values }
}

/** An ASCII tag: the text's UTF-8 bytes and the terminating NUL that TIFF counts. */
export function asciiTag(tag: number, text: string): TiffTag {
  return { tag, type: 'ascii', bytes: Buffer.from(`${text}\0`, 'utf8') }
}

function valueCount(entry: TiffTag): number {
  return entry.type === 'ascii' ? entry.bytes.length : entry.values.length
}

function valueLength(entry: TiffTag): number {
  return valueCount(entry) * TYPE_SIZE[entry.type]
}

function evenLength(length: number): number {
  return length + (length % 2)
}

function outOfLineLength(entry: TiffTag): number {
  const length = valueLength(entry)
  return length > 4 ? evenLength(length) : 0
}

/** Bytes an IFD with `tags` takes, its out-of-line values included; always even. */
export function ifdLength(tags: readonly TiffTag[]): number {
  return 2 + 12 * tags.length + 4 + tags.reduce((sum, entry) => sum + outOfLineLength(entry), 0)
}

export function writeTiffHeader(file: Buffer, firstIfdOffset: number): void {
  file.write('II', 0, 'latin1')
  file.writeUInt16LE(42, 2)
  file.writeUInt32LE(firstIfdOffset, 4)
}

function writeValues(file: Buffer, at: number, entry: TiffTag): void {
  if (entry.type === 'ascii') {
    file.set(entry.bytes, at)
    return
  }
  entry.values.forEach((value, index) => {
    const position = at + index * TYPE_SIZE[entry.type]
    if (entry.type === 'short') file.writeUInt16LE(value, position)
    else if (entry.type === 'long') file.writeUInt32LE(value, position)
    else file.writeDoubleLE(value, position)
  })
}

/** Writes the IFD at `at` (an even offset); `nextIfdOffset` is 0 for the last one. */
export function writeIfd(file: Buffer, at: number, tags: readonly TiffTag[], nextIfdOffset: number): void {
  const sorted = [...tags].sort((a, b) => a.tag - b.tag)
  for (let i = 1; i < sorted.length; i++) {
    if ((sorted[i] as TiffTag).tag === (sorted[i - 1] as TiffTag).tag)
      throw new Error(`TIFF tag ${(sorted[i] as TiffTag).tag} is given twice`)
  }
  file.writeUInt16LE(sorted.length, at)
  let outOfLine = at + 2 + 12 * sorted.length + 4
  sorted.forEach((entry, index) => {
    const position = at + 2 + 12 * index
    file.writeUInt16LE(entry.tag, position)
    file.writeUInt16LE(TIFF_TYPE[entry.type], position + 2)
    file.writeUInt32LE(valueCount(entry), position + 4)
    if (valueLength(entry) <= 4) {
      writeValues(file, position + 8, entry)
    } else {
      file.writeUInt32LE(outOfLine, position + 8)
      writeValues(file, outOfLine, entry)
      outOfLine += outOfLineLength(entry)
    }
  })
  file.writeUInt32LE(nextIfdOffset, at + 2 + 12 * sorted.length)
}
