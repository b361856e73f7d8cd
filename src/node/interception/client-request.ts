/**
 * Node's `http`/`https` clients (`http.get`, `http.request`, `new http.ClientRequest`, the same on
 * `https`: what axios's Node adapter and got use), intercepted by @mswjs/interceptors 0.41's
 * ClientRequest interceptor, loaded on the first request that needs it.
 *
 * Loading that interceptor costs more CPU than everything else mockyard does to start a test file
 * (see bench/README.md, "Per-file cost under Vitest"), and Vitest starts a process per test file;
 * most test files only use `fetch`, which mockyard patches itself. So `interceptClientRequests()`
 * installs thin stand-ins for the five functions; the first call to any of them loads the
 * interceptor (synchronously, through its CommonJS build), applies it, and hands the call on to
 * it. The stand-ins stay in the modules until the undo: each request is seen there as it is made,
 * which the interceptor only reports a few ticks later (see `lifetime` below). Code that kept a
 * reference to a stand-in (`const { get } = require('node:http')`) keeps being intercepted.
 *
 * @see https://github.com/mswjs/interceptors/blob/v0.41.0/src/interceptors/ClientRequest/index.ts
 */
import http from 'node:http'
import https from 'node:https'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { closeParsersWithSocket } from './client-request-parsers.js'
import { isStreamed } from '../../core/fetch-request.js'

/** What the interceptor emits for each request (the shape of @mswjs/interceptors' `request` event). */
export interface InterceptedRequest {
  request: Request
  controller: { respondWith(response: Response): void; errorWith(error?: Error): void }
  /**
   * What `interceptClientRequests()`'s `lifetime` gave when the client made the request
   * (`http.get()` and the others). The interceptor emits the request a few ticks after that call
   * returned (once Node has written it to its socket): under a test runner, maybe after the
   * reset that ended the test that made it.
   */
  lifetime?: AbortSignal
}

interface ClientRequestModule {
  ClientRequestInterceptor: new () => {
    on(event: 'request', listener: (args: InterceptedRequest) => Promise<void> | void): unknown
    apply(): void
    dispose(): void
  }
}

interface RawRequestModule {
  getRawRequest(request: Request): unknown
}

type Patched = 'request' | 'get'


/**
 * Intercepts `http`/`https` client requests with `onRequest` until the returned function is called.
 * `lifetime`, when given, is asked as each request is made; `onRequest` gets its answer with the
 * request.
 *
 * @example
 * const stop = interceptClientRequests(async ({ request, controller }) => {
 *   controller.respondWith(new Response('hi'))
 * })
 * // http.get('http://api.test/') is answered 'hi' (the interceptor loads on this first call)
 * stop()
 */
