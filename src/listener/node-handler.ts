import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { formatMessage } from '../core/errors.js'
import { errorResponse, type MockResponse } from '../core/build-response.js'
import { sessionOf } from '../harness/session.js'
import type { Instance, Outcome, SurfaceRequest } from '../config/instance.js'
import { answerThenDrain, PayloadTooLargeError, payloadTooLarge, readBody } from '../forward/body.js'
import { badTargetResponse, headerGetter, requestTarget } from './wire.js'
import { notFoundResponse } from './not-found.js'
import { proxyUnmatched } from './proxy.js'

/** Header pairs from `rawHeaders`, lower-case names. */
function* headerEntries(raw: readonly string[]): Iterable<[string, string]> {
  for (let i = 0; i + 1 < raw.length; i += 2) yield [raw[i]!.toLowerCase(), raw[i + 1]!]
}

/** Wraps a node request whose body has been read for the instance; a Fetch `Request` only on demand. */
function toSurfaceRequest(req: IncomingMessage, headers: SurfaceRequest['headers'], target: { origin: string; path: string }, bytes: Uint8Array | null, proxied = false): SurfaceRequest {
  // The path alone picks the route: the origin is a validated host, never part of the path.
  const url = target.origin + target.path
  const raw = req.rawHeaders
  return {
    method: req.method ?? 'GET',
    url,
    headers,
    logHeaders: raw,
    proxied,
    body: () => bytes,
    toFetch() {
      const headers = new Headers()
      for (const [name, value] of headerEntries(raw)) {
        if (!name.startsWith(':')) headers.append(name, value)
      }
      const method = req.method ?? 'GET'
      return new Request(url, { method, headers, body: bytes && method !== 'GET' && method !== 'HEAD' ? (bytes as BodyInit) : undefined })
    },
  }
}

/** Writes the engine's plain response. */
export function writeMockResponse(res: ServerResponse, response: MockResponse, head: boolean): void {
  const body = response.body
  const headers: Record<string, string | number> = response.headers
  if (body !== null) headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  res.writeHead(response.status, headers)
  res.end(head || body === null ? undefined : body)
}

/** Writes a Fetch `Response` (from an msw handler) with the headers the instance decided (`set-cookie` comes from the response). */
export async function writeFetchResponse(res: ServerResponse, response: Response, headers: Record<string, string>, head: boolean): Promise<void> {
  const cookies = response.headers.getSetCookie?.() ?? []
  res.writeHead(response.status, { ...headers, ...(cookies.length > 0 ? { 'set-cookie': cookies } : {}) })
  if (head || response.body === null) {
    res.end()
    return
  }
  await new Promise<void>((resolve, reject) => {
    Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).on('error', reject).pipe(res).on('finish', resolve).on('error', reject)
  })
}

export interface NodeHandlerOptions {
  /** `listener`: unmatched -> 404; `middleware`: unmatched -> `next()`. */
  mode: 'listener' | 'middleware'
  limit: number
  /** Answers `GET /` with the package's name, description and version (listener). */
  rootInfo?: () => Record<string, unknown>
  /**
   * Handles `/__mockyard/` admin requests (listener) at the given path, addressed to `origin` (the
   * absolute-form target's, else the Host header's); returns true when it did.
   */
  admin?: (req: IncomingMessage, res: ServerResponse, path: string, origin: string) => boolean | Promise<boolean>
}

/**
 * The request listener shared by the HTTP listener and the middleware: CORS preflight, body
 * limit, extra handlers, routes, explained 404s, and a 500 that keeps the server serving. A
 * request the routes answer from memory is written without any promise in between.
 */
