import { ExplorerApi, ExplorerApiError, type Quota } from './api.ts'
import { busy, element } from './dom.ts'

/** The key lives in this tab's sessionStorage only: never in the URL, never in a cookie. */
const KEY_STORAGE = 'survival-explorer.api-key'

export interface KeyHost {
  /** The key the server wrote into the page in demo mode: used while this tab has none of its own. */
  demoKey: string | null
  /** A key was entered or issued: the page loads what it shows with it. */
  keyChanged(): void
}

/**
 * The page's bar: the API key, a free spore key for an email address, and the requests left today.
 * It makes the page's API client, which sends the key and reports the quota of every answer.
 */
export class KeyPanel {
  readonly api: ExplorerApi

  constructor(private readonly host: KeyHost) {
    this.api = new ExplorerApi(
      () => this.key,
      (quota) => this.showQuota(quota),
    )
    if (!sessionStorage.getItem(KEY_STORAGE) && host.demoKey)
      sessionStorage.setItem(KEY_STORAGE, host.demoKey)
    const stored = sessionStorage.getItem(KEY_STORAGE)
    if (stored) element<HTMLInputElement>('api-key').value = stored
    element<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const key = element<HTMLInputElement>('api-key').value.trim()
      if (key) sessionStorage.setItem(KEY_STORAGE, key)
      else sessionStorage.removeItem(KEY_STORAGE)
      this.host.keyChanged()
    })
    element<HTMLFormElement>('spore-form').addEventListener('submit', (event) => {
      event.preventDefault()
      void this.requestSporeKey()
    })
  }

  private get key(): string {
    return sessionStorage.getItem(KEY_STORAGE) ?? ''
  }

  get hasKey(): boolean {
    return this.key !== ''
  }

  private async requestSporeKey(): Promise<void> {
    const result = element('spore-result')
    const form = element('spore-form')
    busy(form, true)
    try {
      const email = element<HTMLInputElement>('spore-email').value.trim()
      await this.api.requestSporeKey(email)
      // The same words whatever the address: whether it holds a key is for its mailbox alone to know.
      result.textContent = `Check your email: a message to ${email} brings your key (or, if the address already holds one, a link to roll it). Paste the key above when it arrives.`
    } catch (error) {
      result.textContent =
        error instanceof ExplorerApiError ? error.message : 'The request could not be sent.'
    } finally {
      busy(form, false)
    }
  }

  private showQuota(quota: Quota): void {
    element('quota').textContent =
      quota.limit === null
        ? 'Unlimited requests'
        : `Requests left today: ${(quota.remaining ?? 0).toLocaleString('en-US')} of ${quota.limit.toLocaleString('en-US')}`
  }
}
