/*
 * GDAL's private TIFF tags: GDAL_METADATA (the dataset's metadata items as XML) and GDAL_NODATA (the
 * nodata value as text). Both are ASCII tags.
 */

export const GDAL_METADATA_TAG = 42112
export const GDAL_NODATA_TAG = 42113

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => XML_ESCAPES[character] as string)
}

/**
 * The GDAL_METADATA document for `items`, sorted by name so that the same items give the same bytes
 * whatever order they were set in; null when there are none (the tag is then left out).
 *
 * A value is escaped twice, as GDAL's GTiff driver writes it: GDAL unescapes the Item's text once
 * more after parsing the XML, so a value escaped once would lose its `&amp;`s and `&lt;`s.
 */
export function gdalMetadataXml(items: Record<string, string> | undefined): string | null {
  const names = Object.keys(items ?? {}).sort()
  if (names.length === 0) return null
  const lines = names.map(
    (name) =>
      `  <Item name="${escapeXml(name)}">${escapeXml(escapeXml((items as Record<string, string>)[name] as string))}</Item>`,
  )
  return ['<GDALMetadata>', ...lines, '</GDALMetadata>'].join('\n')
}

/** GDAL_NODATA: the shortest decimal that reads back as `nodata`, or `nan`. */
export function gdalNodataText(nodata: number): string {
  return Number.isNaN(nodata) ? 'nan' : String(nodata)
}
