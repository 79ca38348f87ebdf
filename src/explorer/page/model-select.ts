import type { ExplorerApi } from './api.ts'
import { element } from './dom.ts'
import { dateOf } from './format.ts'
import {
  ExplorerModelsDocument,
  type ExplorerModelVersionFragment,
  ExplorerPublicModelDocument,
} from './generated/operations.ts'

/** A version the selector lists: what it is, where it comes from, whether it is the default. */
export type ModelVersion = ExplorerModelVersionFragment

export interface ModelSelectHost {
  api: ExplorerApi
  hasKey(): boolean
  /** The version the URL names; null: none, the account's default answers. */
  chosen(): string | null
  /** A version was chosen in the selector (null: the account's default). */
  choose(version: string | null): void
  messageFor(error: unknown): string
}

/**
 * How the selector lists a version, under its kind's group: "0.2+cal.3f9a1c2e — 2026-05-01, default"
 * (a calibration, with the day it was made), "0.2 — base".
 */
export function versionLabel(version: ModelVersion): string {
  const what = version.kind === 'CALIBRATED' ? dateOf(version.createdAt) : 'base'
  return `${version.version} — ${what}${version.isDefault ? ', default' : ''}`
}

/** The selector's groups, by kind: the account's calibrations first, as `models` lists them. */
const GROUPS = [
  ['CALIBRATED', 'Calibrated on your surveys'],
  ['BASE', 'Base versions'],
] as const

/** What the note under the selector says of the version answers come from. */
export function versionNote(version: ModelVersion, named: boolean): string {
  const what =
    version.kind === 'CALIBRATED'
      ? `${version.version}: calibrated on this account’s surveys from ${version.parent ?? 'its base version'}, created ${dateOf(version.createdAt, true)}; uncertainty terms ${version.uncertainty.status.replaceAll('_', ' ')}.`
      : `${version.version}: a base version (${version.codename}), judgement values (see the model card).`
  if (!named) return `The account’s default answers: ${what}`
  return version.isDefault ? `${what} It is also the account’s default.` : what
}

/**
 * The model-version selector among the controls: the versions this key's account may answer with
 * (`models`; without a key, the public current version alone), each with its kind, the default marked
 * and a calibrated one's date. Its choice lives in the URL (`model`); the note under it says what
 * the version answers come from is, or that the key cannot use the one the URL names.
 */
export class ModelSelect {
  private versions: ModelVersion[] = []
  /** Whether `versions` are the account's (read with a key). */
  private keyed = false
  private failed: string | null = null
  private loading: Promise<ModelVersion[]> = Promise.resolve([])
  /** Each load's number: an answer that arrives after a newer question is dropped. */
  private asked = 0

  constructor(private readonly host: ModelSelectHost) {
    const select = element<HTMLSelectElement>('model-choice')
    select.addEventListener('change', () => host.choose(select.value === '' ? null : select.value))
    this.reflect()
  }

  /** Reads the versions again (a key entered, a version made or made the default). */
  load(): Promise<ModelVersion[]> {
    const asked = ++this.asked
    const keyed = this.host.hasKey()
    this.loading = (async () => {
      try {
        const versions = keyed
          ? (await this.host.api.query(ExplorerModelsDocument, {})).data.models
          : [(await this.host.api.query(ExplorerPublicModelDocument, {})).data.model]
        if (asked === this.asked) {
          this.versions = versions
          this.keyed = keyed
          this.failed = null
        }
      } catch (error) {
        if (asked === this.asked) this.failed = this.host.messageFor(error)
      }
      if (asked === this.asked) this.reflect()
      return this.versions
    })()
    return this.loading
  }

  /** The versions once the last load has answered (those read before, if it failed). */
  ready(): Promise<ModelVersion[]> {
    return this.loading
  }

  find(version: string): ModelVersion | undefined {
    return this.versions.find((v) => v.version === version)
  }

  /** The version answers come from: the one chosen, else the account's default; null when unknown. */
  answering(): ModelVersion | null {
    const chosen = this.host.chosen()
    return chosen === null ? (this.versions.find((v) => v.isDefault) ?? null) : (this.find(chosen) ?? null)
  }

  /** Puts the versions and the URL's choice into the selector, and says what it is. */
  reflect(): void {
    const select = element<HTMLSelectElement>('model-choice')
    const note = element('model-choice-note')
    const chosen = this.host.chosen()
    const fallback = this.versions.find((v) => v.isDefault)
    const options: HTMLElement[] = [
      new Option(
        this.keyed
          ? `Account default${fallback ? ` (${fallback.version})` : ''}`
          : `Current version${fallback ? ` (${fallback.version})` : ''}`,
        '',
      ),
    ]
    for (const [kind, label] of GROUPS) {
      const versions = this.versions.filter((v) => v.kind === kind)
      if (versions.length === 0) continue
      const group = document.createElement('optgroup')
      group.label = label
      group.append(...versions.map((v) => new Option(versionLabel(v), v.version)))
      options.push(group)
    }
    const unknown = chosen !== null && !this.find(chosen)
    if (unknown)
      options.push(
        new Option(
          `${chosen} — ${this.keyed ? 'not available to this key' : 'enter a key to use it'}`,
          chosen,
        ),
      )
    select.replaceChildren(...options)
    select.value = chosen ?? ''
    const answering = this.answering()
    note.dataset.kind = unknown && this.keyed ? 'warning' : (answering?.kind.toLowerCase() ?? 'unknown')
    if (this.failed) note.textContent = `The model versions could not be read: ${this.failed}`
    else if (unknown && this.keyed)
      note.textContent = `This key’s account cannot use ${chosen}: every answer is refused until you choose one of its versions.`
    else if (unknown)
      note.textContent = `The link names ${chosen}: enter the API key of the account it belongs to.`
    else if (answering) note.textContent = versionNote(answering, chosen !== null)
    else note.textContent = ''
  }
}