export function createNodeHandler(instance: Instance, options: NodeHandlerOptions) {
  return function handle(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void {
    const method = (req.method ?? 'GET').toUpperCase()
    const head = method === 'HEAD'
    const headers = headerGetter(req)
    /** What the listener builds itself (its 400, 404, 413, 500) gets the CORS headers the engine decides. */
    const finish = (response: MockResponse) => instance.engine.finish(response, { headers })

    const target = requestTarget(req)
    const path = target.problem === undefined ? target.path : (req.url ?? '/')

    const fail = (error: unknown): void => {
      if (error instanceof PayloadTooLargeError) {
        if (!res.headersSent) answerThenDrain(req, res, finish(payloadTooLarge(method, path, error, options.limit)))
        return
      }
      instance.logger.error(formatMessage(`${method} ${path} failed: ${(error as Error)?.stack ?? String(error)}`))
      if (res.headersSent) {
        res.destroy()
        return
      }
      const response = errorResponse(500, 'Internal Server Error', `${method} ${path} failed inside mockyard: ${(error as Error)?.message ?? String(error)}. The server keeps serving; see its log for the stack`)
      writeMockResponse(res, finish(response), false)
    }

    const send = (outcome: Outcome, url: string, bytes: Uint8Array | null = null): void => {
      if (outcome.kind === 'route') {
        // `OPTIONS *`: a preflight of the server as a whole, which says what it allows (docs/behaviour.md, "Requests on the wire").
        if (path === '*') outcome.response.headers.allow = 'GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS'
        writeMockResponse(res, outcome.response, head)
        logLine(instance, method, path, outcome.response.status, outcome.info.file ?? outcome.info.route ?? outcome.info.entry, outcome.record.durationMs)
        return
      }
      if (outcome.kind === 'handler') {
        writeFetchResponse(res, outcome.response, outcome.headers, head).then(() => logLine(instance, method, path, outcome.response.status, 'handler', outcome.record.durationMs), fail)
        return
      }
      if (instance.options.proxy) {
        proxyUnmatched(instance, req, res, bytes, outcome.settle, head)
        return
      }
      if (options.mode === 'middleware' && next) {
        outcome.settle({ status: 0 })
        next()
        return
      }
      if (options.rootInfo && method === 'GET' && (path === '/' || path.startsWith('/?'))) {
        const response = finish({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(options.rootInfo()) })
        // Logged and recorded like any answered request (docs/behaviour.md, "Options").
        const record = outcome.settle({ status: 200, responseHeaders: response.headers })
        writeMockResponse(res, response, false)
        logLine(instance, method, path, 200, '/ (package info)', record.durationMs)
        return
      }
      const explanation = outcome.explanation()
      instance.logger.warn(explanation)
      const response = finish(notFoundResponse(explanation, req.headers.accept ?? null, method, url))
      outcome.settle({ status: 404, responseHeaders: response.headers })
      writeMockResponse(res, response, head)
    }

    const answer = (error: Error | null, bytes: Uint8Array | null): void => {
      if (error) return fail(error)
      try {
        const request = toSurfaceRequest(req, headers, target as { origin: string; path: string }, bytes, instance.options.proxy !== undefined)
        // The listener and the middleware answer a preflight on any path (docs/behaviour.md, "CORS").
        const outcome = instance.respond(request, { session: sessionOf(req.headers), preflight: 'any-path' })
        if (outcome instanceof Promise) outcome.then((settled) => send(settled, request.url, bytes)).catch(fail)
        else send(outcome, request.url, bytes)
      } catch (error) {
        fail(error)
      }
    }

    if (target.problem !== undefined) {
      writeMockResponse(res, finish(badTargetResponse(method, target.problem)), head)
      return
    }
    const proceed = (): void => {
      try {
        readBody(req, options.limit, answer)
      } catch (error) {
        fail(error)
      }
    }
    if (options.admin && path.startsWith('/__mockyard/')) {
      new Promise<boolean>((resolve) => resolve(options.admin!(req, res, path, target.origin))).then((handled) => handled || proceed(), fail)
      return
    }
    proceed()
  }
}

function logLine(instance: Instance, method: string, path: string, status: number, what: string, ms: number): void {
  if (instance.logsRequests) instance.logger.info(`${method} ${path} ${status} ${what} ${ms}ms`)
}
