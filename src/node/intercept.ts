/**
 * In-process request interception for test runners (Vitest, node:test): global `fetch`, Node's
 * `http`/`https` clients (`http.get`, `http.request`, `new http.ClientRequest`: what axios's
 * Node adapter uses) and a global `XMLHttpRequest` when one exists (jsdom, happy-dom).
 *
 * Built on `@mswjs/interceptors` 0.41: flat heap, and fetch answered several times faster than
 * through msw 3's `setupServer`; `@mswjs/interceptors` 0.45 (msw 3's) used on its own retains
 * ~40 KB per request. Numbers: `bench/in-process.mjs`.
 *
 * This file only imports packages and uses erasable TypeScript syntax, so that Node's type
 * stripping can load it directly (`bench/in-process.mjs`).
 */
import { syncBuiltinESMExports } from 'node:module'
import { BatchInterceptor, getRawRequest } from '@mswjs/interceptors'
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
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
  /** Restores fetch, http/https and XMLHttpRequest. Idempotent. */
  dispose(): Promise<void> | void
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
    throw new Error('mockyard: an interception is already active; dispose() it before starting another one')
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

  const interceptor = new BatchInterceptor({
    name: 'mockyard-interception',
    interceptors: [new ClientRequestInterceptor(), new FetchInterceptor(), new XMLHttpRequestInterceptor()],
  })

  const explainSafely = async (request: Request): Promise<string> => {
    try {
      return await explain(copyOf(request))
    } catch (error) {
      return `${defaultExplain(request)} (explain() failed: ${error instanceof Error ? error.message : String(error)})`
    }
  }

  interceptor.on('request', async ({ request, controller }) => {
    closeParsersWithSocket(request)
    // `request` itself stays unread so that it can still go to the network.
    const response = await resolve(copyOf(request))
    if (response !== undefined) {
      controller.respondWith(response)
      return
    }
    if (strategy === 'error') {
      controller.errorWith(new TypeError(await explainSafely(request)))
    } else if (strategy === 'warn') {
      const message = await explainSafely(request)
      try {
        warn(message)
      } catch (error) {
        rethrowLater(error)
      }
    }
    // 'warn' and 'bypass': returning without an answer lets the request through.
    if (onUnhandled) {
      try {
        onUnhandled(copyOf(request))
      } catch (error) {
        rethrowLater(error)
      }
    }
  })

  interceptor.apply()
  // `import { get } from 'node:http'` bindings only follow the patched module objects after this.
  syncBuiltinESMExports()

  let disposed = false
  const handle = {
    dispose(): void {
      if (disposed) return
      disposed = true
      interceptor.dispose()
      syncBuiltinESMExports()
      if (active === handle) active = undefined
    },
  }
  active = handle
  return handle
}
