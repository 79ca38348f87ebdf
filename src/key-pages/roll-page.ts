import type { RollLinkState } from '../domain/ports/key-mailbox.ts'

/** The page's own style only: no script, no other source, no framing, forms posted back here alone. */
export const ROLL_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;color:#1f2a1f;background:#f4f6f1;margin:0}
main{max-width:34rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #d5dccf;border-radius:8px}
h1{font-size:1.35rem;margin:0 0 1rem;color:#2f5d34}
p{margin:.75rem 0}
button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:6px;background:#2f5d34;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #9bc49f;outline-offset:2px}
.small{font-size:.875rem;color:#4d5a4d}`

const TITLE = 'Survival Prediction API'

function page(heading: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${heading} · ${TITLE}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${heading}</h1>
${body}
</main>
</body>
</html>
`
}

const ASK_AGAIN =
  '<p class="small">To get a new link, ask for a key for your address again (<code>POST /keys</code>, or ' +
  '“Get a free spore key” in the <a href="/">explorer</a>): an address that holds a key is sent a fresh link.</p>'

/** The page a roll link opens: it asks before anything changes, so a mail scanner that opens links rolls nothing. */
export function confirmRollPage(token: string): string {
  return page(
    'Roll your API key',
    `<p>This link rolls the API key of the address it was sent to. When you confirm, its replacement (same
tier, quota and usage history) is sent to that address by email, and the key stops working as it goes.</p>
<form method="post" action="/keys/roll">
<input type="hidden" name="token" value="${token}">
<button type="submit">Roll my key</button>
</form>
<p class="small">Did not ask for this? Close this page: nothing changes.</p>`,
  )
}

export function rolledPage(): string {
  return page(
    'Your new key is on its way',
    `<p>The replacement key is being sent to your address. The old key stops working as soon as it is sent.</p>
<p class="small">The key is never shown on a page: it is in the email alone. Nothing to do here; you may close this page.</p>`,
  )
}

/** Why a link cannot roll a key, for each state but `valid`. */
export function unusableLinkPage(state: Exclude<RollLinkState, 'valid'>): string {
  if (state === 'used')
    return page(
      'This link was already used',
      `<p>Each link rolls a key once, and this one has.</p>${ASK_AGAIN}`,
    )
  if (state === 'expired')
    return page(
      'This link has expired',
      `<p>A roll link works for one hour after it is sent.</p>${ASK_AGAIN}`,
    )
  return page(
    'This link is not one we sent',
    `<p>Check that the whole link was copied from the email.</p>${ASK_AGAIN}`,
  )
}
