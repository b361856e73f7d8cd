import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { formatMessage } from '../core/errors.js'
import type { Instance } from '../config/instance.js'
import { openEventStream } from './dashboard-events.js'
import { dashboardRoutes, dashboardState } from './dashboard-snapshot.js'

export { dashboardRoutes, dashboardState, summarize, type RequestSummary } from './dashboard-snapshot.js'
export { closeEventStreams } from './dashboard-events.js'

/**
 * The page's files, shipped in the package's `static/dashboard/` folder (two levels up from
 * both `src/admin/` and `dist/chunks/`): plain HTML, CSS and JavaScript, no build step.
 */
const STATIC = new URL('../../static/dashboard/', import.meta.url)

const ASSETS: Record<string, { file: string; type: string }> = {
  '': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'dashboard/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'dashboard/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
}

/** The page may load its own files and call its own origin, nothing else (no CDN, no fonts). */
const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
}

/**
 * Where a request for the page at a URL other than `/__mockyard/` (or `/__mockyard/index.html`)
 * is sent, or undefined when it is at one of them. The page names its files and endpoints
 * relative to itself (`dashboard/app.js`, `dashboard/state`, `reset`), so served at
 * `/__mockyard/dashboard/` it would ask for `/__mockyard/dashboard/dashboard/app.js` and show
 * nothing: `/__mockyard/dashboard`, `/__mockyard/dashboard/`, `/__mockyard/index.html/` and
 * `/__mockyard//` are redirected to `/__mockyard/` instead, the query kept.
 */
function pageRedirect(action: string, url: URL): string | undefined {
  if (action !== '' && action !== 'index.html' && action !== 'dashboard') return undefined
  // The path after `/__mockyard/` as sent (admin.ts removed its trailing slashes from `action`).
  const after = url.pathname.slice('/__mockyard/'.length)
  if (after === '' || after === 'index.html') return undefined
  return '/__mockyard/' + url.search
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' })
  res.end(text)
}

/**
 * Answers the dashboard's requests (docs/behaviour.md, "The dashboard"), after the admin checks
 * have passed: `action` is the path after `/__mockyard/`. Returns false for any other action.
 *
 * - `GET /__mockyard/`: the page; `GET /__mockyard/dashboard/app.js|app.css`: its files;
 * - `GET /__mockyard/dashboard/state`: options, files, reload status, the request log (summaries);
 * - `GET /__mockyard/dashboard/requests/:id`: one record in full;
 * - `GET /__mockyard/dashboard/routes?session=S`: the route table that session sees;
 * - `GET /__mockyard/dashboard/events`: the live feed (server-sent events).
 *
 * `HEAD` answers each as `GET` would, without a body (the event stream: its headers, then the
 * end). `url` is the request's URL; `action` its path after the prefix, trailing slashes removed.
 */
export function handleDashboard(instance: Instance, action: string, req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  if (action !== '' && action !== 'index.html' && action !== 'dashboard' && !action.startsWith('dashboard/')) return false
  const method = (req.method ?? 'GET').toUpperCase()
  if (method !== 'GET' && method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD')
    json(res, 405, { error: 'Method Not Allowed', message: formatMessage(`${method} /__mockyard/${action} refused: it answers GET and HEAD only. Send GET instead.`) })
    return true
  }
  const location = pageRedirect(action, url)
  if (location !== undefined) {
    res.writeHead(302, { location, 'content-length': 0, 'cache-control': 'no-store' })
    res.end()
    return true
  }
  const asset = ASSETS[action]
  if (asset) {
    // Read per request (a page load asks for three small files): no module cache to go stale.
    const bytes = readFileSync(new URL(asset.file, STATIC))
    res.writeHead(200, { 'content-type': asset.type, 'content-length': bytes.byteLength, ...PAGE_HEADERS })
    res.end(method === 'HEAD' ? undefined : bytes)
    return true
  }
  const rest = action.slice('dashboard/'.length)
  if (rest === 'state') {
    json(res, 200, dashboardState(instance))
    return true
  }
  if (rest === 'routes') {
    json(res, 200, dashboardRoutes(instance, url.searchParams.get('session') ?? ''))
    return true
  }
  if (rest === 'events') {
    openEventStream(instance, req, res, method === 'HEAD')
    return true
  }
  const one = /^requests\/(\d+)$/.exec(rest)
  if (one) {
    const record = instance.log.get(Number(one[1]))
    if (record) json(res, 200, record)
    else json(res, 404, { error: 'Not Found', message: formatMessage(`the request log holds no request ${one[1]}: it was reset, or pushed out by newer ones. Reload the dashboard.`) })
    return true
  }
  json(res, 404, { error: 'Not Found', message: formatMessage(`no dashboard endpoint /__mockyard/${action}. Open /__mockyard/ for the dashboard.`) })
  return true
}
