import { FeatureScanError, shownByte, sizeText } from './feature-scan-error.ts'

/*
 * The features of a GeoJSON FeatureCollection found in its bytes as they stream in, for JSON.parse to
 * read one at a time. The scanner follows the top-level object member by member (checking its
 * punctuation), and inside its "features" array finds where each element begins and ends by the strings
 * (and their escapes) and the nesting of braces and brackets alone; what lies inside an element is left
 * to JSON.parse. Every structural character is ASCII, and no byte of a multi-byte UTF-8 character is, so
 * the bytes are scanned as they come and a value is decoded only when it is whole, wherever the chunks
 * split it. Nothing is kept but the value being scanned, and that only up to `maxValueBytes`.
 */

/**
 * A feature as messages name it: its number from 1; for the feature being scanned, as much of its text as
 * was read (to find its id in) and the byte it begins at; for one already handed over, neither.
 */
export type FeatureNamer = (index: number, partial: string | null, offset: number | null) => string

const byNumber: FeatureNamer = (index) => `feature ${index}`

export interface FeatureCollectionHandlers {
  /** An element of the "features" array: its number from 1, its JSON text and the byte it begins at. */
  onFeature(index: number, text: string, offset: number): void
  /**
   * A member of the top-level object other than "features": its name, and its value's JSON text, or null
   * for a value past `maxValueBytes` (then only its strings and brackets were checked).
   */
  onMember(name: string, text: string | null, offset: number): void
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c
const COLON = 0x3a
const BOM = [0xef, 0xbb, 0xbf]

/** Deeper nesting than any feature needs; it bounds the scanner's stack of open brackets. */
const MAX_DEPTH = 1024

// Where the scanner is in the top-level object, between values.
const START = 0
const FIRST_KEY = 1
const NEXT_KEY = 2
const COLON_NEXT = 3
const VALUE = 4
const AFTER_MEMBER = 5
const FIRST_FEATURE = 6
const NEXT_FEATURE = 7
const AFTER_FEATURE = 8
const END = 9

// What the value being scanned is.
const KEY = 0
const MEMBER = 1
const FEATURE = 2

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
const endsScalar = (byte: number) =>
  isSpace(byte) || byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET
const startsScalar = (byte: number) =>
  byte === 0x2d || (byte >= 0x30 && byte <= 0x39) || byte === 0x74 || byte === 0x66 || byte === 0x6e

/**
 * Scans one document, chunk by chunk: `write` each chunk in order, then `end`. The handlers are called as
 * the values complete, in the document's order; once a FeatureScanError (or a handler's error) is thrown,
 * the scanner is done with.
 */
export class FeatureCollectionScanner {
  private readonly handlers: FeatureCollectionHandlers
  private readonly maxValueBytes: number
  private state = START
  /** The document's bytes before the current chunk. */
  private offset = 0
  private features = 0
  /** The bytes of a UTF-8 byte order mark read at the document's start. */
  private bom = 0
  /** The name of the member whose value comes next; null for one too long to have been kept. */
  private key: string | null = null

  // The value being scanned.
  private scanning = false
  private what = KEY
  private scalar = false
  /** Its bytes are kept (until it passes maxValueBytes). */
  private keep = false
  /** Where its bytes not yet kept begin in the current chunk. */
  private start = 0
  private kept: Buffer[] = []
  private keptBytes = 0
  private valueOffset = 0
  private depth = 0
  private readonly open = new Uint8Array(MAX_DEPTH)
  private inString = false
  private escaped = false

  private readonly featureName: FeatureNamer

  constructor(
    handlers: FeatureCollectionHandlers,
    options: { maxValueBytes: number; featureName?: FeatureNamer },
  ) {
    this.handlers = handlers
    this.maxValueBytes = options.maxValueBytes
    this.featureName = options.featureName ?? byNumber
  }

  /** Scans a chunk, handing over each value it completes; throws a FeatureScanError where the JSON breaks. */
  write(chunk: Buffer): void {
    const length = chunk.length
    let at = 0
    if (this.scanning) at = this.scan(chunk, 0)
    while (at < length) {
      const byte = chunk[at] as number
      if (this.state === START && this.bom === this.offset + at && byte === BOM[this.bom]) {
        this.bom += 1
        at += 1
        continue
      }
      if (isSpace(byte)) {
        at += 1
        continue
      }
      at = this.step(chunk, at, byte)
      if (this.scanning) at = this.scan(chunk, at)
    }
    if (this.scanning) {
      if (this.keep && this.start < length) {
        this.kept.push(Buffer.from(chunk.subarray(this.start)))
        this.keptBytes += length - this.start
      }
      this.start = 0
    }
    this.offset += length
  }

