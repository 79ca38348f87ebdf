/*
 * GeoPackage geometry blobs (OGC 12-128r18 §2.1.3), for points: a header (magic "GP", version, flags,
 * srs_id, an optional envelope) and a WKB geometry (ISO; EWKB's Z/M/SRID flags are read too). Only what
 * a site needs: a point, in 2D or with Z (and M, ignored).
 */

export type GpkgGeometry =
  | { kind: 'point'; srsId: number; x: number; y: number; z: number | null }
  /** A point with no position (the empty flag, or NaN coordinates). */
  | { kind: 'empty'; srsId: number }
  /** A geometry of another WKB type (2 LineString, 3 Polygon, 4 MultiPoint, …). */
  | { kind: 'other'; srsId: number; wkbType: number; typeName: string }

/** A blob that is not a GeoPackage geometry at all, or is cut short. */
export class GeometryBlobError extends Error {
  override readonly name = 'GeometryBlobError'
}

const ENVELOPE_BYTES = [0, 32, 48, 48, 64] as const

const WKB_TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'Point',
  2: 'LineString',
  3: 'Polygon',
  4: 'MultiPoint',
  5: 'MultiLineString',
  6: 'MultiPolygon',
  7: 'GeometryCollection',
}

const EWKB_Z = 0x80000000
const EWKB_M = 0x40000000
const EWKB_SRID = 0x20000000

/** A GeoPackage geometry blob's point, or what else it holds; throws GeometryBlobError when it cannot be read. */
export function decodeGpkgGeometry(blob: Uint8Array): GpkgGeometry {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
  if (blob.length < 8)
    throw new GeometryBlobError(`is ${blob.length} bytes, too short for a GeoPackage geometry`)
  if (blob[0] !== 0x47 || blob[1] !== 0x50)
    throw new GeometryBlobError('does not start with the GeoPackage magic "GP"')
  if (blob[2] !== 0) throw new GeometryBlobError(`has GeoPackage geometry version ${blob[2]}, not 0`)
  const flags = blob[3] as number
  if (flags & 0x20) throw new GeometryBlobError('is an extended GeoPackage geometry, not a standard one')
  const empty = (flags & 0x10) !== 0
  const envelopeCode = (flags >> 1) & 0x07
  const headerLittle = (flags & 0x01) === 1
  const envelope = ENVELOPE_BYTES[envelopeCode as 0 | 1 | 2 | 3 | 4]
  if (envelope === undefined) throw new GeometryBlobError(`has an invalid envelope code ${envelopeCode}`)
  const srsId = view.getInt32(4, headerLittle)
  let at = 8 + envelope
  if (blob.length < at + 5) {
    if (empty && blob.length === at) return { kind: 'empty', srsId }
    throw new GeometryBlobError('is cut short before its WKB geometry')
  }
  const byteOrder = blob[at]
  if (byteOrder !== 0 && byteOrder !== 1) throw new GeometryBlobError(`has a WKB byte order of ${byteOrder}`)
  const little = byteOrder === 1
  const rawType = view.getUint32(at + 1, little)
  at += 5
  const flagsEwkb = rawType & (EWKB_Z | EWKB_M | EWKB_SRID)
  const isoType = rawType & 0x0fffffff
  const baseType = isoType % 1000
  const isoDimension = Math.floor(isoType / 1000)
  if (isoDimension > 3) throw new GeometryBlobError(`has an unknown WKB geometry type ${rawType}`)
  if (baseType !== 1) {
    const typeName = WKB_TYPE_NAMES[baseType] ?? `WKB type ${rawType}`
    return { kind: 'other', srsId, wkbType: rawType, typeName }
  }
  const hasZ = (flagsEwkb & EWKB_Z) !== 0 || isoDimension === 1 || isoDimension === 3
  const hasM = (flagsEwkb & EWKB_M) !== 0 || isoDimension === 2 || isoDimension === 3
  if (flagsEwkb & EWKB_SRID) at += 4
  const doubles = 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0)
  if (blob.length < at + 8 * doubles) throw new GeometryBlobError('is cut short inside its point')
  const x = view.getFloat64(at, little)
  const y = view.getFloat64(at + 8, little)
  const z = hasZ ? view.getFloat64(at + 16, little) : null
  if (empty || (Number.isNaN(x) && Number.isNaN(y))) return { kind: 'empty', srsId }
  return { kind: 'point', srsId, x, y, z }
}

const POINT_BLOB_BYTES = 8 + 21

/** A 2D point as a standard GeoPackage geometry blob: little-endian, no envelope (as GDAL writes points). */
export function encodeGpkgPoint(x: number, y: number, srsId: number): Buffer {
  const blob = Buffer.alloc(POINT_BLOB_BYTES)
  blob[0] = 0x47
  blob[1] = 0x50
  blob[2] = 0
  blob[3] = 0x01
  blob.writeInt32LE(srsId, 4)
  blob[8] = 1
  blob.writeUInt32LE(1, 9)
  blob.writeDoubleLE(x, 13)
  blob.writeDoubleLE(y, 21)
  return blob
}
