/**
 * In-process request interception for test runners (Vitest, node:test): global `fetch`, Node's
 * `http`/`https` clients (`http.get`, `http.request`, `new http.ClientRequest`: what axios's
 * Node adapter uses) and a global `XMLHttpRequest` when one exists (jsdom, happy-dom).
 *
 * - `fetch`: a patch of `globalThis.fetch` written here. It builds one `Request`, hands
 *   `resolve()` that request (a clone only when it has a body), and returns the mock's own
 *   `Response` with its `url` set: no event emitter, no deferred promises, no response copy. It
 *   reproduces what `@mswjs/interceptors` 0.41's FetchInterceptor did for a mocked response
 *   (`Response.error()` as a network error, redirects followed or refused per `request.redirect`,
 *   `content-encoding` decompressed, abort signals honoured, relative URLs against `location`).
 * - `http`/`https` and `XMLHttpRequest`: `@mswjs/interceptors` 0.41's ClientRequest and
 *   XMLHttpRequest interceptors (with a workaround for a parser leak of the former). While
 *   applied, the ClientRequest interceptor replaces the global `Headers`, `Request` and
 *   `Response` with Proxies that record raw header names; the fetch path uses the classes found
 *   before it (see `native`).
 *
 * Heap stays flat on every path; 0.45 (msw 3's interceptors) used on its own retains ~40 KB per
 * request. `bench/in-process.mjs` compares fetch and http.get through this interception with
 * msw's `getResponse()` called directly, and measures `setupMockServer()`'s path
 * (`intercept-instance.ts`).
 *
 * This file only imports packages and uses erasable TypeScript syntax, so that Node's type
 * stripping can load it directly (`bench/in-process.mjs`).
 */
import { syncBuiltinESMExports } from 'node:module'
import { Duplex } from 'node:stream'
import zlib from 'node:zlib'
import { BatchInterceptor, getRawRequest } from '@mswjs/interceptors'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest'

export type UnhandledStrategy = 'error' | 'warn' | 'bypass'

export interface InterceptionOptions {
  /**
   * Answers a request, or undefined when nothing matches. It gets its own copy of the request
   * (the body can be read). A throw (or a rejection) becomes a 500 response whose JSON body
   * names the error, as in msw; a thrown `Response` is sent as the answer.
   */
  resolve(request: Request): Promise<Response | undefined>
  /** Called for each request resolve() did not answer (after the strategy acted). */
  onUnhandled?(request: Request): void
  /**
   * What happens to a request resolve() did not answer:
   * - 'error': the request fails with a network error whose message is `explain(request)`
   *   (fetch rejects with that TypeError; http/https requests emit it as their 'error' event;
   *   XMLHttpRequest fires 'error');
   * - 'warn': `warn(explain(request))`, then the request goes to the real network;
   * - 'bypass': the request goes to the real network silently.
   */
  strategy: UnhandledStrategy
  /** Why nothing answered. Default: `mockyard: no mock answers GET http://host/path`. */
  explain?(request: Request): string | Promise<string>
  /** Where 'warn' prints. Default: `console.warn`. */
  warn?(message: string): void
}

export interface Interception {
  /**
   * Restores fetch, http/https and XMLHttpRequest. Idempotent. When something replaced
   * `globalThis.fetch` after the interception started (a spy wrapping it, another mock), that
   * replacement stays in place and the interception's fetch only forwards to the fetch it found.
   */
  dispose(): Promise<void> | void
}

/**
 * `startInterception()` while another mockyard interception is active (`setupMockServer()`
 * turns it into an explanation).
 *
 * @example
 * try { startInterception(options) } catch (error) { if (error instanceof InterceptionActiveError) ... }
 */
export class InterceptionActiveError extends Error {
  override name = 'InterceptionActiveError'
}

/** The interception currently applied: there is at most one per process (per global scope). */
let active: { dispose(): void } | undefined

/**
 * Where @mswjs/interceptors 0.41 (msw 2) keeps the interceptors it applied; 0.45 (msw 3) keeps
 * them in `globalThis.__MSW_INTERCEPTORS_REGISTRY` instead.
 */
const FOREIGN_SYMBOLS = ['fetch-interceptor', 'client-request-interceptor', 'xhr-interceptor']

function defaultExplain(request: Request): string {
  return `mockyard: no mock answers ${request.method} ${request.url}`
}

