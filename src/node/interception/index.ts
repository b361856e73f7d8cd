/**
 * In-process request interception for test runners (Vitest, node:test): global `fetch`, Node's
 * `http`/`https` clients (`http.get`, `http.request`, `new http.ClientRequest`: what axios's
 * Node adapter uses) and a global `XMLHttpRequest` when one exists (jsdom, happy-dom).
 *
 * - `fetch`: mockyard's own patch (patch-fetch.ts, with fetch's behaviour for mocked responses in
 *   fetch-semantics.ts).
 * - `http`/`https`: `@mswjs/interceptors` 0.41's ClientRequest interceptor, loaded by the first
 *   request that needs it (client-request.ts), with a workaround for its parser leak
 *   (client-request-parsers.ts);
 * - `XMLHttpRequest`: its XMLHttpRequest interceptor, loaded only where a global
 *   `XMLHttpRequest` exists when the interception starts (jsdom, happy-dom).
 *
 * Why not msw 3's `setupServer` or the interceptors 0.45 it ships, with figures: bench/README.md.
 */
import { createRequire } from 'node:module'
import { formatMessage } from '../../core/errors.js'
import { interceptClientRequests, type InterceptedRequest } from './client-request.js'
import { currentFetchClasses } from './fetch-semantics.js'
import { withoutOwnFrames } from '../own-frames.js'
import { patchFetch } from './patch-fetch.js'
import { NetworkFault } from './network-fault.js'
import { interceptWebSockets, type InterceptedSocket } from './websocket.js'
import { isTruncated } from '../../core/fetch-request.js'
import { applyUnhandled, isBypassed, isUnhandledStrategy, PassedThrough, Unanswered, type UnhandledRequestStrategy } from '../../harness/unhandled.js'

/** The one unhandled-request strategy type (src/harness/unhandled.ts). */
export type UnhandledStrategy = UnhandledRequestStrategy

export interface InterceptionOptions {
  /**
   * Answers a request; when nothing matches, an `Unanswered` carrying why (or `undefined`, then
   * `explain` says why). A rejection with a `NetworkFault` fails the request as a reset or
   * closed connection would, in each client's own way. It gets its own copy of the request
   * (the body can be read). A throw (or a rejection) becomes a 500 response whose JSON body
   * names the error, as in msw; a thrown `Response` is sent as the answer.
   */
  resolve(request: Request): Promise<Response | Unanswered | undefined>
  /** Called for each request resolve() did not answer (after the strategy acted). */
  onUnhandled?(request: Request): void
  /**
   * What happens to a request resolve() did not answer:
   * - 'error': the request fails with a network error whose message is the explanation (the
   *   `Unanswered` one resolve() returned, else `explain(request)`)
   *   (fetch rejects with that TypeError; http/https requests emit it as their 'error' event;
   *   XMLHttpRequest fires 'error');
   * - 'warn': `warn(explain(request))`, then the request goes to the real network;
   * - 'bypass': the request goes to the real network silently.
   */
  strategy: UnhandledStrategy
  /** Why nothing answered, when resolve() gave no explanation. Default: `[mockyard] no mock answers GET http://host/path.` */
  explain?(request: Request): string | Promise<string>
  /** Where 'warn' prints. Default: `console.warn`. */
  warn?(message: string): void
  /**
   * Answers the WebSockets the global `WebSocket` opens (websocket.ts, loaded with the first one);
   * without it they are not intercepted.
   */
  onWebSocket?(connection: InterceptedSocket): void | Promise<void>
  /**
   * The lifetime of the state requests are answered in (under a test runner: the test's; it
   * aborts at the reset), taken as an `http`/`https` client makes a request. That client's
   * request reaches the interception a few ticks after `http.get()` returned, maybe after the
   * reset that ended the test that made it: a request whose lifetime has ended by then belongs
   * to a test that is over, and fails as the reset fails what that test left open (a reset,
   * `ECONNRESET`) without reaching resolve(), so it touches no later test's sequences or log.
   */
  lifetime?(): AbortSignal | undefined
}

export interface Interception {
  /**
   * Restores fetch, http/https and XMLHttpRequest. Idempotent. When something replaced
   * `globalThis.fetch` after the interception started (a spy wrapping it, another mock), that
   * replacement stays in place and the interception's fetch only forwards to the fetch it found.
   */
  dispose(): Promise<void> | void
  /**
   * Whether `globalThis.fetch` is no longer the interception's own: replaced after it started (an
   * msw `setupServer().listen()` after mockyard's, a spy). Said in explanations: a fetch that
   * replaced it may keep requests from the routes.
   */
  fetchReplaced(): boolean
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

/**
 * The interception applied in this global scope: at most one per process. Kept on `globalThis`
 * (not in a module variable) so that two copies of this module (a test importing the sources
 * beside the built package) still see each other's.
 */
const ACTIVE = Symbol.for('mockyard.interception')

function activeInterception(): { dispose(): void } | undefined {
  return Reflect.get(globalThis, ACTIVE) as { dispose(): void } | undefined
}

function setActiveInterception(handle: { dispose(): void } | undefined): void {
  if (handle === undefined) Reflect.deleteProperty(globalThis, ACTIVE)
  else Reflect.set(globalThis, ACTIVE, handle)
}

/**
 * Where @mswjs/interceptors 0.41 (msw 2) keeps the interceptors it applied; 0.45 (msw 3) keeps
 * them in `globalThis.__MSW_INTERCEPTORS_REGISTRY` instead.
 */
const FOREIGN_SYMBOLS = ['fetch-interceptor', 'client-request-interceptor', 'xhr-interceptor']

function defaultExplain(request: Request): string {
  return formatMessage(`no mock answers ${request.method} ${request.url}.`)
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
  if (activeInterception() !== undefined) {
    throw new InterceptionActiveError(formatMessage('an interception is already active in this process: only one can intercept at a time. Dispose of the first one (or stop its setupMockServer) before starting another.'))
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
      formatMessage(`another request interception is active (${foreign.join(', ')}; an msw setupServer?). Close it before starting mockyard's, or give mockyard's handlers to it (createHandlers).`),
    )
  }
  const { resolve, onUnhandled, strategy, explain = defaultExplain } = options
  const warn = options.warn ?? ((message: string) => console.warn(message))
  if (!isUnhandledStrategy(strategy)) {
    throw new TypeError(formatMessage(`unknown unhandled-request strategy ${JSON.stringify(strategy)}. Use 'error', 'warn' or 'bypass'.`))
  }

