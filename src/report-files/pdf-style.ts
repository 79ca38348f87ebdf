import { createRequire } from 'node:module'

/*
 * How a report looks: its fonts (DejaVu, shipped by the dejavu-fonts-ttf package: Latin with every
 * Spanish letter, under the Bitstream Vera licence), sizes, colours and margins.
 */

const require = createRequire(import.meta.url)
const fontFile = (name: string) => require.resolve(`dejavu-fonts-ttf/ttf/${name}`)

export const FONT_FILES = {
  regular: fontFile('DejaVuSans.ttf'),
  bold: fontFile('DejaVuSans-Bold.ttf'),
  condensed: fontFile('DejaVuSansCondensed.ttf'),
  condensedBold: fontFile('DejaVuSansCondensed-Bold.ttf'),
  mono: fontFile('DejaVuSansMono.ttf'),
} as const

export type FontName = keyof typeof FONT_FILES

/** Points (1/72 inch). */
export const MARGIN = { top: 40, right: 40, bottom: 50, left: 40 } as const
export const GAP = 10

export const SIZE = {
  title: 15,
  subtitle: 8.5,
  heading: 10.5,
  body: 8.5,
  small: 7.5,
  table: 7.5,
  code: 6.8,
  footer: 7,
} as const

export const COLOUR = {
  text: '#1a1a1a',
  muted: '#5c5c5c',
  rule: '#b8b8b8',
  grid: '#e2e2e2',
  headerFill: '#eef2ee',
  warningFill: '#fff4d6',
  warningLine: '#c99700',
  land: '#eef3ea',
  landLine: '#7a8a70',
  stand: '#2f7d32',
  standFill: '#cfe8c9',
  point: '#c62828',
  site: '#1f4e9a',
  band: '#c9dcf2',
  line: '#1f4e9a',
  second: '#c0561d',
  target: '#c62828',
  bar: '#2f7d32',
  mutedBar: '#a7a7a7',
} as const
