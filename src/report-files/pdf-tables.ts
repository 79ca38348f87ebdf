import type { DataTable, FactTable } from '../domain/reports/report-document.ts'
import { COLOUR, SIZE } from './pdf-style.ts'

/*
 * The tables, with pdfkit's own table (tagged Table, TR, TH and TD when given a structure parent):
 * label–value facts, and data tables with a header row, numbers aligned right.
 */

type StructParent = PDFKit.PDFStructureElement

const CELL = {
  padding: [1.6, 3, 1.6, 3] as [number, number, number, number],
  border: [0, 0, 0.4, 0] as [number, number, number, number],
  borderColor: COLOUR.grid,
  textColor: COLOUR.text,
}

/** Label–value rows at (x, doc.y), `width` wide. */
export function drawFacts(
  doc: PDFKit.PDFDocument,
  facts: FactTable,
  x: number,
  width: number,
  parent: StructParent,
): void {
  const labelWidth = Math.round(width * 0.42)
  doc.table({
    structParent: parent,
    position: { x, y: doc.y },
    maxWidth: width,
    columnStyles: [labelWidth, width - labelWidth],
    defaultStyle: { ...CELL, font: { src: 'regular', size: SIZE.table } },
    data: facts.rows.map(([label, value]) => [
      { text: label, type: 'TH', textColor: COLOUR.muted, font: { src: 'condensed', size: SIZE.table } },
      { text: value, font: { src: 'regular', size: SIZE.table } },
    ]),
  } as PDFKit.Mixins.TableOptionsWithData)
}

/** The rows of a table laid `copies` times side by side, rows flowing down the first copy, then the next. */
function sideBySide(table: DataTable, copies: number): { columns: DataTable['columns']; rows: string[][] } {
  if (copies <= 1 || table.rows.length < 8)
    return { columns: table.columns, rows: table.rows.map((row) => [...row]) }
  const perCopy = Math.ceil(table.rows.length / copies)
  const rows: string[][] = []
  for (let i = 0; i < perCopy; i++)
    rows.push(
      Array.from({ length: copies }, (_, copy) => {
        const row = table.rows[copy * perCopy + i]
        return row ? [...row] : table.columns.map(() => '')
      }).flat(),
    )
  return { columns: Array.from({ length: copies }, () => table.columns).flat(), rows }
}

/**
 * Each column as wide as its widest cell (a header may wrap at its spaces), the room left shared out
 * in proportion. When the cells do not fit, each column keeps its longest word (no word is broken, so
 * numbers and one-word headers stay whole) and the columns that can wrap share what is left, in
 * proportion to what they give up; only when even the words do not fit do all give up room in proportion.
 */
function columnWidths(
  doc: PDFKit.PDFDocument,
  columns: DataTable['columns'],
  rows: readonly (readonly string[])[],
  width: number,
): number[] {
  const padding = CELL.padding[1] + CELL.padding[3] + 2
  const widest = (texts: readonly string[], font: string) => {
    doc.font(font).fontSize(SIZE.table)
    return Math.max(0, ...texts.map((text) => doc.widthOfString(text)))
  }
  const words = (texts: readonly string[]) => texts.flatMap((text) => text.split(' '))
  const natural: number[] = []
  const shortest: number[] = []
  for (const [index, column] of columns.entries()) {
    const cells = rows.map((row) => row[index] ?? '')
    const header = widest(column.label.split(' '), 'condensedBold') + padding
    natural.push(Math.max(header, widest(cells, 'condensed') + padding))
    shortest.push(Math.max(header, widest(words(cells), 'condensed') + padding))
  }
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0)
  const total = sum(natural)
  if (total <= width || sum(shortest) >= width) {
    const base = total <= width ? natural : shortest
    return base.map((value) => (value / sum(base)) * width)
  }
  const spare = width - sum(shortest)
  const wanted = total - sum(shortest)
  return shortest.map((least, index) => least + (((natural[index] ?? least) - least) / wanted) * spare)
}

/** The height of a row whose cells wrap within `widths`, as pdfkit's table lays it out (and a point spare). */
function rowHeight(
  doc: PDFKit.PDFDocument,
  cells: readonly string[],
  widths: readonly number[],
  font: string,
) {
  doc.font(font).fontSize(SIZE.table)
  const inner = (index: number) => (widths[index] ?? 0) - CELL.padding[1] - CELL.padding[3]
  const text = Math.max(
    ...cells.map((cell, index) => doc.heightOfString(cell || ' ', { width: inner(index) })),
  )
  return text + CELL.padding[0] + CELL.padding[2] + 1
}

/**
 * A data table at (x, doc.y), `width` wide: a header row, then its rows. Rows that do not fit on the
 * page continue on the next under the header again (each page's part a table of its own).
 */
export function drawDataTable(
  doc: PDFKit.PDFDocument,
  table: DataTable,
  x: number,
  width: number,
  parent: StructParent,
): void {
  const { columns, rows } = sideBySide(table, table.sideBySide ?? 1)
  const widths = columnWidths(doc, columns, rows, width)
  const align = (index: number) => ({ x: columns[index]?.align ?? 'left', y: 'center' as const })
  const header = columns.map((column, index) => ({
    text: column.label,
    type: 'TH' as const,
    align: align(index),
    backgroundColor: COLOUR.headerFill,
    font: { src: 'condensedBold', size: SIZE.table },
  }))
  const headerHeight = rowHeight(
    doc,
    columns.map((column) => column.label),
    widths,
    'condensedBold',
  )
  const heights = rows.map((row) => rowHeight(doc, row, widths, 'condensed'))
  let start = 0
  while (start < rows.length) {
    let end = start
    let used = headerHeight
    while (end < rows.length && doc.y + used + (heights[end] ?? 0) <= doc.page.maxY())
      used += heights[end++] ?? 0
    // Not one row fits under the header here: the next page (where at least one always does).
    if (end === start && doc.y > doc.page.margins.top) {
      doc.addPage()
      continue
    }
    end = Math.max(end, start + 1)
    doc.table({
      structParent: parent,
      position: { x, y: doc.y },
      maxWidth: width,
      columnStyles: widths,
      defaultStyle: { ...CELL, font: { src: 'condensed', size: SIZE.table } },
      data: [
        header,
        ...rows.slice(start, end).map((row) =>
          row.map((cell, index) => ({
            text: cell,
            align: align(index),
            font: { src: 'condensed', size: SIZE.table },
          })),
        ),
      ],
    } as PDFKit.Mixins.TableOptionsWithData)
    start = end
    if (start < rows.length) doc.addPage()
  }
}
