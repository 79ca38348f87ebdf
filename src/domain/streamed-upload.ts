/**
 * A file streamed in (a job, a survey upload), already split into records by its format: CSV rows of
 * cells (the header first), NDJSON lines, or the features of a GeoJSON FeatureCollection with the query
 * string's defaults. It is read once, a record at a time, and never held whole.
 */
export type StreamedUpload =
  | { format: 'csv'; records: AsyncIterable<string[]> }
  | { format: 'ndjson'; records: AsyncIterable<string> }
  | { format: 'geojson'; records: AsyncIterable<unknown>; defaults: Readonly<Record<string, string>> }
