import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { formatMessage } from '../core/errors.js'
import { errorResponse, type MockResponse } from '../core/build-response.js'
import { sessionOf } from '../harness/session.js'
import { formatViolation } from '../harness/traffic-check.js'
import type { Instance, Outcome, RespondOptions, SurfaceRequest } from '../config/instance.js'
import { answerThenDrain, PayloadTooLargeError, payloadTooLarge, readBody } from '../forward/body.js'
import { badTargetResponse, requestTarget } from './wire.js'
import { playFault } from './faults.js'
import { isPromise } from '../core/types.js'
import { upperCaseMethod } from '../core/method-name.js'
import { REMEMBERED_BYTES } from '../core/same-bytes.js'

/** Header pairs from `rawHeaders`, lower-case names. */
function* headerEntries(raw: readonly string[]): Iterable<[string, string]> {
  for (let i = 0; i + 1 < raw.length; i += 2) yield [raw[i]!.toLowerCase(), raw[i + 1]!]
}

/** Header names as node's header object keys them (lower case), converted once per name. */
const lowerNames = new Map<string, string>()
function lowerName(name: string): string {
  let lower = lowerNames.get(name)
  if (lower === undefined) {
    lower = name.toLowerCase()
    if (lowerNames.size < 1000) lowerNames.set(name, lower)
  }
  return lower
}

/**
 * What the requests of one handler share: the last URL made and the last short body read. A
 * client sends the same request again and again (polling, retries, a load test): the same URL is
 * then the same string and the same body the same bytes object, which what compares them
 * downstream (the engine's answer again, the log's record again) finds equal at once; and the URL
 * is joined once (bench/README.md, "Counted instructions").
 */
class HandlerState {
  lastOrigin = ''
  lastPath = ''
  lastUrl = ''
  /** The handler's own copy of the last short body: never handed to anything that could change it. */
  lastBody: Buffer | null = null

  urlOf(origin: string, path: string): string {
    if (path === this.lastPath && origin === this.lastOrigin) return this.lastUrl
    this.lastOrigin = origin
    this.lastPath = path
    this.lastUrl = origin + path
    return this.lastUrl
  }

  /** The body as the pipeline gets it: a short one as the handler's copy, the same copy for the same bytes again. */
  bodyOf(bytes: Uint8Array | null): Uint8Array | null {
    if (bytes === null || bytes.byteLength > REMEMBERED_BYTES) return bytes
    const last = this.lastBody
    if (last !== null && last.byteLength === bytes.byteLength && last.equals(bytes)) return last
    this.lastBody = Buffer.from(bytes)
    return this.lastBody
  }
}

/** How a request of the shared session is answered (one object for all of them). */
const SHARED_SESSION: RespondOptions = Object.freeze({ session: '', preflight: 'any-path' })

/**
 * One request through the wire converter: the request as the pipeline reads it (its headers, its
 * body once read, a Fetch `Request` only on demand) and the steps that answer it. One object per
 * request, its methods shared: the listener's hot path makes no closures but the body reader's.
 */
class NodeExchange implements SurfaceRequest {
  readonly method: string
  readonly head: boolean
  /** The path and query that pick the route (`*` for `OPTIONS *`), or the raw target of a refused request. */
  readonly path: string
  readonly origin: string
  /** Why the target or Host is refused (a 400), if it is. */
  readonly problem: string | undefined
  url = ''
  bytes: Uint8Array | null = null
  readonly logHeaders: readonly string[]
  readonly started: number
  #signal: AbortSignal | undefined

  constructor(
    readonly instance: Instance,
    readonly options: NodeHandlerOptions,
    readonly state: HandlerState,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly next: ((error?: unknown) => void) | undefined,
  ) {
    this.started = instance.logsRequests ? performance.now() : 0
    this.method = upperCaseMethod(req.method ?? 'GET')
    this.head = this.method === 'HEAD'
    this.logHeaders = req.rawHeaders
    const target = requestTarget(req)
    if (target.problem === undefined) {
      this.problem = undefined
      this.path = target.path
      this.origin = target.origin
    } else {
      this.problem = target.problem
      this.path = req.url ?? '/'
      this.origin = ''
    }
  }

