import { readFileSync } from 'node:fs'
import { type Font, create as parseFont } from 'fontkit'
import PDFDocument from 'pdfkit'
import type { ReportBlock, ReportDocument } from '../domain/reports/report-document.ts'
import { chartHeight, drawChart } from './pdf-charts.ts'
import { drawLocatorMap } from './pdf-map.ts'
import { COLOUR, FONT_FILES, type FontName, GAP, MARGIN, SIZE } from './pdf-style.ts'
import { drawDataTable, drawFacts } from './pdf-tables.ts'

/*
 * A report drawn as a tagged PDF (pdfkit): the title and language in the document's metadata and
 * catalogue, headings, paragraphs, lists, tables and figures (with their alternative text) in the
 * structure tree, page furniture marked as artifacts, the fonts embedded (subsets), the request
 * attached. Nothing in it depends on the clock but the answer's own time: the same report gives the
 * same bytes.
 */

const PAPER_SIZES = { a4: 'A4', letter: 'LETTER' } as const

/** The locator map beside the summary facts: its width and height, points. */
const MAP_WIDTH = 250
const MAP_HEIGHT = 205
/** A table's caption, a header of two lines and its first rows, kept together. */
const TABLE_START = 72
/** A heading's height with the space around it. */
const HEADING_HEIGHT = 20

let parsedFonts: Record<FontName, Font> | undefined

/**
 * The fonts, read and parsed once: from a file's bytes, pdfkit would parse each font's tables again
 * for every report, most of a report's time. A parsed font is only read by the documents that use
 * it (each keeps its own subset), so the reports share them.
 */
function fonts(): Record<FontName, Font> {
  parsedFonts ??= Object.fromEntries(
    Object.entries(FONT_FILES).map(([name, file]) => [name, parseFont(readFileSync(file)) as Font]),
  ) as Record<FontName, Font>
  return parsedFonts
}

/**
 * XMP packets take pdfkit's text as it is: `&`, `<` and `>` would break them, so the metadata's copy
 * of a title (not the page's) shows look-alikes instead.
 */
function metadataText(text: string): string {
  return text.replaceAll('&', '＆').replaceAll('<', '‹').replaceAll('>', '›')
}

class ReportWriter {
  readonly doc: PDFKit.PDFDocument
  private readonly root: PDFKit.PDFStructureElement

  constructor(private readonly report: ReportDocument) {
    this.doc = new PDFDocument({
      size: PAPER_SIZES[report.paper],
      margins: MARGIN,
      bufferPages: true,
      tagged: true,
      lang: report.language,
      displayTitle: true,
      pdfVersion: '1.7',
      info: {
        Title: metadataText(report.title),
        Subject: metadataText(report.subtitle),
        Creator: 'Survival Prediction API',
        Producer: 'PDFKit',
        CreationDate: report.createdAt,
        ModDate: report.createdAt,
      },
    })
    // pdfkit takes a parsed (fontkit) font as a source, which its types do not list. The name is also
    // the family: a table cell restores the font before it by source and family, and only a family
    // finds the font the document has open; without it each cell opened the font anew.
    for (const [name, font] of Object.entries(fonts()))
      this.doc.registerFont(name, font as unknown as PDFKit.Mixins.PDFFontSource, name)
    this.doc.appendXML(`
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:language><rdf:Bag><rdf:li>${report.language}</rdf:li></rdf:Bag></dc:language>
        </rdf:Description>`)
    this.root = this.doc.struct('Document')
    this.doc.addStructure(this.root)
  }

  private get left(): number {
    return this.doc.page.margins.left
  }

  private get width(): number {
    return this.doc.page.width - this.doc.page.margins.left - this.doc.page.margins.right
  }

  /** A new page unless `height` points still fit on this one. */
  private room(height: number) {
    if (this.doc.y + height > this.doc.page.maxY()) this.doc.addPage()
  }

  private text(tag: string, text: string, font: FontName, size: number, colour: string = COLOUR.text) {
    const { doc } = this
    this.root.add(
      doc.struct(tag, {}, () => {
        doc.font(font).fontSize(size).fillColor(colour).text(text, this.left, doc.y, { width: this.width })
      }),
    )
  }