/** A copy whose body can be consumed without touching the original (needed to pass it through). */
function copyOf(request: Request): Request {
  return request.body === null ? request : request.clone()
}

/** Errors of the caller's callbacks must neither be lost nor corrupt the request's handling. */
function rethrowLater(error: unknown): void {
  setImmediate(() => {
    throw error
  })
}

interface ClosableParser {
  close(): void
}

/**
 * Works around a leak of @mswjs/interceptors 0.41's ClientRequest interception: each request's
 * mock socket makes two `HTTPParser`s and only `free()`s them, which is meant for parsers going
 * back to Node's pool; a parser outside the pool must be `close()`d, else its native object and
 * its JS wrapper live forever (~0.7 KB of heap per http/https request, never released, not even
 * by dispose()). Once the socket has closed, close both parsers (after the stack has unwound, as
 * Node does). `requestParser`/`responseParser` are fields of 0.41's MockHttpSocket; when they are
 * missing (another version) this does nothing.
 */
function closeParsersWithSocket(request: Request): void {
  const raw = getRawRequest(request) as { socket?: unknown } | undefined
  const socket = raw?.socket as
    | { once?(event: string, listener: () => void): unknown; requestParser?: Partial<ClosableParser>; responseParser?: Partial<ClosableParser> }
    | null
    | undefined
  if (!socket || typeof socket.once !== 'function') return
  const parsers = [socket.requestParser, socket.responseParser].filter(
    (parser): parser is ClosableParser => typeof parser?.close === 'function',
  )
  if (parsers.length === 0) return
  socket.once('close', () => {
    setImmediate(() => {
      for (const parser of parsers) parser.close()
    })
  })
}

// ---------------------------------------------------------------------------------------------
// fetch

/**
 * The Fetch classes as they were before @mswjs/interceptors 0.41's ClientRequest interceptor
 * replaced the globals with recording Proxies (`recordRawFetchHeaders`, for `rawHeaders` of mocked
 * http responses): set by startInterception() before it applies the interceptors. The fetch
 * path builds its own objects with these: they skip the Proxies' cost, and a `Headers` copied
 * through the Proxy can lose entries (a Request made with a body and headers records only the
 * content type as raw headers, and `new Headers(request.headers)` copies those).
 */
const native = { Request: globalThis.Request, Response: globalThis.Response, Headers: globalThis.Headers }

/** The error fetch rejects with on a network failure (what @mswjs/interceptors 0.41 uses). */
function networkError(cause?: unknown): TypeError {
  return Object.assign(new TypeError('Failed to fetch'), { cause })
}

/** Node-style errors (`code` and `errno`, e.g. ECONNREFUSED) thrown by resolve() fail the request as they are. */
function isNodeLikeError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && 'errno' in error
}

