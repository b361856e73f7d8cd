/**
 * A request body on the wire: read with a limit, or refused so that the client reads the answer
 * (docs/behaviour.md, "Errors and limits"). The listener, the admin endpoints and the recorder
 * share these, so they sit apart from all three.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorResponse, type MockResponse } from '../core/build-response.js'
import { countOf } from '../core/count.js'

/** A body larger than the `limit` option. */
export class PayloadTooLargeError extends Error {
  override name = 'PayloadTooLargeError'
}

const NO_BODY = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE'])

/**
 * Reads a request body into memory, refusing it past `limit` bytes, and calls `done` once
 * (a callback, not a promise: the listener's hot path answers without a microtask turn).
 * With `keep`, the bytes read are put back on the stream (`keptBody`).
 */
export function readBody(req: IncomingMessage & { body?: unknown }, limit: number, done: (error: Error | null, body: Uint8Array | null) => void, keep = false): void {
  const length = req.headers['content-length']
  const declared = Number(length ?? NaN)
  if (declared > limit) return done(new PayloadTooLargeError(`the body of ${countOf(declared, 'byte')} is over the limit of ${countOf(limit, 'byte')}`), null)
  if (length === undefined && req.headers['transfer-encoding'] === undefined && NO_BODY.has(req.method ?? 'GET')) return done(null, alreadyParsed(req))
  // Behind express.json() and friends the stream is already consumed: use what they parsed.
  if (req.readableEnded || (req as { _body?: boolean })._body) return done(null, alreadyParsed(req))
  if (keep) return keptBody(req, limit, done)
  const chunks: Buffer[] = []
  let size = 0
  let finished = false
  const finish = (error: Error | null, body: Uint8Array | null) => {
    if (finished) return
    finished = true
    done(error, body)
  }
  req.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > limit) {
      // What the client still sends is drained by the 413's writer (answerThenDrain).
      req.removeAllListeners('data')
      req.pause()
      chunks.length = 0
      return finish(overLimit(limit), null)
    }
    chunks.push(chunk)
  })
  // A lone chunk is used as it is (the request log copies what it keeps).
  req.on('end', () => finish(null, size === 0 ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
  req.on('error', (error) => finish(error, null))
}

function overLimit(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`the body is over the limit of ${countOf(limit, 'byte')}`)
}

/**
 * Reads the body, then puts it back on the stream, unread as far as anyone after can tell: the
 * middleware scores a body and may still hand the request on (`next()`), and the body parser or
 * dev-server proxy after it must read the same bytes (docs/behaviour.md, "Requests on the wire").
 * The stream is read in paused mode, and only while it holds bytes (`read()` on an empty stream
 * at its end would emit its `end`): once the end of the body has arrived (`atEnd`), what was read
 * is `unshift`ed back before `end` can be emitted, and `done` runs a tick later, once the stream
 * no longer listens for `readable` and a `data` listener starts it flowing again. An empty body
 * that has already arrived (an async middleware ran first) is not touched at all.
 */
function keptBody(req: IncomingMessage, limit: number, done: (error: Error | null, body: Uint8Array | null) => void): void {
  const chunks: Buffer[] = []
  let size = 0
  let finished = false
  /** Stops listening; true the first time (the caller then calls `done`). */
  const stop = (): boolean => {
    if (finished) return false
    finished = true
    req.off('readable', take)
    req.off('error', onError)
    req.off('end', onEnd)
    return true
  }
  const finish = (error: Error | null, body: Uint8Array | null) => {
    if (stop()) done(error, body)
  }
  const onError = (error: Error) => finish(error, null)
  // Not expected (nothing here lets the stream end), but a body must never wait for good.
  const onEnd = () => finish(null, size === 0 ? null : Buffer.concat(chunks, size))
  /** Takes what the stream holds; once the whole body is in, puts it back and finishes. */
  function take(): void {
    while (!finished && req.readableLength > 0) {
      const chunk = req.read() as Buffer | null
      if (chunk === null) break
      size += chunk.length
      if (size > limit) {
        // What the client still sends is drained by the 413's writer (answerThenDrain).
        chunks.length = 0
        return finish(overLimit(limit), null)
      }
      chunks.push(chunk)
    }
    if (finished || !atEnd(req)) return
    // An HTTP/2 client that cancels its stream ends the body early: that is a client that left.
    if ((req as { aborted?: boolean }).aborted) return finish(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }), null)
    const body = size === 0 ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
    stop()
    if (body === null) {
      // An empty body's `end` may be on its way already (the stream's own `read(0)` when the
      // `readable` listener came): `next()` runs now, so that what comes after sees it.
      done(null, null)
      return
    }
    req.unshift(body)
    process.nextTick(done, null, body)
  }
  // No body (`Content-Length: 0`), or the whole body here already and empty (a middleware before
  // this one awaited something): nothing to wait for, and the stream is left exactly as it is.
  if (req.headers['content-length'] === '0' || (atEnd(req) && req.readableLength === 0)) return done(null, null)
  req.on('error', onError)
  req.on('end', onEnd)
  req.on('readable', take)
}

