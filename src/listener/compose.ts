/**
 * The listener composition: what the HTTP listener and the middleware put around the wire
 * converter (node-handler.ts). The listener: the admin endpoints and the dashboard before the
 * body is read; for a request no route answers, the proxy, then `GET /` (the package info), then
 * the explained 404. The middleware: the proxy, then `next()`, then the 404 (without a `next`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ADMIN_PREFIX, handleAdmin } from '../admin/admin.js'
import type { Instance } from '../config/instance.js'
import { createNodeHandler, logLine, writeMockResponse, type UnmatchedStep } from './node-handler.js'
import { notFoundResponse } from './not-found.js'
import { errorResponse } from '../core/build-response.js'
import { formatMessage } from '../core/errors.js'
import { proxyUnmatched } from './proxy.js'
import { requestUrl } from '../core/request-url.js'
import { sessionOf } from '../harness/session.js'

/** A request handler over node's request and response; the middleware's takes `next`. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void

/** Under the `proxy` option, the request goes to the real back end (docs/behaviour.md, "The `proxy` option"). */
const proxy =
  (instance: Instance): UnmatchedStep =>
  ({ req, res, bytes, outcome, head }) => {
    if (!instance.options.proxy) return false
    proxyUnmatched(instance, req, res, bytes, outcome.settle, head)
    return true
  }

/**
 * The middleware hands the request on; it is recorded as answered by no one (status 0). What the
 * handler after it throws (a bare `node:http` app calling `next` inline) is that handler's
 * failure, said so: a 500 naming it, the stack on the log, and the server keeps serving.
 */
const fallThrough =
  (instance: Instance): UnmatchedStep =>
  ({ res, method, path, outcome, finish, next }) => {
    if (!next) return false
    outcome.settle({ status: 0 })
    try {
      next()
    } catch (error) {
      instance.logger.error(formatMessage(`${method} ${path}: the handler after mockyard's middleware (its next()) threw: ${(error as Error)?.stack ?? String(error)}`))
      if (res.headersSent) res.destroy()
      else {
        const message = String((error as Error)?.message ?? error).replace(/\.$/, '')
        writeMockResponse(res, finish(errorResponse(500, 'Internal Server Error', `${method} ${path} failed in the handler after mockyard's middleware (its next()), not in mockyard: ${message}. The stack is in the server's log`)), false)
      }
    }
    return true
  }

/** `GET /` answers the package's name, description and version, logged and recorded like any answer (docs/behaviour.md, "Options"). */
const packageInfo =
  (instance: Instance, info: () => Record<string, unknown>): UnmatchedStep =>
  ({ res, method, path, outcome, finish, head }) => {
    if ((method !== 'GET' && method !== 'HEAD') || (path !== '/' && !path.startsWith('/?'))) return false
    const response = finish({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(info()) })
    const record = outcome.settle({ status: 200, responseHeaders: response.headers })
    writeMockResponse(res, response, head)
    logLine(instance, method, path, 200, '/ (package info)', record.durationMs)
    return true
  }

/** The explained 404, warned on the log and negotiated by Accept (not-found.ts). */
const notFound =
  (instance: Instance): UnmatchedStep =>
  ({ req, res, method, url, head, outcome, finish }) => {
    const explanation = outcome.explanation()
    instance.logger.warn(explanation)
    const response = finish(notFoundResponse(explanation, req.headers.accept ?? null, method, url))
    outcome.settle({ status: 404, responseHeaders: response.headers })
    writeMockResponse(res, response, head)
    return true
  }

/** The admin prefix without its closing slash (`/__mockyard`). */
const ADMIN_ROOT = ADMIN_PREFIX.slice(0, -1)

/** The HTTP listener's handler: admin endpoints and dashboard, then the pipeline; unmatched: proxy, `GET /`, 404. */
export function listenerHandler(instance: Instance, options: { limit: number; rootInfo: () => Record<string, unknown> }): NodeHandler {
  const { limit } = options
  return createNodeHandler(instance, {
    limit,
    before: (req, res, path, origin) => {
      // One check for every request; `/__mockyard` without its slash is the dashboard too
      // (redirected to `/__mockyard/`), not a route to add.
      if (!path.startsWith(ADMIN_ROOT)) return false
      const admin = path.startsWith(ADMIN_PREFIX) ? path : path === ADMIN_ROOT || path[ADMIN_ROOT.length] === '?' ? `${ADMIN_PREFIX}dashboard${path.slice(ADMIN_ROOT.length)}` : undefined
      return admin !== undefined && handleAdmin(instance, req, res, { path: admin, limit, origin })
    },
    unmatched: [proxy(instance), packageInfo(instance, options.rootInfo), notFound(instance)],
  })
}

/** A request target's path as the engine reads it (dot segments removed, no query); `undefined` when it does not read. */
function pathOnly(path: string): string | undefined {
  try {
    return requestUrl(`http://localhost${path === '*' ? '/' : path}`).pathname
  } catch {
    return undefined
  }
}

/** Whether the middleware reads a request's body: under `proxy`, or when something could answer it. */
function readsBody(instance: Instance, req: IncomingMessage, path: string): boolean {
  if (instance.options.proxy !== undefined) return true
  const pathname = pathOnly(path)
  return pathname === undefined || instance.mayAnswer(pathname, sessionOf(req.headers))
}

/** The middleware's handler: the pipeline; unmatched: proxy, `next()`, or a 404 when there is no `next`. */
export function middlewareHandler(instance: Instance, options: { limit: number }): NodeHandler {
  return createNodeHandler(instance, {
    limit: options.limit,
    // A request nothing here could answer keeps its body for the handlers after the middleware
    // (a body parser, a dev server's proxy): it is handed on unread, and recorded without a body.
    readsBody: (req, path) => readsBody(instance, req, path),
    // One it reads and then hands on gets its body back, as though unread.
    keepsBody: true,
    unmatched: [proxy(instance), fallThrough(instance), notFound(instance)],
  })
}