/** msw's (and @mswjs/interceptors') answer to an exception in a handler. */
function serverErrorResponse(error: unknown): Response {
  const body = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error
  return new native.Response(JSON.stringify(body), {
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
function requestFrom(input: RequestInfo | URL, init: RequestInit | undefined): Request {
  if (typeof input === 'string' && typeof location !== 'undefined' && !URL.canParse(input)) {
    input = new URL(input, location.href)
  }
  if (init == null) return new native.Request(input)
  if (init.body != null) {
    const method = (init.method ?? (input instanceof native.Request ? input.method : 'GET')).toUpperCase()
    if (method === 'GET' || method === 'HEAD') init = { ...init, body: undefined }
    else if (!('duplex' in init)) init = { ...init, duplex: 'half' } as RequestInit
  }
  return new native.Request(input, init)
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
 * calls measured several times cheaper than one `defineProperties` with a symbol key.)
 */
function setUrl(response: Response, url: string): void {
  Object.defineProperty(response, 'url', { value: url, enumerable: true, configurable: true })
  Object.defineProperty(response, 'clone', { value: cloneWithUrl, configurable: true, writable: true })
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const REQUEST_BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length']
const MAX_REDIRECTS = 20

function sameOrigin(left: URL, right: URL): boolean {
  return left.protocol === right.protocol && left.hostname === right.hostname && left.port === right.port
}

/**
 * The request a mocked redirect leads to, as undici (and @mswjs/interceptors 0.41) build it:
 * 301/302 after POST and 303 after anything but GET/HEAD become a body-less GET; the credentials
 * headers are dropped across origins. Throws a network error where fetch fails.
 */
function redirectRequest(request: Request, response: Response, location: string): Request {
  if (response.status !== 303 && request.body !== null) throw networkError()
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
  const headers = new native.Headers(request.headers)
  let method = request.method
  // A request with a body reaches this point only for a 303, which drops the body.
  if (((response.status === 301 || response.status === 302) && method === 'POST') || (response.status === 303 && method !== 'GET' && method !== 'HEAD')) {
    method = 'GET'
    for (const name of REQUEST_BODY_HEADERS) headers.delete(name)
  }
  if (!sameOrigin(from, to)) {
    for (const name of ['authorization', 'proxy-authorization', 'cookie', 'host']) headers.delete(name)
  }
  return new native.Request(to, { method, headers, signal: request.signal, redirect: 'follow' })
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
function delivered(request: Request, response: Response): Response {
  if (response.body !== null) {
    const encoding = response.headers.get('content-encoding')
    const body = encoding ? decoded(response.body, encoding) : null
    if (body !== null) {
      response = new native.Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    }
  }
  setUrl(response, request.url)
  return response
}

// ---------------------------------------------------------------------------------------------

interface Wiring {
  resolve(request: Request): Promise<Response | undefined>
  /** The strategy's action on a request resolve() did not answer; resolves with the error to fail it with, if any. */
  unhandled(request: Request): Promise<TypeError | undefined>
}

/**
 * Replaces `globalThis.fetch` with one that answers through `wiring`; returns the function that
 * undoes it. Unanswered requests that pass through go to the fetch found here.
 */
function patchFetch(wiring: Wiring): (() => void) | undefined {
  let owner: object | null = globalThis
  let descriptor: PropertyDescriptor | undefined
  while (owner && !(descriptor = Object.getOwnPropertyDescriptor(owner, 'fetch'))) owner = Object.getPrototypeOf(owner) as object | null
  const original = globalThis.fetch
  if (!descriptor || typeof original !== 'function' || (!descriptor.configurable && !descriptor.writable)) return undefined
  const { resolve, unhandled } = wiring
  let disposed = false

  /** Answers a request whose signal cannot abort (or is watched by the caller). */
  async function answer(request: Request, redirects: number, watched: boolean): Promise<Response> {
    const copy = copyOf(request)
    let response: Response | undefined
    try {
      response = await resolve(copy)
    } catch (error) {
      if (isNodeLikeError(error)) throw error
      response = error instanceof native.Response ? error : serverErrorResponse(error)
    }
    if (response === undefined) {
      const failure = await unhandled(request)
      if (failure) throw failure
      return original(request)
    }
    const status = response.status
    if (status === 0 && response.type === 'error') throw networkError(response)
    if (REDIRECT_STATUSES.has(status)) {
      const mode = request.redirect
      if (mode === 'error') throw networkError('unexpected redirect')
      const location = response.headers.get('location')
      if (mode === 'follow' && location !== null) {
        if (redirects >= MAX_REDIRECTS) throw networkError('redirect count exceeded')
        const next = redirectRequest(request, response, location)
        const final = await (watched ? watch(next, redirects + 1) : answer(next, redirects + 1, false))
        Object.defineProperty(final, 'redirected', { value: true, configurable: true })
        return final
      }
    }
    return delivered(request, response)
  }

  /** `answer()`, failing with the signal's reason as soon as the request's signal aborts. */
  function watch(request: Request, redirects: number): Promise<Response> {
    const signal = request.signal
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise((settle, fail) => {
      const onAbort = () => fail(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      answer(request, redirects, true).then(
        (response) => {
          signal.removeEventListener('abort', onAbort)
          settle(response)
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort)
          fail(error)
        },
      )
    })
  }

  const fetch = function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    if (disposed) return original(input, init)
    let request: Request
    try {
      request = requestFrom(input, init)
    } catch (error) {
      return Promise.reject(error)
    }
    // Only a signal from the caller can abort: fetch(url) and fetch(url, init) without one skip the listener.
    return (init != null && init.signal != null) || input instanceof native.Request ? watch(request, 0) : answer(request, 0, false)
  } as typeof globalThis.fetch

  if (descriptor.configurable) Object.defineProperty(globalThis, 'fetch', { value: fetch, enumerable: true, configurable: true, writable: true })
  else globalThis.fetch = fetch
  const patchedOwn = owner === globalThis

  return () => {
    if (disposed) return
    disposed = true
    // Replaced after us (a spy, another mock): leave it; our fetch now only forwards to the original.
    if (globalThis.fetch !== fetch) return
    if (!descriptor.configurable) globalThis.fetch = original
    else if (patchedOwn) Object.defineProperty(globalThis, 'fetch', descriptor)
    else Reflect.deleteProperty(globalThis, 'fetch')
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Starts intercepting requests to any host. Only one interception can be active at a time:
 * dispose the previous one first.
 *
 * @example
 * const interception = startInterception({
 *   resolve: (request) => getResponse(handlers, request),
 *   strategy: 'error',
 * })
 * // ... fetch('http://api.test/users') is answered in process ...
 * await interception.dispose()
 */
export function startInterception(options: InterceptionOptions): Interception {
  if (active) {
    throw new InterceptionActiveError('mockyard: an interception is already active; dispose() it before starting another one')
  }
  // An msw `setupServer` (or any @mswjs/interceptors user) already patched fetch or http: the
  // interceptors would silently add our listener to its instance, and both would answer.
  const foreign = FOREIGN_SYMBOLS.filter((name) => Reflect.get(globalThis, Symbol.for(name)) !== undefined)
  const registry = Reflect.get(globalThis, '__MSW_INTERCEPTORS_REGISTRY') as Map<symbol, { readyState?: unknown }> | undefined
  for (const [symbol, instance] of registry ?? []) {
    if (instance?.readyState === 'ACTIVE') foreign.push(symbol.description ?? 'interceptor')
  }
  if (foreign.length > 0) {
    throw new Error(
      `mockyard: another request interception is active (${foreign.join(', ')}; an msw setupServer?); close it before starting mockyard's`,
    )
  }
  const { resolve, onUnhandled, strategy, explain = defaultExplain } = options
  const warn = options.warn ?? ((message: string) => console.warn(message))
  if (strategy !== 'error' && strategy !== 'warn' && strategy !== 'bypass') {
    throw new TypeError(`mockyard: unknown unhandled-request strategy ${JSON.stringify(strategy)} (error, warn or bypass)`)
  }

  const explainSafely = async (request: Request): Promise<string> => {
    try {
      return await explain(copyOf(request))
    } catch (error) {
      return `${defaultExplain(request)} (explain() failed: ${error instanceof Error ? error.message : String(error)})`
    }
  }

  const unhandled = async (request: Request): Promise<TypeError | undefined> => {
    let failure: TypeError | undefined
    if (strategy === 'error') {
      failure = new TypeError(await explainSafely(request))
    } else if (strategy === 'warn') {
      const message = await explainSafely(request)
      try {
        warn(message)
      } catch (error) {
        rethrowLater(error)
      }
    }
    if (onUnhandled) {
      try {
        onUnhandled(copyOf(request))
      } catch (error) {
        rethrowLater(error)
      }
    }
    return failure
  }

  const interceptor = new BatchInterceptor({
    name: 'mockyard-interception',
    interceptors: [new ClientRequestInterceptor(), new XMLHttpRequestInterceptor()],
  })

  interceptor.on('request', async ({ request, controller }) => {
    closeParsersWithSocket(request)
    // `request` itself stays unread so that it can still go to the network.
    const response = await resolve(copyOf(request))
    if (response !== undefined) {
      controller.respondWith(response)
      return
    }
    const failure = await unhandled(request)
    // 'warn' and 'bypass': returning without an answer lets the request through.
    if (failure) controller.errorWith(failure)
  })

  native.Request = globalThis.Request
  native.Response = globalThis.Response
  native.Headers = globalThis.Headers
  const unpatchFetch = patchFetch({ resolve, unhandled })
  interceptor.apply()
  // `import { get } from 'node:http'` bindings only follow the patched module objects after this.
  syncBuiltinESMExports()

  let disposed = false
  const handle = {
    dispose(): void {
      if (disposed) return
      disposed = true
      unpatchFetch?.()
      interceptor.dispose()
      syncBuiltinESMExports()
      if (active === handle) active = undefined
    },
  }
  active = handle
  return handle
}
