import type { IncomingMessage, ServerResponse } from 'node:http'
import { ConfigError, formatMessage } from '../core/errors.js'
import { isLoopbackName } from '../core/request-url.js'
import { handleDashboard } from './dashboard.js'
import type { Instance } from '../config/instance.js'
import { sessionOf } from '../harness/session.js'
import { answerThenDrain, PayloadTooLargeError, payloadTooLarge, readBody } from '../forward/body.js'
import { loggedRequestOf, type LoggedRequest } from '../harness/harness-api.js'
import type { RequestRecord } from '../harness/request-log.js'

export const ADMIN_PREFIX = '/__mockyard/'

function isLoopback(address: string | undefined): boolean {
  if (!address) return false
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}


/** The URL of an authority (`host:port`) or origin, or undefined when it does not parse. */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/**
 * Why a request may not use the admin endpoints, or undefined when it may (docs/behaviour.md,
 * "Security"). Unless `admin.allowRemote` is set: loopback clients only; a `Host` that is not a
 * loopback name or address is refused (DNS rebinding: a page of another site whose name now
 * resolves to 127.0.0.1 sends its own name); an `Origin` other than the listener's own loopback
 * origin is refused (another page driving them), and so is `Sec-Fetch-Site: cross-site` or
 * `same-site`. A page served by the listener itself sends its own origin, and is let through.
 */
export function adminRefusal(req: IncomingMessage, allowRemote: boolean, addressed?: string): string | undefined {
  if (allowRemote) return undefined
  if (!isLoopback(req.socket.remoteAddress)) return 'the admin endpoints answer loopback clients only'
  // The host the request addressed: an absolute-form target's own (`GET http://evil.test/__mockyard/…`
  // names evil.test whatever its Host header says), else the Host header.
  const host = addressed !== undefined ? parseUrl(addressed) : req.headers.host === undefined ? undefined : parseUrl(`http://${req.headers.host}/`)
  if (!host || !isLoopbackName(host.hostname)) return 'the admin endpoints answer requests addressed to a loopback name or address only (localhost, 127.0.0.1, [::1]); the request named another host'
  const origin = req.headers.origin
  if (origin !== undefined) {
    const url = parseUrl(origin)
    const port = url && (url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port))
    if (!url || url.protocol !== 'http:' || !isLoopbackName(url.hostname) || port !== req.socket.localPort || url.origin !== origin.toLowerCase().replace(/\/$/, '')) {
      return 'the admin endpoints refuse requests from other web pages (the Origin header is not this server\'s own)'
    }
  }
  const site = req.headers['sec-fetch-site']
  if (site === 'cross-site' || site === 'same-site') return `the admin endpoints refuse requests from other web pages (Sec-Fetch-Site: ${site})`
  return undefined
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' })
  res.end(text)
}

/**
 * The coverage of the `validate` document (docs/behaviour.md, "Traffic checked against a
 * contract"): JSON, or its text form; a 404 saying what to set when `validate` is unset.
 */
function sendCoverage(instance: Instance, res: ServerResponse, text: boolean): void {
  const check = instance.trafficCheck
  if (check === undefined) {
    send(res, 404, { error: 'Not Found', message: formatMessage(`${ADMIN_PREFIX}coverage needs the validate option: start mockyard with --validate <your OpenAPI document> (validate in the config file).`) })
    return
  }
  const coverage = check.coverage()
  if (!text) {
    send(res, 200, coverage)
    return
  }
  const body = coverage.text + '\n'
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' })
  res.end(body)
}

/**
 * A record as `GET /__mockyard/requests` sends it: a request nothing answered (no route, handler
 * or proxy) also carries `matched: false` and its explanation, which the Playwright fixture fails
 * the test with (docs/behaviour.md, "Defaults per surface").
 */
function adminRecordOf(record: RequestRecord): LoggedRequest {
  const logged = loggedRequestOf(record)
  if (record.kind !== undefined || record.matched || record.entry === 'proxy' || record.explanation === undefined) return logged
  return { ...logged, matched: false, explanation: record.explanation }
}

/** The deepest nesting a routes body may have: deeper is refused before anything applies. */
export const MAX_ROUTES_DEPTH = 64

/** Whether a parsed JSON value nests deeper than `max` levels (walked without recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (node === null || typeof node !== 'object') continue
    if (depth > max) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return false
}

/** Reads a request body within `limit` (a `PayloadTooLargeError` past it). */
function readAll(req: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => readBody(req, limit, (error, body) => (error ? reject(error) : resolve(body))))
}