/**
 * Whether a stream read in paused mode has all its bytes (the end of the body has arrived) while
 * its `end` is still to come: the stream's own flag, which node's HTTP/1 and HTTP/2 requests
 * both set; a request without it (another Readable) by `complete`.
 */
function atEnd(req: IncomingMessage): boolean {
  const state = (req as { _readableState?: { ended?: boolean } })._readableState
  return state?.ended ?? req.complete
}

function alreadyParsed(req: IncomingMessage & { body?: unknown }): Uint8Array | null {
  const body = req.body
  if (body === undefined || body === null) return null
  if (body instanceof Uint8Array) return body
  if (typeof body === 'string') return new TextEncoder().encode(body)
  const type = String(req.headers['content-type'] ?? '')
  if (type.includes('application/x-www-form-urlencoded') && typeof body === 'object') return new TextEncoder().encode(formText(body))
  return new TextEncoder().encode(JSON.stringify(body))
}

/**
 * The fields `express.urlencoded()` (or `qs`) parsed, written back as a browser sends them, with
 * brackets for nesting and indices for lists (`method[type]=card&tag[0]=a&tag[1]=b`), so that they
 * are scored as the listener scores the same form.
 */
function formText(fields: object): string {
  const parts: string[] = []
  const walk = (name: string, value: unknown): void => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(`${name}[${index}]`, item))
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(name === '' ? key : `${name}[${key}]`, item)
    else if (value !== undefined && name !== '') parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value === null ? '' : String(value))}`)
  }
  walk('', fields)
  return parts.join('&')
}


/**
 * The 413 of a body over `limit`, without CORS headers (the admin endpoints send none; the
 * listener adds the engine's). `fix` is what the caller's user can do: the listener has a
 * `limit` option, the recorder none.
 */
export function payloadTooLarge(method: string, path: string, error: Error, limit: number, fix = 'Send a smaller body, or raise the limit option'): MockResponse {
  return errorResponse(413, 'Payload Too Large', `${method} ${path}: ${error.message}. ${fix}`, { limit })
}

/** Requests with `Expect: 100-continue` that were not told to continue: no body is coming. */
export const notContinued = new WeakSet<IncomingMessage>()

/** How much of a refused body is still read (and thrown away) before the connection closes. */
export const DRAIN_BYTES = 64 * 1024 * 1024
/** How long the client may take to finish sending a refused body. */
export const DRAIN_MS = 5000

/**
 * Answers a request whose body is refused (a 413) so that the client reads the answer: the
 * response is written whole (its length is known), then what the client is still sending is
 * read and thrown away, up to `DRAIN_BYTES` or `DRAIN_MS`, and only then does the connection
 * close. Closing at once would reset it under a client still writing: it would see a broken
 * pipe, not the 413.
 */
export function answerThenDrain(req: IncomingMessage, res: ServerResponse, response: MockResponse): void {
  // mockyard's own error answers: never a streamed body.
  const body = (response.body ?? '') as Uint8Array | string
  const headers: Record<string, string | number> = { ...response.headers, connection: 'close', 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength }
  res.writeHead(response.status, headers)
  if (req.complete || req.destroyed || notContinued.has(req)) {
    res.end(body)
    return
  }
  res.write(body)
  let drained = 0
  let done = false
  const finish = () => {
    if (done) return
    done = true
    clearTimeout(timer)
    req.off('data', onData)
    res.end()
  }
  const onData = (chunk: Buffer) => {
    drained += chunk.length
    if (drained > DRAIN_BYTES) finish()
  }
  const timer = setTimeout(finish, DRAIN_MS)
  req.on('data', onData)
  req.once('end', finish)
  req.once('close', finish)
  req.once('error', finish)
  req.resume()
}
