import type { IncomingMessage, ServerResponse } from 'node:http'
import { apiError } from '../domain/errors.ts'
import { sendError } from '../http-body/json.ts'
import type { Logger } from '../logging/logger.ts'
import type { RequestContext } from '../observability/request-context.ts'
import { type Asset, asset as compressed, type ExplorerAssets } from './assets.ts'
import type { ExplorerPageData } from './page-data.ts'
import { EXPLORER_CSP, renderExplorerPage } from './page-html.ts'

export const EXPLORER_PAGE_PATHS = new Set(['/', '/explorer', '/explorer/'])
const ASSET_PREFIX = '/explorer/assets/'

/** Does this path belong to the explorer (its page or its assets)? */
export function isExplorerPath(pathname: string): boolean {
  return EXPLORER_PAGE_PATHS.has(pathname) || pathname.startsWith(ASSET_PREFIX)
}

export interface ExplorerDeps {
  assets: () => Promise<ExplorerAssets>
  page: ExplorerPageData
  logger: Logger
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** The encoding to send: brotli, then gzip, when the client accepts it (q=0 refuses). */
function chooseEncoding(accept: string | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Set(
    (accept ?? '')
      .split(',')
      .map((entry) => entry.trim().split(';'))
      .filter(([, q]) => !q || Number(q.trim().replace(/^q=/, '')) > 0)
      .map(([coding]) => coding?.trim().toLowerCase()),
  )
  if (accepted.has('br')) return 'br'
  if (accepted.has('gzip')) return 'gzip'
  return undefined
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  asset: Asset,
  headers: Record<string, string>,
): void {
  const common = { ...SECURITY_HEADERS, ...headers, etag: asset.etag, vary: 'accept-encoding' }
  if (req.headers['if-none-match'] === asset.etag) return void res.writeHead(304, common).end()
  const encoding = chooseEncoding(req.headers['accept-encoding'])
  const body = encoding === 'br' ? asset.brotli : encoding === 'gzip' ? asset.gzip : asset.body
  res.writeHead(200, {
    ...common,
    'content-type': asset.contentType,
    'content-length': body.length,
    ...(encoding ? { 'content-encoding': encoding } : {}),
  })
  res.end(req.method === 'HEAD' ? undefined : body)
}

/**
 * Serves the explorer: the page at / and /explorer (never cached, so a deploy shows at once) and its
 * bundle under /explorer/assets/ (content-hashed names, cached for a year).
 */
export function createExplorerHandler(deps: ExplorerDeps) {
  let page: { assets: ExplorerAssets; html: Asset } | undefined
  async function loadPage() {
    const assets = await deps.assets()
    if (page?.assets !== assets)
      page = { assets, html: compressed('index.html', Buffer.from(renderExplorerPage(assets, deps.page))) }
    return page
  }

  return async function handleExplorer(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    request: RequestContext,
  ): Promise<void> {
    const ids = { 'request-id': request.requestId }
    request.route = url.pathname.startsWith(ASSET_PREFIX) ? '/explorer/assets' : '/explorer'
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      request.errorCode = 'method_not_allowed'
      return sendError(
        res,
        apiError('method_not_allowed', { method: req.method ?? '', path: url.pathname, allow: 'GET, HEAD' }),
        {
          ...ids,
          allow: 'GET, HEAD',
        },
      )
    }
    let loaded: Awaited<ReturnType<typeof loadPage>>
    try {
      loaded = await loadPage()
    } catch (error) {
      deps.logger.error(
        { err: error, requestId: request.requestId },
        'explorer page unavailable: its bundle is neither built (npm run build) nor buildable here',
      )
      request.errorCode = 'internal_error'
      return sendError(res, apiError('internal_error'), ids)
    }
    if (EXPLORER_PAGE_PATHS.has(url.pathname))
      return send(req, res, loaded.html, {
        ...ids,
        'cache-control': 'no-cache',
        'content-security-policy': EXPLORER_CSP,
        'x-frame-options': 'DENY',
      })
    const asset = loaded.assets.byName.get(url.pathname.slice(ASSET_PREFIX.length))
    if (!asset) {
      request.errorCode = 'not_found'
      return sendError(res, apiError('not_found', { path: url.pathname }), ids)
    }
    send(req, res, asset, { ...ids, 'cache-control': 'public, max-age=31536000, immutable' })
  }
}