  /** The request's headers as the engine reads them: itself (`get`, names in any case; repeated ones joined). */
  get headers(): SurfaceRequest['headers'] {
    return this
  }
  get(name: string): string | null {
    const value = this.req.headers[lowerName(name)]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(', ') : value
  }
  get proxied(): boolean {
    return this.instance.options.proxy !== undefined
  }
  body(): Uint8Array | null {
    return this.bytes
  }
  /**
   * Aborts when the connection closes before the answer is written (the client left, or a stop
   * closed it after its grace): a latency then ends (create-engine.ts). Made only when asked
   * for, as an answer with latency asks: most requests never need one.
   */
  get left(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController()
      this.#signal = controller.signal
      const { res } = this
      if (res.destroyed) controller.abort()
      else res.once('close', () => res.writableFinished || controller.abort())
    }
    return this.#signal
  }
  toFetch(): Request {
    const headers = new Headers()
    for (const [name, value] of headerEntries(this.logHeaders)) {
      if (!name.startsWith(':')) headers.append(name, value)
    }
    const { method, bytes } = this
    return new Request(this.url, { method, headers, body: bytes && method !== 'GET' && method !== 'HEAD' ? (bytes as BodyInit) : undefined })
  }

  /** What the listener builds itself (its 400, 404, 413, 500) gets the CORS headers the engine decides. */
  finish(response: MockResponse): MockResponse {
    return this.instance.engine.finish(response, this)
  }

  start(): void {
    const { instance, options, req, res, method, path } = this
    if (this.problem !== undefined) {
      writeMockResponse(res, this.finish(badTargetResponse(method, this.problem)), this.head)
      logRefused(instance, method, path, 400, this.problem, this.started)
      return
    }
    if (options.before) {
      let handled: boolean | Promise<boolean>
      try {
        handled = options.before(req, res, path, this.origin)
      } catch (error) {
        return this.fail(error)
      }
      if (handled !== false) {
        Promise.resolve(handled).then((answered) => answered || this.proceed(), (error: unknown) => this.fail(error))
        return
      }
    }
    this.proceed()
  }

  proceed(): void {
    const { options, req } = this
    try {
      if (options.readsBody === undefined || options.readsBody(req, this.path)) readBody(req, options.limit, (error, bytes) => this.bodyRead(error, bytes), options.keepsBody)
      else this.bodyRead(null, null)
    } catch (error) {
      this.fail(error)
    }
  }

  bodyRead(error: Error | null, bytes: Uint8Array | null): void {
    if (error) return this.fail(error)
    try {
      this.bytes = this.state.bodyOf(bytes)
      // The path alone picks the route: the origin is a validated host, never part of the path.
      // `OPTIONS *` names no path: the server as a whole, read as its root.
      this.url = this.state.urlOf(this.origin, this.path === '*' ? '/' : this.path)
      // The listener and the middleware answer a preflight on any path (docs/behaviour.md, "CORS").
      const session = sessionOf(this.req.headers)
      const outcome = this.instance.respond(this, session === '' ? SHARED_SESSION : { session, preflight: 'any-path' })
      if (isPromise(outcome)) outcome.then((settled) => this.send(settled, session)).catch((error: unknown) => this.fail(error))
      else this.send(outcome, session)
    } catch (error) {
      this.fail(error)
    }
  }

  send(outcome: Outcome, session: string): void {
    const { instance, res, method, path, head } = this
    if (outcome.kind === 'route') {
      const { response, info } = outcome
      // `OPTIONS *`: a preflight of the server as a whole, which says what it allows (docs/behaviour.md, "Requests on the wire").
      if (path === '*') response.headers.allow = 'GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS'
      const streamed = response.ended
      if (response.fault === undefined) writeMockResponse(res, response, head)
      else playFault(res, response, head, () => outcome.lifetime ?? instance.lifetime(session))
      if (!instance.logsRequests && outcome.violations === undefined) return
      const what = info.file ?? info.route ?? info.entry
      // A stream is logged when it starts, and again when it ends (docs/behaviour.md, "Streams and Server-Sent Events").
      logLine(instance, method, path, faultStatus(response), streamed ? `${what} stream` : what, outcome.record.durationMs)
      if (streamed && instance.logsRequests) {
        const started = performance.now()
        // A `truncate` ends its stream by cutting it: said so, not as a stream that ran to its end.
        const end = response.fault === 'truncate' ? 'cut' : 'ended'
        void streamed.then(() => instance.logger.info(`${method} ${path} stream ${end} after ${Math.round(performance.now() - started)}ms`))
      }
      // docs/behaviour.md, "Traffic checked against a contract": a warn line per violation.
      if (outcome.violations) for (const violation of outcome.violations) instance.logger.warn(formatMessage(`contract: ${formatViolation({ method, url: this.url, status: response.status, file: info.file, route: info.route }, violation)}`))
      return
    }
    if (outcome.kind === 'handler') {
      writeFetchResponse(res, outcome.response, outcome.headers, head).then(
        () => logLine(instance, method, path, outcome.response.status, 'handler', outcome.record.durationMs),
        (error: unknown) => this.fail(error),
      )
      return
    }
    const unmatched: Unmatched = { req: this.req, res, method, path, url: this.url, head, bytes: this.bytes, outcome, finish: (response) => this.finish(response), next: this.next }
    for (const step of this.options.unmatched) if (step(unmatched)) return
  }

  fail(error: unknown): void {
    const { instance, options, req, res, method, path } = this
    if (error instanceof PayloadTooLargeError) {
      if (!res.headersSent) {
        answerThenDrain(req, res, this.finish(payloadTooLarge(method, path, error, options.limit)))
        logRefused(instance, method, path, 413, `body over the ${options.limit}-byte limit`, this.started)
      }
      return
    }
    // A client that leaves while its body is still arriving (or a stop that cuts it off) is not a failure.
    if (req.destroyed || (error as NodeJS.ErrnoException)?.code === 'ECONNRESET') {
      if (instance.logsRequests) instance.logger.info(`${method} ${path} client left before its body arrived`)
      return
    }
    instance.logger.error(formatMessage(`${method} ${path} failed: ${(error as Error)?.stack ?? String(error)}`))
    if (res.headersSent) {
      res.destroy()
      return
    }
    const response = errorResponse(500, 'Internal Server Error', `${method} ${path} failed inside mockyard: ${String((error as Error)?.message ?? error).replace(/\.$/, '')}. The server keeps serving; see its log for the stack`)
    writeMockResponse(res, this.finish(response), false)
  }
}

