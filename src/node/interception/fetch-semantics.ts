/**
 * What `fetch` does with a response, re-implemented for mocked responses: the request built from
 * fetch's arguments, redirects, `content-encoding` decoding, `response.url`, network errors and
 * the 500 for an exception in a handler. Each function mirrors undici's fetch (the Fetch
 * standard) as @mswjs/interceptors 0.41's FetchInterceptor reproduced it.
 *
 * @see https://fetch.spec.whatwg.org/#http-redirect-fetch
 * @see https://github.com/nodejs/undici/blob/main/lib/web/fetch/index.js
 * @see https://github.com/mswjs/interceptors/tree/main/src/interceptors/fetch/utils (followRedirect.ts, decompression.ts)
 */
import { Duplex } from 'node:stream'
import zlib from 'node:zlib'

/**
 * The Fetch classes to build objects with: the globals as they were before @mswjs/interceptors
 * 0.41's ClientRequest interceptor replaced them with recording Proxies
 * (`recordRawFetchHeaders`). Objects built with these skip the Proxies' cost, and a `Headers`
 * copied through the Proxy can lose entries (a Request made with a body and headers records only
 * the content type as raw headers, and `new Headers(request.headers)` copies those).
 */
export interface FetchClasses {
  Request: typeof Request
  Response: typeof Response
  Headers: typeof Headers
}

/** The current global Fetch classes (take them before anything patches the globals). */
export function currentFetchClasses(): FetchClasses {
  return { Request: globalThis.Request, Response: globalThis.Response, Headers: globalThis.Headers }
}

/** The error fetch rejects with on a network failure (what @mswjs/interceptors 0.41 uses). */
export function networkError(cause?: unknown): TypeError {
  return Object.assign(new TypeError('Failed to fetch'), { cause })
}

/** Node-style errors (`code` and `errno`, e.g. ECONNREFUSED) thrown by resolve() fail the request as they are. */
export function isNodeLikeError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && 'errno' in error
}

/** msw's (and @mswjs/interceptors') answer to an exception in a handler. */
export function serverErrorResponse(classes: FetchClasses, error: unknown): Response {
  const body = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error
  return new classes.Response(JSON.stringify(body), {
    status: 500,
    statusText: 'Unhandled Exception',
    headers: { 'Content-Type': 'application/json' },
  })
}

/**
 * A fetch `Request` from fetch's arguments, as @mswjs/interceptors 0.41 built it: a relative URL
 * resolves against `location` (jsdom); a GET/HEAD body is dropped; a body gets `duplex: 'half'`
 * (a stream body needs it).
 */
export function requestFrom(classes: FetchClasses, input: RequestInfo | URL, init: RequestInit | undefined): Request {
  if (typeof input === 'string' && typeof location !== 'undefined' && !URL.canParse(input)) {
    input = new URL(input, location.href)
  }
  if (init == null) return new classes.Request(input)
  if (init.body != null) {
    const method = (init.method ?? (input instanceof classes.Request ? input.method : 'GET')).toUpperCase()
    if (method === 'GET' || method === 'HEAD') init = { ...init, body: undefined }
    else if (!('duplex' in init)) init = { ...init, duplex: 'half' } as RequestInit
  }
  return new classes.Request(input, init)
}

/** `clone()` of a mocked response: the copy keeps the `url` set below. */
function cloneWithUrl(this: Response): Response {
  const copy = (Object.getPrototypeOf(this) as Response).clone.call(this)
  setUrl(copy, this.url)
  return copy
}

/**
 * Sets `response.url` (undici keeps it in a private field, so an own property shadows the
 * getter, as @mswjs/interceptors does on Node 24); `clone()` keeps it. (Two `defineProperty`
 * calls, not one `defineProperties` with a symbol key: see bench/README.md.)
 */
function setUrl(response: Response, url: string): void {
  Object.defineProperty(response, 'url', { value: url, enumerable: true, configurable: true })
  Object.defineProperty(response, 'clone', { value: cloneWithUrl, configurable: true, writable: true })
}

