import { describe, expect, it } from 'vitest'
import { gdalMetadataXml, gdalNodataText } from './gdal-tags.ts'

describe('GDAL_METADATA', () => {
  it('lists the items sorted by name, their text escaped twice as GDAL writes it', () => {
    expect(gdalMetadataXml({ species: 'Pinus <ponderosa> & "friends"', method: 'kaplan-meier' })).toBe(
      '<GDALMetadata>\n' +
        '  <Item name="method">kaplan-meier</Item>\n' +
        '  <Item name="species">Pinus &amp;lt;ponderosa&amp;gt; &amp;amp; &amp;quot;friends&amp;quot;</Item>\n' +
        '</GDALMetadata>',
    )
  })

  it('is left out when there are no items', () => {
    expect(gdalMetadataXml(undefined)).toBeNull()
    expect(gdalMetadataXml({})).toBeNull()
  })
})

describe('GDAL_NODATA', () => {
  it('is the shortest decimal that reads back as the value, or nan', () => {
    expect(gdalNodataText(-9999)).toBe('-9999')
    expect(gdalNodataText(Math.fround(0.1))).toBe('0.10000000149011612')
    expect(gdalNodataText(-3.4028234663852886e38)).toBe('-3.4028234663852886e+38')
    expect(gdalNodataText(Number.NaN)).toBe('nan')
  })
})
