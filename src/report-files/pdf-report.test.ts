import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ReportDocument } from '../domain/reports/report-document.ts'
import { renderPdfReport } from './pdf-report.ts'

const SQUARE = [
  [
    [-123.7, 44.5],
    [-123.5, 44.5],
    [-123.5, 44.7],
    [-123.7, 44.7],
    [-123.7, 44.5],
  ] as [number, number][],
]

/** A report with one block of each kind, a title with XML's special characters and Spanish letters. */
function report(overrides: Partial<ReportDocument> = {}): ReportDocument {
  return {
    language: 'es',
    paper: 'a4',
    title: 'Plan de densidad: Señal <Norte> & Cañada',
    subtitle: 'Hecho el 14 de marzo de 2026',
    createdAt: new Date('2026-03-14T09:26:53Z'),
    warning: 'Datos sintéticos',
    blocks: [
      { kind: 'heading', text: 'Dónde y qué' },
      {
        kind: 'summary',
        facts: {
          rows: [
            ['Lugar', 'Cañada'],
            ['Supervivencia', '0,842'],
          ],
        },
        map: {
          title: 'Mapa',
          alt: 'Un rodal',
          outlines: [SQUARE],
          detail: [-123.65, 44.55, -123.55, 44.65],
          stand: [SQUARE],
          requested: null,
          sites: [[-123.6, 44.6]],
          scale: { km: 2, label: '2 km' },
          legend: { requested: 'Punto', site: 'Sitio', stand: 'Rodal', detail: 'Ampliación' },
        },
      },
      { kind: 'paragraph', text: 'Párrafo con ñ y acentos: árbol, camión.' },
      { kind: 'list', items: ['uno', 'dos'] },
      {
        kind: 'table',
        table: {
          caption: 'Tabla',
          columns: [
            { label: 'Años', align: 'right' },
            { label: 'Valor', align: 'right' },
          ],
          rows: [['1', '0,941']],
        },
      },
      {
        kind: 'chart',
        chart: {
          kind: 'bars',
          title: 'Barras',
          alt: 'Barras por especie',
          legend: [{ label: 'Nativa', mark: 'bar' }],
          value: {
            label: 'Supervivencia',
            min: 0,
            max: 1,
            ticks: [
              { value: 0, label: '0' },
              { value: 1, label: '1' },
            ],
          },
          bars: [{ label: 'PSME', value: 0.8, valueLabel: '0,800', muted: false }],
        },
      },
      { kind: 'code', text: '{"a": 1}' },
    ],
    footer: { text: 'Solicitud r-1', pageOf: 'Página {page} de {pages}' },
    attachments: [
      {
        name: 'request.json',
        description: 'La solicitud',
        mediaType: 'application/json',
        content: '{"a": 1}\n',
      },
    ],
    ...overrides,
  }
}

/** A poppler-utils tool's output for the PDF (written to a temporary file). */
function poppler(tool: string, bytes: Buffer, ...options: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-report-'))
  try {
    writeFileSync(join(dir, 'r.pdf'), bytes)
    return execFileSync(`/usr/bin/${tool}`, [...options, join(dir, 'r.pdf')], { encoding: 'utf8' })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('a report drawn as PDF', () => {
  it('gives the same bytes for the same report, and other bytes at another time', async () => {
    const first = await renderPdfReport(report())
    expect((await renderPdfReport(report())).equals(first)).toBe(true)
    const later = await renderPdfReport(report({ createdAt: new Date('2026-03-14T09:26:54Z') }))
    expect(later.equals(first)).toBe(false)
  })

  it('is tagged, with its title, language, dates and paper, and its request attached', async () => {
    const bytes = await renderPdfReport(report())
    const info = poppler('pdfinfo', bytes, '-enc', 'UTF-8')
    expect(info).toMatch(/^Tagged:\s+yes$/m)
    expect(info).toMatch(/^Title:\s+Plan de densidad: Señal ‹Norte› ＆ Cañada$/m)
    expect(info).toMatch(/^CreationDate:\s+Sat Mar 14 09:26:53 2026 UTC$/m)
    expect(info).toMatch(/^Page size:\s+595\.2\d x 841\.8\d pts \(A4\)$/m)
    expect(poppler('pdfinfo', bytes, '-meta')).toContain('<rdf:li>es</rdf:li>')
    expect(bytes.toString('latin1')).toContain('/Lang (es)')
    expect(bytes.toString('latin1')).toContain('/DisplayDocTitle true')
    expect(bytes.toString('latin1')).toMatch(/\/StructTreeRoot/)
    expect(bytes.toString('latin1')).toMatch(/\/S \/Figure[\s\S]*\/Alt/)
    expect(poppler('pdfdetach', bytes, '-list')).toContain('request.json')
  })

  it('draws a histogram and a reliability diagram as figures, with their labels, the same bytes each time', async () => {
    const axis = (label: string) => ({
      label,
      min: 0,
      max: 1,
      ticks: [0, 0.5, 1].map((value) => ({ value, label: String(value).replace('.', ',') })),
    })
    const charts = report({
      blocks: [
        {
          kind: 'chart',
          chart: {
            kind: 'histogram',
            title: 'Filas por supervivencia',
            alt: 'Histograma de 3 filas',
            legend: [
              { label: '1 año', mark: 'series1' },
              { label: '5 años', mark: 'series2' },
            ],
            x: axis('Supervivencia'),
            y: {
              label: 'Filas',
              min: 0,
              max: 4,
              ticks: [0, 2, 4].map((v) => ({ value: v, label: String(v) })),
            },
            bins: [
              { from: 0, to: 0.5 },
              { from: 0.5, to: 1 },
            ],
            series: [
              { label: '1 año', counts: [1, 2] },
              { label: '5 años', counts: [3, 0] },
            ],
          },
        },
        {
          kind: 'chart',
          chart: {
            kind: 'reliability',
            title: 'Diagrama de fiabilidad',
            alt: 'Observada frente a predicha',
            legend: [
              { label: 'Intervalos', mark: 'point' },
              { label: 'Calibración perfecta', mark: 'dashed' },
            ],
            x: axis('Predicha'),
            y: axis('Observada'),
            points: [
              { x: 0.3, y: 0.35, weight: 10 },
              { x: 0.7, y: 0.6, weight: 40 },
            ],
          },
        },
      ],
    })
    const bytes = await renderPdfReport(charts)
    expect((await renderPdfReport(charts)).equals(bytes)).toBe(true)
    const dir = mkdtempSync(join(tmpdir(), 'pdf-report-'))
    let text: string
    try {
      writeFileSync(join(dir, 'r.pdf'), bytes)
      text = execFileSync('/usr/bin/pdftotext', ['-enc', 'UTF-8', join(dir, 'r.pdf'), '-'], {
        encoding: 'utf8',
      }).replace(/\s+/g, ' ')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    for (const label of [
      'Filas por supervivencia',
      '1 año',
      '5 años',
      'Diagrama de fiabilidad',
      'Predicha',
      'Observada',
    ])
      expect(text).toContain(label)
    const latin1 = bytes.toString('latin1')
    expect(latin1.match(/\/S \/Figure/g)?.length).toBe(2)
  })

  it('embeds its fonts (no standard font is left to the viewer)', async () => {
    const fonts = poppler('pdffonts', await renderPdfReport(report({ paper: 'letter' })))
    const rows = fonts.split('\n').slice(2).filter(Boolean)
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) expect(row, row).toMatch(/DejaVu\S*\s.*\byes\s+yes\b/)
  })
})
