import { StringDecoder } from 'node:string_decoder'
import { CsvError, parse } from 'csv-parse'
import { type ColumnMap, NO_COLUMN_MAP, resolveColumns } from './column-map.ts'
import { SiteFileError, valueText } from './site-file-error.ts'
import type { OpenedSource } from './site-file-source.ts'
import { featureIdOf, type SiteRecord } from './site-record.ts'

/*
 * A CSV site file: a header row naming the columns (latitude and longitude among them), then one site
 * a row. Comma-separated; a header with no comma but semicolons or tabs sets that separator instead.
 * Cells are text: the rules read numbers from them. Streamed a chunk at a time.
 */

/** One record: far more than a site needs, small enough to stop a file without line ends early. */
const MAX_RECORD_BYTES = 1024 * 1024

/** The separator the header line uses: a comma, unless it has none and has semicolons or tabs. */
export function csvDelimiter(head: Buffer): string {
  const end = head.indexOf(0x0a)
  const line = head.subarray(0, end === -1 ? head.length : end).toString('utf8')
  const count = (char: string) => line.split(char).length - 1
  if (count(',') > 0) return ','
  if (count(';') > 0) return ';'
  if (count('\t') > 0) return '\t'
  return ','
}

/** Waits until the parser takes more input, or is gone; leaves no listener behind. */
function drainedOrClosed(parser: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      parser.off('drain', done)
      parser.off('close', done)
      resolve()
    }
    parser.on('drain', done)
    parser.on('close', done)
  })
}

/** The records of CSV text through csv-parse: any CSV, quotes and all. `linesBefore` shifts its line numbers. */
async function* parsedCells(
  chunks: AsyncIterable<Buffer | string>,
  name: string,
  delimiter: string,
  linesBefore: number,
): AsyncGenerator<string[]> {
  const parser = parse({
    bom: true,
    delimiter,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  })
  // Fed as the file is read; the parser's buffer is the only backlog (write waits for its drain).
  void (async () => {
    try {
      for await (const chunk of chunks) {
        if (parser.destroyed) return
        if (!parser.write(chunk)) await drainedOrClosed(parser)
      }
      parser.end()
    } catch (error) {
      parser.destroy(error as Error)
    }
  })()
  try {
    for await (const record of parser) yield record as string[]
  } catch (error) {
    if (error instanceof SiteFileError) throw error
    if (error instanceof CsvError)
      throw new SiteFileError(
        name,
        `is not readable CSV at line ${typeof error.lines === 'number' ? error.lines + linesBefore : '?'}: ${error.message}`,
        { cause: error },
      )
    throw new SiteFileError(name, `cannot be read: ${(error as Error).message}`, { cause: error })
  } finally {
    parser.destroy()
  }
}

async function* thenRest(first: string, rest: AsyncIterator<Buffer> | null): AsyncGenerator<Buffer | string> {
  yield first
  for (;;) {
    if (!rest) return
    const next = await rest.next()
    if (next.done) return
    yield next.value
  }
}

/**
 * The records of a CSV file. Lines without a quote character are split at the separator directly: for
 * them that is all CSV is, and it is several times faster than csv-parse, which builds each cell from
 * bytes. From the first quote on, the rest of the file goes through csv-parse.
 */
async function* csvCells(source: OpenedSource, delimiter: string): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8')
  const chunks = source.chunks[Symbol.asyncIterator]()
  let pending = ''
  let line = 0
  try {
    for (;;) {
      const next = await chunks.next()
      const text = next.done ? pending + decoder.end() : pending + decoder.write(next.value)
      // Quotes, or lines ended by a bare CR (old Mac files): csv-parse reads those, from here on.
      const quote = text.indexOf('"')
      if (quote !== -1 || /\r[^\n]/.test(text)) {
        const from = quote === -1 ? 0 : text.lastIndexOf('\n', quote) + 1
        // Whole lines before the quote's line, each ended by its \n.
        const before = from === 0 ? [] : text.slice(0, from - 1).split('\n')
        for (const each of before) {
          line += 1
          const cells = simpleCells(each, delimiter, line)
          if (cells) yield cells
        }
        const rest = thenRest(text.slice(from), next.done ? null : (chunks as AsyncIterator<Buffer>))
        yield* parsedCells(rest, source.name, delimiter, line)
        return
      }
      const end = next.done ? text.length : text.lastIndexOf('\n')
      if (end === -1) {
        pending = text
        if (pending.length > MAX_RECORD_BYTES)
          throw new SiteFileError(
            source.name,
            `has a line over ${MAX_RECORD_BYTES} bytes at line ${line + 1}`,
          )
        continue
      }
      const lines = text.slice(0, end).split('\n')
      pending = next.done ? '' : text.slice(end + 1)
      for (const each of lines) {
        line += 1
        const cells = simpleCells(each, delimiter, line)
        if (cells) yield cells
      }
      if (next.done) return
    }
  } finally {
    await chunks.return?.()
    source.close()
  }
}

/** One line without quotes as its cells; null for an empty line (skipped, as csv-parse skips it). */
function simpleCells(text: string, delimiter: string, line: number): string[] | null {
  let bare = text.endsWith('\r') ? text.slice(0, -1) : text
  if (line === 1 && bare.startsWith('\uFEFF')) bare = bare.slice(1)
  return bare === '' ? null : bare.split(delimiter)
}

export interface CsvReadOptions {
  columnMap?: ColumnMap
  /** Told the header's columns, under the map (null: ignored), before the first row. */
  onColumns?: (columns: readonly (string | null)[]) => void
}

/** The rows of a CSV site file, one at a time. */
export async function* readCsvSites(
  source: OpenedSource,
  options: CsvReadOptions = {},
): AsyncGenerator<SiteRecord> {
  const map = options.columnMap ?? NO_COLUMN_MAP
  let names: (string | null)[] | undefined
  let row = 0
  for await (const cells of csvCells(source, csvDelimiter(source.head))) {
    if (!names) {
      const resolved = resolveColumns(cells, map)
      if (resolved.conflicts.length > 0)
        throw new SiteFileError(
          source.name,
          `has a header that cannot be read: ${resolved.conflicts.join('; ')}`,
          {
            field: 'header',
          },
        )
      // A column without a name (a trailing separator) is not read.
      names = resolved.names.map((name) => (name === '' ? null : name))
      options.onColumns?.(names)
      continue
    }
    row += 1
    yield csvRow(row, names, cells)
  }
  if (!names) throw new SiteFileError(source.name, 'has no header row')
}

function csvRow(row: number, names: readonly (string | null)[], cells: readonly string[]): SiteRecord {
  const fields: Record<string, unknown> = {}
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    if (name === null || name === undefined) continue
    const cell = cells[i]
    if (cell === undefined) continue
    const text = cell.trim()
    if (text !== '') fields[name] = text
  }
  const featureId = featureIdOf(fields)
  const extra = cells.slice(names.length).some((cell) => cell.trim() !== '')
  if (cells.length < names.length || extra)
    return {
      row,
      featureId,
      fields,
      issues: [
        {
          field: 'cells',
          value: valueText(cells.join(',')),
          rule: 'cells',
          message: `has ${cells.length} cells where the header has ${names.length} columns`,
        },
      ],
    }
  return { row, featureId, fields }
}