  const explainSafely = async (request: Request, unanswered: Unanswered | undefined): Promise<string> => {
    try {
      return unanswered ? unanswered.explanation() : await explain(copyOf(request))
    } catch (error) {
      return `${defaultExplain(request)} (explain() failed: ${error instanceof Error ? error.message : String(error)})`
    }
  }

  const unhandled = async (request: Request, unanswered?: Unanswered): Promise<TypeError | undefined> => {
    if (unanswered instanceof PassedThrough) return undefined
    // 'bypass' needs no explanation; the others get it first (a custom explain() may be async).
    const text = strategy === 'bypass' ? '' : await explainSafely(request, unanswered)
    const failure = applyUnhandled<TypeError | undefined>(strategy, () => text, {
      fallThrough: () => undefined,
      // The request fails with the explanation; mockyard's own frames are no help to the reader.
      fail: (explanation) => withoutOwnFrames(new TypeError(explanation)),
      warn(explanation) {
        try {
          warn(explanation)
        } catch (error) {
          rethrowLater(error)
        }
      },
    })
    if (onUnhandled) {
      try {
        onUnhandled(copyOf(request))
      } catch (error) {
        rethrowLater(error)
      }
    }
    return failure
  }

  const onRequest = async ({ request, controller, lifetime }: InterceptedRequest, client: 'http' | 'xhr' = 'http'): Promise<void> => {
    // `request` itself stays unread so that it can still go to the network.
    // Sent with msw's bypass(): straight to the network.
    if (isBypassed(request)) return
    // Made before a reset that came before it arrived (see `lifetime`): its test is over.
    if (lifetime?.aborted) {
      controller.errorWith(new NetworkFault('reset').forSocket())
      return
    }
    let response: Response | Unanswered | undefined
    try {
      response = await resolve(copyOf(request))
    } catch (error) {
      // docs/behaviour.md, "Faults": the request fails as over a reset or closed socket.
      if (!(error instanceof NetworkFault)) throw error
      controller.errorWith(error.forSocket())
      return
    }
    if (response !== undefined && !(response instanceof Unanswered)) {
      // The XHR interceptor cannot deliver a body that fails midway (its read would hang the
      // request): a cut body is the network error XHR reports for a dropped connection.
      if (client === 'xhr' && isTruncated(response)) controller.errorWith(new TypeError('Network error'))
      else controller.respondWith(response)
      return
    }
    const failure = await unhandled(request, response)
    // 'warn' and 'bypass': returning without an answer lets the request through.
    if (failure) controller.errorWith(failure)
  }

  // Taken before the ClientRequest interceptor replaces the globals with recording Proxies.
  const unpatchFetch = patchFetch({ resolve, unhandled }, currentFetchClasses())
  const ownFetch = globalThis.fetch
  const stopClientRequests = interceptClientRequests(onRequest, options.lifetime)
  const stopXhr = typeof globalThis.XMLHttpRequest === 'function' ? interceptXhr((args) => onRequest(args, 'xhr')) : undefined
  const stopWebSockets = options.onWebSocket ? interceptWebSockets(options.onWebSocket) : undefined

  let disposed = false
  const handle = {
    dispose(): void {
      if (disposed) return
      disposed = true
      unpatchFetch?.()
      stopClientRequests()
      stopXhr?.()
      stopWebSockets?.()
      if (activeInterception() === handle) setActiveInterception(undefined)
    },
    fetchReplaced: () => unpatchFetch !== undefined && !disposed && globalThis.fetch !== ownFetch,
  }
  setActiveInterception(handle)
  return handle
}

/** Intercepts the global `XMLHttpRequest` (jsdom, happy-dom) with @mswjs/interceptors 0.41. */
function interceptXhr(onRequest: (args: InterceptedRequest) => Promise<void>): () => void {
  const require = createRequire(import.meta.url)
  const { XMLHttpRequestInterceptor } = require('@mswjs/interceptors/XMLHttpRequest') as {
    XMLHttpRequestInterceptor: new () => { on(event: 'request', listener: typeof onRequest): unknown; apply(): void; dispose(): void }
  }
  const interceptor = new XMLHttpRequestInterceptor()
  interceptor.on('request', onRequest)
  interceptor.apply()
  return () => interceptor.dispose()
}
