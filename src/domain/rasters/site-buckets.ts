/**
 * Sites sorted into the cells of a longitude × latitude grid, to list those inside a small box without
 * looking at the others: the candidates of a block of pixels (pixel-sites.ts).
 */
export class SiteBuckets {
  private readonly west: number
  private readonly south: number
  private readonly columns: number
  private readonly rows: number
  /** Where each cell's sites start in `order` (cells row by row, one more entry for the end). */
  private readonly starts: Int32Array
  /** Site positions, cell by cell. */
  private readonly order: Int32Array

  constructor(
    latitudes: Float64Array,
    longitudes: Float64Array,
    private readonly cellDegrees = 0.05,
  ) {
    const count = latitudes.length
    let west = 180
    let south = 90
    let east = -180
    let north = -90
    for (let i = 0; i < count; i++) {
      west = Math.min(west, longitudes[i] as number)
      east = Math.max(east, longitudes[i] as number)
      south = Math.min(south, latitudes[i] as number)
      north = Math.max(north, latitudes[i] as number)
    }
    this.west = count > 0 ? west : 0
    this.south = count > 0 ? south : 0
    this.columns = count > 0 ? Math.floor((east - west) / cellDegrees) + 1 : 1
    this.rows = count > 0 ? Math.floor((north - south) / cellDegrees) + 1 : 1
    const cellOf = new Int32Array(count)
    const starts = new Int32Array(this.columns * this.rows + 1)
    for (let i = 0; i < count; i++) {
      const cell = this.cell(this.row(latitudes[i] as number), this.column(longitudes[i] as number))
      cellOf[i] = cell
      starts[cell + 1] = (starts[cell + 1] as number) + 1
    }
    for (let cell = 0; cell < this.columns * this.rows; cell++)
      starts[cell + 1] = (starts[cell + 1] as number) + (starts[cell] as number)
    const filled = starts.slice(0, -1)
    const order = new Int32Array(count)
    for (let i = 0; i < count; i++) {
      const cell = cellOf[i] as number
      order[filled[cell] as number] = i
      filled[cell] = (filled[cell] as number) + 1
    }
    this.starts = starts
    this.order = order
  }

  /** Appends to `out` the position of every site whose cell overlaps the box (a superset of those inside it). */
  collect(south: number, west: number, north: number, east: number, out: number[]): void {
    if (this.order.length === 0) return
    const firstRow = Math.max(0, this.row(south))
    const lastRow = Math.min(this.rows - 1, this.row(north))
    const firstColumn = Math.max(0, this.column(west))
    const lastColumn = Math.min(this.columns - 1, this.column(east))
    for (let row = firstRow; row <= lastRow; row++) {
      const end = this.starts[this.cell(row, lastColumn) + 1] as number
      for (let at = this.starts[this.cell(row, firstColumn)] as number; at < end; at++)
        out.push(this.order[at] as number)
    }
  }

  private row(latitude: number): number {
    return Math.floor((latitude - this.south) / this.cellDegrees)
  }

  private column(longitude: number): number {
    return Math.floor((longitude - this.west) / this.cellDegrees)
  }

  private cell(row: number, column: number): number {
    return row * this.columns + column
  }
}
