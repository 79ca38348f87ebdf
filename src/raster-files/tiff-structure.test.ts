import { describe, expect, it } from 'vitest'
import {
  asciiTag,
  doubleTag,
  ifdLength,
  longTag,
  shortTag,
  writeIfd,
  writeTiffHeader,
} from './tiff-structure.ts'

describe('TIFF structure', () => {
  it('writes a little-endian classic header', () => {
    const file = Buffer.alloc(8)
    writeTiffHeader(file, 0x01020304)
    expect([...file]).toEqual([0x49, 0x49, 42, 0, 4, 3, 2, 1])
  })

  it('writes entries in tag order, short values inline and longer ones after the IFD in the same order', () => {
    const tags = [
      asciiTag(42113, '-9999'), // 6 bytes: out of line
      shortTag(258, [32]), // inline
      doubleTag(33550, [0.5, 0.25, 0]), // 24 bytes: out of line
      longTag(324, [7, 8]), // 8 bytes: out of line
      asciiTag(305, 'ab'), // 3 bytes: inline
    ]
    const length = ifdLength(tags)
    expect(length).toBe(2 + 5 * 12 + 4 + 6 + 24 + 8)
    const file = Buffer.alloc(10 + length)
    writeIfd(file, 10, tags, 1234)
    expect(file.readUInt16LE(10)).toBe(5)
    const entry = (index: number) => {
      const at = 12 + 12 * index
      return [
        file.readUInt16LE(at),
        file.readUInt16LE(at + 2),
        file.readUInt32LE(at + 4),
        file.readUInt32LE(at + 8),
      ]
    }
    const valuesAt = 10 + 2 + 60 + 4
    expect(entry(0)).toEqual([258, 3, 1, 32])
    expect(entry(1)).toEqual([305, 2, 3, 0x00_62_61])
    expect(entry(2)).toEqual([324, 4, 2, valuesAt])
    expect(entry(3)).toEqual([33550, 12, 3, valuesAt + 8])
    expect(entry(4)).toEqual([42113, 2, 6, valuesAt + 32])
    expect(file.readUInt32LE(12 + 60)).toBe(1234)
    expect(file.readUInt32LE(valuesAt + 4)).toBe(8)
    expect(file.readDoubleLE(valuesAt + 16)).toBe(0.25)
    expect(file.toString('latin1', valuesAt + 32, valuesAt + 38)).toBe('-9999\0')
  })

  it('pads an odd-length out-of-line value so the next starts on an even offset', () => {
    const tags = [asciiTag(270, 'abcd'), asciiTag(271, 'efgh')]
    expect(ifdLength(tags)).toBe(2 + 24 + 4 + 6 + 6)
    const file = Buffer.alloc(ifdLength(tags))
    writeIfd(file, 0, tags, 0)
    expect(file.readUInt32LE(2 + 12 + 8)).toBe(36)
  })

  it('refuses a tag given twice', () => {
    const tags = [shortTag(258, [32]), shortTag(258, [16])]
    expect(() => writeIfd(Buffer.alloc(ifdLength(tags)), 0, tags, 0)).toThrow(/tag 258 is given twice/)
  })
})