  /** The document is whole: throws a FeatureScanError when it ended before its top-level object did. */
  end(): void {
    if (this.state === END) return
    if (this.state === START) throw new FeatureScanError('truncated', 'it holds no JSON value', null)
    let where = ''
    if (this.scanning) where = ` inside ${this.scanned(null, 0)}`
    else if (this.state >= FIRST_FEATURE && this.state <= AFTER_FEATURE)
      where =
        this.features > 0 ? ` after ${this.featureName(this.features, null, null)}` : ' inside "features"'
    const feature = this.features > 0 && this.state >= FIRST_FEATURE ? this.features : null
    throw new FeatureScanError(
      'truncated',
      `it ends${where} at byte ${this.offset}, before the FeatureCollection closes`,
      feature,
    )
  }

  /** The value being scanned, for a message: a feature by its name (from as much as was read), a member. */
  private scanned(chunk: Buffer | null, at: number): string {
    if (this.what === KEY) return 'a member name'
    if (this.what === MEMBER) return `the value of ${this.keyShown()}`
    let partial: string | null = null
    if (this.keep) {
      const parts = chunk === null ? this.kept : [...this.kept, chunk.subarray(this.start, at)]
      partial = Buffer.concat(parts).toString('utf8')
    }
    return this.featureName(this.features, partial, this.valueOffset)
  }

  /** Broken JSON at byte `at` of the chunk: what was expected there (in or after what), and what was found. */
  private syntax(expected: string, chunk: Buffer, at: number, byte: number): FeatureScanError {
    let where = ''
    let feature: number | null = null
    if (this.scanning) {
      where = ` in ${this.scanned(chunk, at)}`
      if (this.what === FEATURE) feature = this.features
    } else if (this.state === AFTER_FEATURE) {
      where = ` after ${this.featureName(this.features, null, null)}`
      feature = this.features
    }
    return new FeatureScanError(
      'syntax',
      `${expected}${where}, found ${shownByte(byte)} at byte ${this.offset + at}`,
      feature,
    )
  }

  /** One byte between values (not white space): the top-level object's punctuation, or a value's start. */
  private step(chunk: Buffer, at: number, byte: number): number {
    switch (this.state) {
      case START:
        if (byte === OPEN_BRACKET) throw new FeatureScanError('not_an_object', 'a JSON array', null)
        if (byte !== OPEN_BRACE) throw this.syntax('expected "{"', chunk, at, byte)
        this.state = FIRST_KEY
        return at + 1
      case FIRST_KEY:
        if (byte === CLOSE_BRACE) {
          this.state = END
          return at + 1
        }
        if (byte !== QUOTE) throw this.syntax('expected a member name or "}"', chunk, at, byte)
        return this.begin(KEY, chunk, at, byte)
      case NEXT_KEY:
        if (byte !== QUOTE) throw this.syntax('expected a member name', chunk, at, byte)
        return this.begin(KEY, chunk, at, byte)
      case COLON_NEXT:
        if (byte !== COLON) throw this.syntax(`expected ":" after ${this.keyShown()}`, chunk, at, byte)
        this.state = VALUE
        return at + 1
      case VALUE:
        if (this.key === 'features') {
          if (byte !== OPEN_BRACKET)
            throw new FeatureScanError(
              'features_not_array',
              `"features" is not an array, found ${shownByte(byte)} at byte ${this.offset + at}`,
              null,
            )
          this.state = FIRST_FEATURE
          return at + 1
        }
        return this.begin(MEMBER, chunk, at, byte)
      case AFTER_MEMBER:
        if (byte === COMMA) this.state = NEXT_KEY
        else if (byte === CLOSE_BRACE) this.state = END
        else throw this.syntax(`expected "," or "}" after the value of ${this.keyShown()}`, chunk, at, byte)
        return at + 1
      case FIRST_FEATURE:
        if (byte === CLOSE_BRACKET) {
          this.state = AFTER_MEMBER
          return at + 1
        }
        return this.begin(FEATURE, chunk, at, byte)
      case NEXT_FEATURE:
        return this.begin(FEATURE, chunk, at, byte)
      case AFTER_FEATURE:
        if (byte === COMMA) this.state = NEXT_FEATURE
        else if (byte === CLOSE_BRACKET) this.state = AFTER_MEMBER
        else throw this.syntax('expected "," or "]"', chunk, at, byte)
        return at + 1
      default:
        throw this.syntax('expected nothing more after the FeatureCollection', chunk, at, byte)
    }
  }