  private warning(text: string) {
    const { doc } = this
    doc.font('regular').fontSize(SIZE.body)
    const height = doc.heightOfString(text, { width: this.width - 16 }) + 10
    const top = doc.y
    doc
      .rect(this.left, top, this.width, height)
      .lineWidth(0.8)
      .fillAndStroke(COLOUR.warningFill, COLOUR.warningLine)
    doc.y = top + 5
    this.root.add(
      doc.struct('P', {}, () => {
        doc.fillColor(COLOUR.text).text(text, this.left + 8, doc.y, { width: this.width - 16 })
      }),
    )
    doc.y = top + height + GAP / 2
  }

  /**
   * The height of the text that follows a heading up to the next one, when it is only text (paragraphs,
   * lists, code) and takes less than a third of a page; else 0.
   */
  private sectionHeight(following: readonly ReportBlock[]): number {
    const { doc } = this
    let height = 24
    for (const block of following) {
      if (block.kind === 'heading') break
      if (block.kind === 'paragraph') doc.font('regular').fontSize(SIZE.body)
      else if (block.kind === 'code') doc.font('mono').fontSize(SIZE.code)
      else if (block.kind === 'list') doc.font('regular').fontSize(block.small ? SIZE.small : SIZE.body)
      else return 0
      const text = block.kind === 'list' ? block.items.join('\n') : block.text
      height += doc.heightOfString(text, { width: this.width - (block.kind === 'list' ? 12 : 0) }) + 4
    }
    return height < (doc.page.maxY() - MARGIN.top) / 3 ? height : 0
  }

  /** What a block keeps together at its start: it begins on a new page when that does not fit. */
  private heldTogether(block: ReportBlock | undefined): number {
    if (block?.kind === 'table') return TABLE_START
    if (block?.kind === 'chart') return chartHeight(block.chart)
    if (block?.kind === 'summary') return MAP_HEIGHT
    return 0
  }

  private figure(alt: string, height: number, draw: (top: number) => void) {
    const { doc } = this
    this.room(height)
    const top = doc.y
    this.root.add(doc.struct('Figure', { alt }, () => draw(top)))
    doc.x = this.left
    doc.y = top + height + GAP / 2
  }

  private block(block: ReportBlock, next: readonly ReportBlock[]) {
    const { doc } = this
    switch (block.kind) {
      case 'heading':
        // A heading keeps a few lines of what follows it on its page, a short section of text all of it,
        // and a table, chart or map as much as that block would ask for itself.
        this.room(Math.max(70, this.sectionHeight(next), HEADING_HEIGHT + this.heldTogether(next[0])))
        doc.y += 4
        this.text('H2', block.text, 'bold', SIZE.heading)
        doc.y += 2
        return
      case 'paragraph':
        this.text('P', block.text, 'regular', SIZE.body)
        doc.y += 2
        return
      case 'list':
        doc
          .font('regular')
          .fontSize(block.small ? SIZE.small : SIZE.body)
          .fillColor(COLOUR.text)
        doc.list([...block.items], this.left, doc.y, {
          width: this.width - 12,
          bulletRadius: 1.4,
          textIndent: 9,
          bulletIndent: 2,
          structParent: this.root,
        } as PDFKit.Mixins.TextOptions)
        doc.x = this.left
        doc.y += 3
        return
      case 'summary': {
        this.room(MAP_HEIGHT)
        const top = doc.y
        const factsWidth = this.width - MAP_WIDTH - GAP * 1.5
        this.root.add(
          doc.struct('Figure', { alt: block.map.alt }, () =>
            drawLocatorMap(doc, block.map, {
              x: this.left + this.width - MAP_WIDTH,
              y: top,
              width: MAP_WIDTH,
              height: MAP_HEIGHT,
            }),
          ),
        )
        doc.y = top
        drawFacts(doc, block.facts, this.left, factsWidth, this.root)
        doc.x = this.left
        doc.y = Math.max(doc.y, top + MAP_HEIGHT) + GAP / 2
        return
      }
      case 'facts':
        drawFacts(doc, block.table, this.left, this.width * 0.75, this.root)
        doc.x = this.left
        doc.y += GAP / 2
        return
      case 'table':
        // The caption, a header of two lines and the first rows together.
        this.room(TABLE_START)
        this.text('Caption', block.table.caption, 'regular', SIZE.small, COLOUR.muted)
        doc.y += 2
        drawDataTable(doc, block.table, this.left, this.width, this.root)
        doc.x = this.left
        doc.y += GAP / 2
        return
      case 'chart':
        this.figure(block.chart.alt, chartHeight(block.chart), (top) =>
          drawChart(doc, block.chart, this.left, top, this.width),
        )
        return
      case 'code':
        // Kept on one page when it fits on one: the request is read as a whole.
        doc.font('mono').fontSize(SIZE.code)
        this.room(
          Math.min(doc.heightOfString(block.text, { width: this.width }), doc.page.maxY() - MARGIN.top),
        )
        this.text('Code', block.text, 'mono', SIZE.code)
        doc.y += 2
        return
    }
  }

