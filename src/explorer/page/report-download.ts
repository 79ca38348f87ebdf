import { busy, element } from './dom.ts'
import type { PanelHost } from './host.ts'
import { browserLanguage, type ReportAsk } from './report-bodies.ts'

/**
 * A tab's "Download PDF" button: the PDF report of the answer the tab shows (`ask`, null while there is
 * none), in the browser's language and its region's paper, saved as `<report>-<what>.pdf`. What
 * happens is said in the status beside the button.
 */
export class ReportDownload {
  private readonly button: HTMLButtonElement
  private readonly status: HTMLElement

  constructor(
    private readonly host: PanelHost,
    buttonId: string,
    statusId: string,
    private readonly ask: () => { report: ReportAsk; label: string } | null,
  ) {
    this.button = element<HTMLButtonElement>(buttonId)
    this.status = element(statusId)
    this.button.addEventListener('click', () => void this.download())
  }

  /** Enabled while the tab shows an answer. */
  reflect(): void {
    this.button.disabled = this.ask() === null
  }

  private async download(): Promise<void> {
    const asked = this.ask()
    if (!asked) return
    this.button.disabled = true
    busy(this.button, true)
    this.status.textContent = 'Making the PDF…'
    try {
      const language = browserLanguage(navigator.languages, navigator.language)
      const { pdf, fileName } = await this.host.api.report(asked.report.path, asked.report.body, language)
      const name = fileName.replace(/\.pdf$/, `-${asked.label}.pdf`)
      const link = document.createElement('a')
      link.href = URL.createObjectURL(pdf)
      link.download = name
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000)
      this.status.textContent = `Saved ${name} (${Math.max(1, Math.round(pdf.size / 1000))} kB).`
    } catch (error) {
      this.status.textContent = this.host.messageFor(error)
    } finally {
      busy(this.button, false)
      this.reflect()
    }
  }
}