  private keyShown(): string {
    return this.key === null ? 'a member name' : JSON.stringify(this.key)
  }

  /** Starts scanning a value (or a member name) at its first byte. */
  private begin(what: number, chunk: Buffer, at: number, byte: number): number {
    const container = byte === OPEN_BRACE || byte === OPEN_BRACKET
    if (!container && byte !== QUOTE && !startsScalar(byte))
      throw this.syntax(
        what === FEATURE
          ? `expected feature ${this.features + 1}`
          : `expected the value of ${this.keyShown()}`,
        chunk,
        at,
        byte,
      )
    if (what === FEATURE) this.features += 1
    this.scanning = true
    this.what = what
    this.scalar = !container && byte !== QUOTE
    this.keep = what !== MEMBER || this.key !== null
    this.start = at
    this.kept = []
    this.keptBytes = 0
    this.valueOffset = this.offset + at
    this.depth = 0
    this.escaped = false
    this.inString = byte === QUOTE
    // A string's opening quote is read here; a container's opening bracket by scan().
    return byte === QUOTE ? at + 1 : at
  }

  /** Scans the value begun, from `at`: to its end (handing it over), or to the chunk's end. */
  private scan(chunk: Buffer, at: number): number {
    const length = chunk.length
    let limit = length
    if (this.keep) limit = Math.min(length, this.start + this.maxValueBytes - this.keptBytes)
    let i = at
    if (this.scalar) {
      for (; i < limit; i++) if (endsScalar(chunk[i] as number)) return this.finish(chunk, i)
      if (i < length && endsScalar(chunk[i] as number)) return this.finish(chunk, i)
    } else {
      const open = this.open
      let depth = this.depth
      let inString = this.inString
      let escaped = this.escaped
      for (; i < limit; i++) {
        let byte = chunk[i] as number
        if (inString) {
          if (escaped) {
            escaped = false
            continue
          }
          // The run of a string's ordinary characters, at once.
          while (byte !== QUOTE && byte !== BACKSLASH && ++i < limit) byte = chunk[i] as number
          if (i === limit) break
          if (byte === BACKSLASH) escaped = true
          else {
            inString = false
            if (depth === 0) {
              this.inString = false
              return this.finish(chunk, i + 1)
            }
          }
        } else if (byte === QUOTE) inString = true
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
          if (depth === MAX_DEPTH)
            throw this.syntax(`expected nesting no deeper than ${MAX_DEPTH}`, chunk, i, byte)
          open[depth++] = byte
        } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
          // A closing bracket is its opening one plus 2, in ASCII.
          if (open[depth - 1] !== byte - 2)
            throw this.syntax(`expected ${open[depth - 1] === OPEN_BRACE ? '"}"' : '"]"'}`, chunk, i, byte)
          depth -= 1
          if (depth === 0) {
            this.depth = 0
            return this.finish(chunk, i + 1)
          }
        }
      }
      this.depth = depth
      this.inString = inString
      this.escaped = escaped
    }
    if (i === length) return i
    // Past the limit: a feature is refused; another member is scanned on without being kept.
    if (this.what === FEATURE)
      throw new FeatureScanError(
        'too_large',
        `${this.scanned(chunk, i)} is larger than ${sizeText(this.maxValueBytes)}`,
        this.features,
      )
    this.keep = false
    this.kept = []
    if (this.what === KEY) this.key = null
    return this.scan(chunk, i)
  }

  /** The value ends before `end`: it is handed over, and the scanner moves on past it. */
  private finish(chunk: Buffer, end: number): number {
    this.scanning = false
    let text: string | null = null
    if (this.keep) {
      if (this.kept.length === 0) text = chunk.toString('utf8', this.start, end)
      else {
        this.kept.push(chunk.subarray(this.start, end))
        text = Buffer.concat(this.kept).toString('utf8')
      }
      this.kept = []
    }
    if (this.what === FEATURE) {
      this.state = AFTER_FEATURE
      this.handlers.onFeature(this.features, text as string, this.valueOffset)
    } else if (this.what === KEY) {
      this.state = COLON_NEXT
      this.key = text === null ? null : this.memberName(text, end)
    } else {
      this.state = AFTER_MEMBER
      if (this.key !== null) this.handlers.onMember(this.key, text, this.valueOffset)
    }
    return end
  }

  private memberName(text: string, end: number): string {
    try {
      return JSON.parse(text) as string
    } catch (error) {
      throw new FeatureScanError(
        'syntax',
        `the member name ${text.slice(0, 40)} at byte ${this.offset + end - Buffer.byteLength(text)} is not a JSON string: ${(error as Error).message}`,
        null,
      )
    }
  }
}
