import { busy, element } from './dom.ts'
import { ogcItemsUrl, rasterFileName, rasterPath } from './gis-links.ts'
import type { PanelHost } from './host.ts'

/**
 * The surface on screen for a GIS: "Download GeoTIFF" saves the survival raster of the view's species,
 * method, horizon, climate and model version; "Copy OGC URL" copies the map's hexagons as an OGC API –
 * Features items URL, to add as a layer in QGIS (the key goes in the GIS's own credentials).
 */
export class GisActions {
  private readonly status = element('gis-status')

  constructor(private readonly host: PanelHost) {
    element('download-geotiff').addEventListener('click', () => void this.download())
    element('copy-ogc-url').addEventListener('click', () => void this.copy())
  }

  private say(message: string): void {
    this.status.textContent = message
  }

  private async download(): Promise<void> {
    if (!this.host.hasKey()) return this.say('Enter your API key above to download the surface.')
    const view = this.host.view()
    const button = element<HTMLButtonElement>('download-geotiff')
    button.disabled = true
    busy(button, true)
    this.say('Making the GeoTIFF…')
    try {
      const raster = await this.host.api.survivalRaster(rasterPath(view))
      const link = document.createElement('a')
      link.href = URL.createObjectURL(raster)
      link.download = rasterFileName(view)
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000)
      this.say(`Saved ${link.download} (${(raster.size / 1e6).toFixed(1)} MB).`)
    } catch (error) {
      this.say(this.host.messageFor(error))
    } finally {
      button.disabled = false
      busy(button, false)
    }
  }

  private async copy(): Promise<void> {
    const url = ogcItemsUrl(window.location.origin, this.host.view())
    try {
      await navigator.clipboard.writeText(url)
      this.say('Copied the OGC API – Features URL of this map: add it in QGIS with your key as the password.')
    } catch {
      // No clipboard (an insecure origin, or permission refused): the URL to copy by hand.
      this.say(url)
    }
  }
}
