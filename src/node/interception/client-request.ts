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
 * it. Code that kept a reference to a stand-in (`const { get } = require('node:http')`) keeps
 * being intercepted, because a stand-in always calls what the module holds now.
 *
 * @see https://github.com/mswjs/interceptors/blob/v0.41.0/src/interceptors/ClientRequest/index.ts
 */
import http from 'node:http'
import https from 'node:https'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { closeParsersWithSocket } from './client-request-parsers.js'

/** What the interceptor emits for each request (the shape of @mswjs/interceptors' `request` event). */
export interface InterceptedRequest {
  request: Request
  controller: { respondWith(response: Response): void; errorWith(error?: Error): void }
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
 *
 * @example
 * const stop = interceptClientRequests(async ({ request, controller }) => {
 *   controller.respondWith(new Response('hi'))
 * })
 * // http.get('http://api.test/') is answered 'hi' (the interceptor loads on this first call)
 * stop()
 */
export function interceptClientRequests(onRequest: (args: InterceptedRequest) => Promise<void>): () => void {
  const original = {
    ClientRequest: http.ClientRequest,
    http: { request: http.request, get: http.get },
    https: { request: https.request, get: https.get },
  }
  let interceptor: InstanceType<ClientRequestModule['ClientRequestInterceptor']> | undefined
  let disposed = false

  const restoreOriginals = () => {
    http.ClientRequest = original.ClientRequest
    http.request = original.http.request
    http.get = original.http.get
    https.request = original.https.request
    https.get = original.https.get
  }

  /** Loads and applies the interceptor (once); afterwards the modules hold its functions. */
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
      closeParsersWithSocket(getRawRequest(args.request))
      return onRequest(args)
    })
    interceptor.apply()
    syncBuiltinESMExports()
  }

  const standIn = (module: typeof http | typeof https, name: Patched) =>
    function (this: unknown, ...args: unknown[]) {
      activate()
      return (module[name] as (...args: unknown[]) => unknown).apply(this, args)
    }

  http.request = standIn(http, 'request') as typeof http.request
  http.get = standIn(http, 'get') as typeof http.get
  https.request = standIn(https, 'request') as typeof https.request
  https.get = standIn(https, 'get') as typeof https.get
  const clientRequest: typeof http.ClientRequest = new Proxy(original.ClientRequest, {
    construct(_target, args, newTarget) {
      activate()
      const current = http.ClientRequest
      // `new http.ClientRequest()` builds the current class; a subclass keeps its own prototype.
      return Reflect.construct(current, args, newTarget === clientRequest ? current : newTarget) as object
    },
  })
  http.ClientRequest = clientRequest
  // `import { get } from 'node:http'` bindings only follow the patched module objects after this.
  syncBuiltinESMExports()

  return () => {
    if (disposed) return
    disposed = true
    if (interceptor) interceptor.dispose()
    else restoreOriginals()
    syncBuiltinESMExports()
  }
}
