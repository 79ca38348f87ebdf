import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Debian's chromium package; .ci/run installs it. A missing browser fails the test, it never skips. */
export const CHROMIUM = '/usr/bin/chromium'

/** Headless, and nothing of Chromium's own that would reach for the (closed) network. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (see .ci/run)`)
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}