/**
 * The admin endpoints of the listener, under `/__mockyard/`: loopback clients only unless
 * `admin.allowRemote`, no CORS headers, and no other web page can drive them (`adminRefusal`).
 * A request with `x-mockyard-session` acts on that session alone.
 *
 * - `POST /__mockyard/reset`: sequences, overrides and the request log back to the start;
 * - `GET /__mockyard/requests`: `{ requests: [...] }`, oldest first;
 * - `GET /__mockyard/routes`: the routes in force (as loaded, plus overrides);
 * - `GET /__mockyard/coverage`: the `validate` document's operations answered and never answered
 *   (JSON; `?format=text` for the short text a CI summary shows);
 * - `PUT /__mockyard/routes`: a routes.json-shaped body of overrides (they replace what they
 *   answer, never merge: docs/behaviour.md, "Overrides"), validated
 *   whole first (within `limit`, at most 64 levels deep, valid): otherwise nothing changes.
 *
 * `HEAD` answers wherever `GET` does, with the same status and headers and no body.
 */
export async function handleAdmin(instance: Instance, req: IncomingMessage, res: ServerResponse, options: { path: string; limit: number; origin?: string }): Promise<boolean> {
  const url = new URL(options.path, 'http://admin')
  if (!url.pathname.startsWith(ADMIN_PREFIX)) return false
  const action = url.pathname.slice(ADMIN_PREFIX.length).replace(/\/+$/, '')
  const method = (req.method ?? 'GET').toUpperCase()
  const refusal = adminRefusal(req, instance.options.admin?.allowRemote === true, options.origin)
  if (refusal !== undefined) {
    send(res, 403, { error: 'Forbidden', message: formatMessage(`${method} ${url.pathname} refused: ${refusal}. Call them from your test runner on this machine, or set admin: { allowRemote: true } to open them.`) })
    return true
  }
  // Every admin request's body is read within `limit` before anything acts, so that a body over
  // it is a 413 that changes nothing, whichever endpoint it was sent to (docs/behaviour.md,
  // "Errors and limits").
  let bytes: Uint8Array | null
  try {
    bytes = await readAll(req, options.limit)
  } catch (error) {
    if (!(error instanceof PayloadTooLargeError)) {
      // The client went away while sending: nobody to answer.
      res.destroy()
      return true
    }
    if (!res.headersSent) answerThenDrain(req, res, payloadTooLarge(method, url.pathname, error, options.limit))
    return true
  }
  const session = sessionOf(req.headers) || undefined
  // HEAD answers as GET does, without a body (node sends none for HEAD): the `Allow` header of a
  // 405 names it beside GET, the message names the methods to send.
  const allow = (methods: string) => {
    res.setHeader('allow', methods.replace(/\bGET\b/, 'GET, HEAD'))
    send(res, 405, { error: 'Method Not Allowed', message: formatMessage(`${method} ${ADMIN_PREFIX}${action} refused: it answers ${methods} only. Send ${methods.replace(', ', ' or ')} instead.`) })
    return true
  }
  const read = method === 'GET' || method === 'HEAD'
  if (handleDashboard(instance, action, req, res, url)) return true
  switch (action) {
    case 'reset':
      if (method !== 'POST') return allow('POST')
      instance.reset(session)
      send(res, 200, { reset: true, session: session ?? null })
      return true
    case 'requests':
      if (!read) return allow('GET')
      send(res, 200, {
        requests: instance.log.list(session !== undefined ? { session } : {}).map(adminRecordOf),
        // The bound of the log, all sessions together, and what it dropped since it was last reset.
        log: { limit: instance.log.limit, dropped: instance.log.droppedSince(session) },
      })
      return true
    case 'coverage':
      if (!read) return allow('GET')
      sendCoverage(instance, res, url.searchParams.get('format') === 'text')
      return true
    case 'routes':
      if (read) {
        send(res, 200, instance.routes(session))
        return true
      }
      if (method !== 'PUT') return allow('GET, PUT')
      // Validated whole before anything applies: over limit, too deep or invalid changes nothing.
      try {
        let body: unknown
        try {
          body = JSON.parse(new TextDecoder().decode(bytes ?? new Uint8Array()))
        } catch (error) {
          throw new Error(`the routes body does not parse: ${(error as Error).message}`)
        }
        // A string would name a routes file on this machine (useRoutes takes paths): only an object is routes.
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`the routes body is ${body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`}, not an object of routes`)
        if (nestsDeeperThan(body, MAX_ROUTES_DEPTH)) throw new Error(`the routes body nests deeper than ${MAX_ROUTES_DEPTH} levels`)
        instance.useRoutes(body as never, session)
        send(res, 200, instance.routes(session))
      } catch (error) {
        send(res, 400, {
          error: 'Bad Request',
          message: error instanceof ConfigError ? error.message : formatMessage(`${(error as Error).message}. Send a routes.json-shaped JSON object; nothing was changed.`),
          ...(error instanceof ConfigError ? { problems: error.problems } : {}),
        })
      }
      return true
    default:
      send(res, 404, { error: 'Not Found', message: formatMessage(`no admin endpoint ${url.pathname}. There are ${ADMIN_PREFIX}reset, ${ADMIN_PREFIX}requests, ${ADMIN_PREFIX}routes and ${ADMIN_PREFIX}coverage, and the dashboard at ${ADMIN_PREFIX}.`) })
      return true
  }
}