/** Writes the engine's plain response (a streamed one chunked, piece by piece: `writeStream`). */
export function writeMockResponse(res: ServerResponse, response: MockResponse, head: boolean): void {
  const body = response.body
  if (body instanceof ReadableStream) {
    writeStream(res, response.status, response.headers, body, head)
    return
  }
  const headers: Record<string, string | number> = response.headers
  if (body !== null) headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  res.writeHead(response.status, headers)
  res.end(head || body === null ? undefined : body)
}

/**
 * Sends a streamed body (`stream`, `events`; docs/behaviour.md, "Streams and Server-Sent Events")
 * chunked: the headers at once, then each piece written (and so flushed) as the stream hands it
 * over, waiting for `drain` when the client reads slowly. A client that leaves cancels the
 * stream, which clears its timers.
 */
/** Streamed responses waiting for their client to read (`drain`): a stop does not wait for them. */
const stalled = new WeakSet<ServerResponse>()

/** Whether a response is a stream whose client has stopped reading (the socket's buffer is full). */
export function stalledStream(res: ServerResponse): boolean {
  return stalled.has(res)
}

function writeStream(res: ServerResponse, status: number, headers: Record<string, string>, body: ReadableStream<Uint8Array>, head: boolean): void {
  // The client left while the latency ran: nothing to send, and the stream (its timers) ends now.
  if (res.destroyed) {
    body.cancel().catch(() => {})
    return
  }
  res.writeHead(status, headers)
  if (head) {
    void body.cancel()
    res.end()
    return
  }
  // The headers go now, not with the first piece: an event feed may have nothing to send yet.
  res.flushHeaders()
  const reader = body.getReader()
  res.once('close', () => {
    if (!res.writableEnded) reader.cancel().catch(() => {})
  })
  const pump = (): void => {
    reader.read().then(({ done, value }) => {
      if (res.destroyed) {
        reader.cancel().catch(() => {})
        return
      }
      if (done) res.end()
      else if (res.write(value)) pump()
      else {
        stalled.add(res)
        res.once('drain', () => {
          stalled.delete(res)
          pump()
        })
      }
    }, () => {
      // The body failed (a `truncate` cut it): what is written goes out, then the connection
      // ends without the last chunk, so the client sees the pieces before the cut.
      const socket = res.socket
      if (socket) socket.end()
      else res.destroy()
    })
  }
  pump()
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

/** A request no route or handler answered, as the steps of a composition see it (compose.ts). */
export interface Unmatched {
  req: IncomingMessage
  res: ServerResponse
  /** Upper-case. */
  method: string
  /** The path and query that picked no route (`*` for `OPTIONS *`). */
  path: string
  /** The absolute URL the pipeline saw. */
  url: string
  head: boolean
  /** The body as read (within the limit). */
  bytes: Uint8Array | null
  /** The pipeline's outcome: the explanation, and `settle` to record what was sent. */
  outcome: Extract<Outcome, { kind: 'unmatched' }>
  /** Adds the CORS headers the engine decides to a response a step builds itself. */
  finish(response: MockResponse): MockResponse
  /** The middleware's `next`, when there is one. */
  next?: (error?: unknown) => void
}

/** One way to answer an unmatched request: returns true when it answered (or handed the request on). */
export type UnmatchedStep = (unmatched: Unmatched) => boolean

export interface NodeHandlerOptions {
  /** The largest body read, in bytes; a larger one is answered 413. */
  limit: number
  /**
   * Sees the request before its body is read, at its path, addressed to `origin` (the
   * absolute-form target's, else the Host header's): true (or a promise of true) when it answered
   * (the listener's admin endpoints), false to go on.
   */
  before?: (req: IncomingMessage, res: ServerResponse, path: string, origin: string) => boolean | Promise<boolean>
  /** Tried in order for a request no route or handler answered; the last one always answers. */
  unmatched: readonly UnmatchedStep[]
  /**
   * Whether the body of a request to this path is read (default: always). The middleware reads it
   * only when something could answer with it, so a request it hands on keeps its body.
   */
  readsBody?: (req: IncomingMessage, path: string) => boolean
  /**
   * Put the body back on the stream once read (the middleware): a request no route answers goes
   * to `next()` with its body still readable by the handlers after it.
   */
  keepsBody?: boolean
}

/**
 * The wire converter shared by the HTTP listener and the middleware (as `@hono/node-server`'s
 * `getRequestListener`): checks the target and Host, reads the body within the limit, hands the
 * pipeline its request, and writes the outcome back: the route's or the handler's answer, or the
 * first of the composition's `unmatched` steps that answers; a 500 keeps the server serving. A
 * request the routes answer from memory is written without any promise in between.
 */
export function createNodeHandler(instance: Instance, options: NodeHandlerOptions) {
  const state = new HandlerState()
  return function handle(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void {
    new NodeExchange(instance, options, state, req, res, next).start()
  }
}

/** The status column of the log line: the status, or the fault (`reset`; `200 truncate`). */
function faultStatus(response: MockResponse): number | string {
  if (response.fault === undefined) return response.status
  return response.fault === 'truncate' ? `${response.status} truncate` : response.fault
}

/**
 * The log line of a request refused before the routes (docs/behaviour.md, "Errors and limits"):
 * a body over `limit` (413), an unusable target or Host (400), an `Expect` mockyard cannot meet
 * (417). Logged like an answered request (`POST /v1/users 413 refused: body over the 1024-byte
 * limit 0.4ms`); the request log holds no record of it. The path is cut short: a refused target
 * may be anything the client sent.
 */
export function logRefused(instance: Instance, method: string, path: string, status: number, why: string, started: number): void {
  if (!instance.logsRequests) return
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path
  logLine(instance, method, shown, status, `refused: ${why}`, Math.round((performance.now() - started) * 100) / 100)
}

/** The per-request log line: `GET /v1/users 200 users.json 1.2ms`, `GET /v1/flaky reset v1/flaky 0.1ms` (docs/behaviour.md, "Options"). */
export function logLine(instance: Instance, method: string, path: string, status: number | string, what: string, ms: number): void {
  if (instance.logsRequests) instance.logger.info(`${method} ${path} ${status} ${what} ${ms}ms`)
}