export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const REQUEST_BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length']
export const MAX_REDIRECTS = 20

function sameOrigin(left: URL, right: URL): boolean {
  return left.protocol === right.protocol && left.hostname === right.hostname && left.port === right.port
}

/**
 * The requests whose body the caller gave as a stream: fetch cannot send such a body again, so
 * a redirect other than 303 fails them (a string, bytes, a Blob or FormData are sent again).
 */
export const streamedBodies = new WeakSet<Request>()

/** Whether a fetch `body` is a stream the caller reads from (its "source" is null in the Fetch standard). */
export function isStreamBody(body: unknown): boolean {
  return body instanceof ReadableStream || (typeof body === 'object' && body !== null && Symbol.asyncIterator in body)
}

/**
 * The request a mocked redirect leads to, as undici builds it: 301/302 after POST and 303 after
 * anything but GET/HEAD become a body-less GET; 307 and 308 send the method and the body again;
 * the credentials headers are dropped across origins. Throws a network error where fetch fails:
 * a body given as a stream cannot be sent again (a 303 drops it).
 */
export function redirectRequest(classes: FetchClasses, request: Request, response: Response, location: string): Request {
  if (response.status !== 303 && request.body !== null && streamedBodies.has(request)) throw networkError()
  const from = new URL(request.url)
  let to: URL
  try {
    to = new URL(location, request.url)
  } catch (error) {
    throw networkError(error)
  }
  if (to.protocol !== 'http:' && to.protocol !== 'https:') throw networkError('URL scheme must be a HTTP(S) scheme')
  if (request.mode === 'cors' && (to.username || to.password) && !sameOrigin(from, to)) {
    throw networkError('cross origin not allowed for request mode "cors"')
  }
  const headers = new classes.Headers(request.headers)
  let method = request.method
  let body: ReadableStream<Uint8Array> | null = request.body
  if (((response.status === 301 || response.status === 302) && method === 'POST') || (response.status === 303 && method !== 'GET' && method !== 'HEAD')) {
    method = 'GET'
    body = null
    for (const name of REQUEST_BODY_HEADERS) headers.delete(name)
  }
  if (!sameOrigin(from, to)) {
    for (const name of ['authorization', 'proxy-authorization', 'cookie', 'host']) headers.delete(name)
  }
  // The body not read yet: the resolver read a clone of it.
  if (body !== null) return new classes.Request(to, { method, headers, signal: request.signal, redirect: 'follow', body, duplex: 'half' } as RequestInit)
  return new classes.Request(to, { method, headers, signal: request.signal, redirect: 'follow' })
}

/** A body decoded per `content-encoding` (gzip, deflate, br; identity), as fetch does; null when nothing to decode. */
function decoded(body: ReadableStream<Uint8Array>, contentEncoding: string): ReadableStream<Uint8Array> | null {
  const codings = contentEncoding.toLowerCase().split(',')
  let stream = body
  let changed = false
  // The last coding listed was applied last: undo it first.
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!.trim()
    let decoder: Duplex
    if (coding === 'gzip' || coding === 'x-gzip') decoder = zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
    else if (coding === 'deflate') decoder = zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
    else if (coding === 'br') decoder = zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
    else if (coding === 'identity' || coding === '') continue
    else return changed ? stream : null
    stream = stream.pipeThrough(Duplex.toWeb(decoder) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
    changed = true
  }
  return changed ? stream : null
}

/** What fetch resolves with for a mocked `response`: status, headers and body as given, `url` set. */
export function delivered(classes: FetchClasses, request: Request, response: Response): Response {
  if (response.body !== null) {
    const encoding = response.headers.get('content-encoding')
    const body = encoding ? decoded(response.body, encoding) : null
    if (body !== null) {
      response = new classes.Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    }
  }
  setUrl(response, request.url)
  return response
}
