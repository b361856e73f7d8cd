/**
 * In-process WebSocket interception (docs/behaviour.md, "WebSocket"): the global `WebSocket`
 * (Node's, jsdom's or happy-dom's) is handed to @mswjs/interceptors' WebSocket interceptor,
 * the one msw's `ws.link` runs on. Loading it costs about 100 ms, so the global is first replaced
 * by a thin Proxy that loads and applies the interceptor when the first socket is constructed: a
 * test file that opens no WebSocket never pays for it. Clients that do not use the global
 * (the `ws` package, socket.io's Node client) are not intercepted.
 */
import { createRequire } from 'node:module'

/** The parts of the interceptor's client connection mockyard uses. */
export interface InterceptedClient {
  readonly url: URL
  readonly socket: EventTarget
  send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void
  close(code?: number, reason?: string): void
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void
  addEventListener(type: 'close', listener: (event: CloseEvent) => void): void
}

/** One intercepted connection: the client's side, and the real server's (connected only when the socket goes through). */
export interface InterceptedSocket {
  client: InterceptedClient
  server: { connect(): void }
}

interface WebSocketInterceptorLike {
  on(event: 'connection', listener: (connection: InterceptedSocket) => void | Promise<void>): unknown
  apply(): void
  dispose(): void
}

/**
 * Intercepts the global `WebSocket` (when there is one): each connection goes to `onConnection`,
 * which answers it on the client's side or connects it to the real server. Returns the undo.
 */
export function interceptWebSockets(onConnection: (connection: InterceptedSocket) => void | Promise<void>): () => void {
  const original = globalThis.WebSocket
  if (typeof original !== 'function') return () => {}
  let interceptor: WebSocketInterceptorLike | undefined
  const lazy = new Proxy(original, {
    construct(_target, args: ConstructorParameters<typeof WebSocket>) {
      if (interceptor === undefined) {
        // The interceptor wraps the real class, never this Proxy (its pass-through constructs the real one).
        globalThis.WebSocket = original
        const require = createRequire(import.meta.url)
        const { WebSocketInterceptor } = require('@mswjs/interceptors/WebSocket') as { WebSocketInterceptor: new () => WebSocketInterceptorLike }
        interceptor = new WebSocketInterceptor()
        interceptor.on('connection', onConnection)
        interceptor.apply()
      }
      return Reflect.construct(globalThis.WebSocket, args) as object
    },
  })
  globalThis.WebSocket = lazy
  return () => {
    interceptor?.dispose()
    if (globalThis.WebSocket === lazy) globalThis.WebSocket = original
  }
}