export function interceptClientRequests(onRequest: (args: InterceptedRequest) => Promise<void>, lifetime?: () => AbortSignal | undefined): () => void {
  const original = {
    ClientRequest: http.ClientRequest,
    http: { request: http.request, get: http.get },
    https: { request: https.request, get: https.get },
  }
  let interceptor: InstanceType<ClientRequestModule['ClientRequestInterceptor']> | undefined
  /** The interceptor's functions, once it is applied: what the stand-ins hand each call on to. */
  let intercepted: typeof original | undefined
  let disposed = false
  /** The lifetime each request was made in, by its `ClientRequest` (the interceptor's raw request). */
  const madeIn = new WeakMap<object, AbortSignal>()

  const restoreOriginals = () => {
    http.ClientRequest = original.ClientRequest
    http.request = original.http.request
    http.get = original.http.get
    https.request = original.https.request
    https.get = original.https.get
  }

  /** Loads and applies the interceptor (once); the stand-ins then call its functions. */
  const activate = () => {
    if (interceptor || disposed) return
    // The interceptor wraps what the modules hold when it applies: the originals, not the stand-ins.
    restoreOriginals()
    const require = createRequire(import.meta.url)
    const { ClientRequestInterceptor } = require('@mswjs/interceptors/ClientRequest') as ClientRequestModule
    // The CommonJS build keeps its raw requests under its own symbol: read them with its own helper.
    const { getRawRequest } = require('@mswjs/interceptors') as RawRequestModule
    interceptor = new ClientRequestInterceptor()
    interceptor.on('request', (args) => {
      const raw = getRawRequest(args.request)
      closeParsersWithSocket(raw)
      const made = typeof raw === 'object' && raw !== null ? madeIn.get(raw) : undefined
      const controller: InterceptedRequest['controller'] = {
        respondWith: (response) => args.controller.respondWith(endingWithSocket(response, raw)),
        errorWith: (error) => args.controller.errorWith(error),
      }
      return onRequest(made === undefined ? { request: args.request, controller } : { request: args.request, controller, lifetime: made })
    })
    interceptor.apply()
    intercepted = {
      ClientRequest: http.ClientRequest,
      http: { request: http.request, get: http.get },
      https: { request: https.request, get: https.get },
    }
    installStandIns()
  }

  /** Notes the lifetime a request is made in (a `ClientRequest`, whichever way it was made). */
  const made = <T>(request: T): T => {
    const signal = lifetime?.()
    if (signal !== undefined && typeof request === 'object' && request !== null) madeIn.set(request, signal)
    return request
  }

  const standIn = (module: 'http' | 'https', name: Patched) =>
    function (this: unknown, ...args: unknown[]) {
      activate()
      // Undone (or undone before the first call): the original, unintercepted.
      const target = (disposed ? original : intercepted!)[module][name] as (...args: unknown[]) => unknown
      return made(target.apply(this, args))
    }
  const clientRequest: typeof http.ClientRequest = new Proxy(original.ClientRequest, {
    construct(_target, args, newTarget) {
      activate()
      const current = disposed ? original.ClientRequest : intercepted!.ClientRequest
      // `new http.ClientRequest()` builds the current class; a subclass keeps its own prototype.
      return made(Reflect.construct(current, args, newTarget === clientRequest ? current : newTarget) as object)
    },
  })
  const standIns = {
    http: { request: standIn('http', 'request') as typeof http.request, get: standIn('http', 'get') as typeof http.get },
    https: { request: standIn('https', 'request') as typeof https.request, get: standIn('https', 'get') as typeof https.get },
  }
  const installStandIns = () => {
    http.request = standIns.http.request
    http.get = standIns.http.get
    https.request = standIns.https.request
    https.get = standIns.https.get
    http.ClientRequest = clientRequest
    // `import { get } from 'node:http'` bindings only follow the patched module objects after this.
    syncBuiltinESMExports()
  }
  installStandIns()

  return () => {
    if (disposed) return
    disposed = true
    // The interceptor restores what it found (the originals) and its own patches (Headers).
    interceptor?.dispose()
    restoreOriginals()
    syncBuiltinESMExports()
  }
}

/** The mock socket of a raw request, as far as `endingWithSocket` needs it. */
interface ClosingSocket {
  destroyed?: boolean
  once(event: 'close', listener: () => void): unknown
}

/**
 * A streamed response, its body ending when the client's socket closes. The interceptor keeps reading a
 * mocked body after the client destroyed its request or response (it only stops passing the
 * pieces on), so an open stream (`stream`, `events`) would run its timers, and stay `open` in
 * the request log, until the reset. Here the interceptor reads a copy of the body, piped from
 * it; when the socket closes the pipe aborts, which cancels the body (the stream ends as when a
 * fetch reader cancels) and fails the copy (the interceptor stops). The copy shadows `body` on
 * the response itself, so the headers keep the case the interceptor recorded for them.
 */
function endingWithSocket(response: Response, rawRequest: unknown): Response {
  // A body of bytes is read to its end at once: only a streamed one can outlive its client.
  if (!isStreamed(response)) return response
  const socket = (rawRequest as { socket?: Partial<ClosingSocket> | null } | undefined)?.socket
  const body = response.body
  if (body === null || typeof socket?.once !== 'function') return response
  const stop = new AbortController()
  if (socket.destroyed) stop.abort()
  else socket.once('close', () => stop.abort(new Error('the client closed the connection')))
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
  // Rejects when the body fails (a truncate; the copy fails alike) or the socket closes first.
  body.pipeTo(writable, { signal: stop.signal }).catch(() => {})
  return Object.defineProperty(response, 'body', { value: readable, configurable: true })
}
