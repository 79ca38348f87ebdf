import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

/*
 * Reading PDFs as a person's tools do: Debian's poppler-utils (pdfinfo, pdftotext, pdftoppm). A
 * missing tool fails the test that needs it, with how to install it (`.ci/run` installs it).
 */

const run = promisify(execFile)

function tool(name: string): string {
  const path = `/usr/bin/${name}`
  if (!existsSync(path))
    throw new Error(
      `${path} is missing: the report tests need Debian's poppler-utils (apt-get install poppler-utils)`,
    )
  return path
}

/** Runs a poppler tool on the PDF's bytes (written to a temporary file) and returns its stdout. */
async function onFile<T>(pdf: Uint8Array, work: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'report-pdf-'))
  try {
    const file = join(dir, 'report.pdf')
    await writeFile(file, pdf)
    return await work(file, dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export interface PdfInfo {
  pages: number
  title: string
  tagged: boolean
  /** e.g. "612 x 792 pts (letter)". */
  pageSize: string
  /** The XMP metadata packet. */
  metadata: string
}

export function pdfInfo(pdf: Uint8Array): Promise<PdfInfo> {
  return onFile(pdf, async (file) => {
    const { stdout } = await run(tool('pdfinfo'), ['-enc', 'UTF-8', file])
    const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(stdout)?.[1]?.trim() ?? ''
    const { stdout: metadata } = await run(tool('pdfinfo'), ['-meta', file])
    return {
      pages: Number(field('Pages')),
      title: field('Title'),
      tagged: field('Tagged') === 'yes',
      pageSize: field('Page size'),
      metadata,
    }
  })
}

/** The PDF's text, page by page in reading order (pdftotext's raw order), as one string. */
export function pdfText(pdf: Uint8Array): Promise<string> {
  return onFile(pdf, async (file) => {
    const { stdout } = await run(tool('pdftotext'), ['-enc', 'UTF-8', file, '-'], {
      maxBuffer: 32 * 1024 * 1024,
    })
    return stdout
  })
}

/** Every page rendered to PNG at `dpi`; the PNGs' bytes, page order. Kept in `keepIn` too when given. */
export function pdfPages(
  pdf: Uint8Array,
  dpi: number,
  keepIn?: { dir: string; name: string },
): Promise<Buffer[]> {
  return onFile(pdf, async (file, dir) => {
    await run(tool('pdftoppm'), ['-png', '-r', String(dpi), file, join(dir, 'page')])
    const pages = (await readdir(dir))
      .filter((name) => name.startsWith('page') && name.endsWith('.png'))
      .sort()
    const images = await Promise.all(pages.map((name) => readFile(join(dir, name))))
    if (keepIn)
      await Promise.all(
        images.map((image, index) => writeFile(join(keepIn.dir, `${keepIn.name}-${index + 1}.png`), image)),
      )
    return images
  })
}
