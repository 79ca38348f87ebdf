import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeGpkgGeometry, encodeGpkgPoint, GeometryBlobError } from './geopackage-geometry.ts'

interface BlobParts {
  headerLittle?: boolean
  envelope?: 0 | 1 | 2 | 3 | 4
  empty?: boolean
  srsId?: number
  wkbLittle?: boolean
  wkbType?: number
  ewkbSrid?: number
  coordinates?: number[]
}

/** A GeoPackage geometry blob built field by field, as other writers (GDAL, QGIS, PostGIS) may lay it out. */
function blob(parts: BlobParts = {}): Buffer {
  const {
    headerLittle = true,
    envelope = 0,
    empty = false,
    srsId = 4326,
    wkbLittle = true,
    wkbType = 1,
  } = parts
  const coordinates = parts.coordinates ?? [-122.5, 45.25]
  const envelopeDoubles = [0, 4, 6, 6, 8][envelope] as number
  const size = 8 + 8 * envelopeDoubles + 5 + (parts.ewkbSrid === undefined ? 0 : 4) + 8 * coordinates.length
  const out = Buffer.alloc(size)
  out.write('GP', 0, 'latin1')
  out[2] = 0
  out[3] = (empty ? 0x10 : 0) | (envelope << 1) | (headerLittle ? 1 : 0)
  if (headerLittle) out.writeInt32LE(srsId, 4)
  else out.writeInt32BE(srsId, 4)
  let at = 8
  for (let i = 0; i < envelopeDoubles; i++, at += 8) {
    if (headerLittle) out.writeDoubleLE(i, at)
    else out.writeDoubleBE(i, at)
  }
  out[at] = wkbLittle ? 1 : 0
  if (wkbLittle) out.writeUInt32LE(wkbType >>> 0, at + 1)
  else out.writeUInt32BE(wkbType >>> 0, at + 1)
  at += 5
  if (parts.ewkbSrid !== undefined) {
    if (wkbLittle) out.writeUInt32LE(parts.ewkbSrid, at)
    else out.writeUInt32BE(parts.ewkbSrid, at)
    at += 4
  }
  for (const value of coordinates) {
    if (wkbLittle) out.writeDoubleLE(value, at)
    else out.writeDoubleBE(value, at)
    at += 8
  }
  return out
}

describe('decodeGpkgGeometry', () => {
  it('reads a 2D point in either byte order, with any envelope', () => {
    for (const headerLittle of [true, false])
      for (const wkbLittle of [true, false])
        for (const envelope of [0, 1, 2, 3, 4] as const)
          expect(decodeGpkgGeometry(blob({ headerLittle, wkbLittle, envelope, srsId: 4326 }))).toEqual({
            kind: 'point',
            srsId: 4326,
            x: -122.5,
            y: 45.25,
            z: null,
          })
  })

  it('reads ISO Z, M and ZM points and EWKB flags, keeping Z and dropping M', () => {
    const point = (wkbType: number, coordinates: number[], extra: BlobParts = {}) =>
      decodeGpkgGeometry(blob({ wkbType, coordinates, ...extra }))
    expect(point(1001, [-120, 44, 850])).toEqual({ kind: 'point', srsId: 4326, x: -120, y: 44, z: 850 })
    expect(point(2001, [-120, 44, 7])).toEqual({ kind: 'point', srsId: 4326, x: -120, y: 44, z: null })
    expect(point(3001, [-120, 44, 850, 7])).toEqual({ kind: 'point', srsId: 4326, x: -120, y: 44, z: 850 })
    expect(point(0x80000001, [-120, 44, 850], { wkbLittle: false })).toMatchObject({ z: 850 })
    expect(point(0xa0000001, [-120, 44, 850], { ewkbSrid: 4326 })).toMatchObject({ x: -120, y: 44, z: 850 })
  })

  it('tells an empty point from a point (the flag, or NaN coordinates)', () => {
    expect(decodeGpkgGeometry(blob({ empty: true, coordinates: [Number.NaN, Number.NaN] }))).toEqual({
      kind: 'empty',
      srsId: 4326,
    })
    expect(decodeGpkgGeometry(blob({ coordinates: [Number.NaN, Number.NaN] })).kind).toBe('empty')
  })

  it('names a geometry of another type', () => {
    expect(decodeGpkgGeometry(blob({ wkbType: 3, coordinates: [] }))).toEqual({
      kind: 'other',
      srsId: 4326,
      wkbType: 3,
      typeName: 'Polygon',
    })
    expect(decodeGpkgGeometry(blob({ wkbType: 1004, coordinates: [] })).kind).toBe('other')
  })

  it('refuses what is not a GeoPackage geometry, or is cut short, with a reason', () => {
    const refused = (bytes: Uint8Array) => {
      try {
        decodeGpkgGeometry(bytes)
      } catch (error) {
        expect(error).toBeInstanceOf(GeometryBlobError)
        return (error as Error).message
      }
      throw new Error('accepted')
    }
    expect(refused(Buffer.from('GP'))).toMatch(/too short/)
    expect(refused(Buffer.from('XX\0\x01\0\0\0\0\x01\x01\0\0\0'))).toMatch(/magic/)
    expect(refused(blob().subarray(0, 20))).toMatch(/cut short inside its point/)
    expect(refused(blob().subarray(0, 10))).toMatch(/cut short before/)
    const extended = blob()
    extended[3] = (extended[3] as number) | 0x20
    expect(refused(extended)).toMatch(/extended/)
    const badEnvelope = blob()
    badEnvelope[3] = 0x0b
    expect(refused(badEnvelope)).toMatch(/envelope code 5/)
    const badOrder = blob()
    badOrder[8] = 7
    expect(refused(badOrder)).toMatch(/byte order/)
    expect(refused(blob({ wkbType: 5001 }))).toMatch(/unknown WKB geometry type/)
  })
})

describe('encodeGpkgPoint', () => {
  it('writes what it reads back, bit for bit', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), fc.integer(), (x, y, srsId) => {
        expect(decodeGpkgGeometry(encodeGpkgPoint(x, y, srsId))).toEqual({
          kind: 'point',
          srsId,
          x,
          y,
          z: null,
        })
      }),
    )
  })

  it('lays a point out as GDAL does: little-endian, no envelope, 29 bytes', () => {
    expect(encodeGpkgPoint(-122.5, 45.25, 4326)).toEqual(blob())
  })
})