  /** On every page: the request's id, time and operation, and the page's number, as page furniture. */
  private footers() {
    const { doc, report } = this
    const { start, count } = doc.bufferedPageRange()
    for (let index = start; index < start + count; index++) {
      doc.switchToPage(index)
      const bottom = doc.page.margins.bottom
      doc.page.margins.bottom = 0
      const y = doc.page.height - bottom + 16
      doc.markContent('Artifact', { type: 'Pagination' })
      doc
        .lineWidth(0.4)
        .moveTo(this.left, y - 5)
        .lineTo(this.left + this.width, y - 5)
        .stroke(COLOUR.rule)
      doc.font('regular').fontSize(SIZE.footer).fillColor(COLOUR.muted)
      const page = report.footer.pageOf
        .replace('{page}', String(index - start + 1))
        .replace('{pages}', String(count))
      const pageWidth = doc.widthOfString(page) + 2
      // One line: pdfkit still wraps a long unbroken path, so the text is cut to fit, with an ellipsis.
      const width = this.width - pageWidth - GAP
      doc.text(fitted(doc, report.footer.text, width), this.left, y, { width, lineBreak: false })
      doc.text(page, this.left + this.width - pageWidth, y, {
        width: pageWidth,
        align: 'right',
        lineBreak: false,
      })
      doc.endMarkedContent()
      doc.page.margins.bottom = bottom
    }
  }

  write(): Promise<Buffer> {
    const { doc, report } = this
    const chunks: Buffer[] = []
    const done = new Promise<Buffer>((resolve, reject) => {
      doc.on('data', (chunk: Buffer) => chunks.push(chunk))
      doc.on('end', () => resolve(Buffer.concat(chunks)))
      doc.on('error', reject)
    })
    this.text('H1', report.title, 'bold', SIZE.title)
    doc.y += 1
    this.text('P', report.subtitle, 'regular', SIZE.subtitle, COLOUR.muted)
    doc.y += GAP / 2
    if (report.warning) this.warning(report.warning)
    for (const [index, block] of report.blocks.entries()) this.block(block, report.blocks.slice(index + 1))
    this.root.end()
    this.footers()
    for (const attachment of report.attachments)
      doc.file(Buffer.from(attachment.content, 'utf8'), {
        name: attachment.name,
        type: attachment.mediaType,
        description: attachment.description,
        creationDate: report.createdAt,
        modifiedDate: report.createdAt,
        relationship: 'Source',
      } as PDFKit.Mixins.PDFAttachmentOptions)
    doc.end()
    return done
  }
}

/** `text` cut at its end, with an ellipsis, to fit `width` at the current font and size. */
function fitted(doc: PDFKit.PDFDocument, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text
  let kept = text.length
  while (kept > 0 && doc.widthOfString(`${text.slice(0, kept)}…`) > width) kept -= 1
  return `${text.slice(0, kept)}…`
}

/** The report as PDF bytes. */
export function renderPdfReport(report: ReportDocument): Promise<Buffer> {
  return new ReportWriter(report).write()
}
