import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { RequestHandler, WebSocketHandler } from 'msw'
import { createHarness, type HarnessApi } from '../harness/harness-api.js'
import { closeEventStreams } from '../admin/dashboard.js'
import { bodyLimitOf, createInstance, LISTENER_DEFAULTS, TEST_DEFAULTS, type Instance } from '../config/instance.js'
import { localUrlOf } from './address.js'
import { listenerHandler, middlewareHandler } from './compose.js'
import { notContinued } from '../forward/body.js'
import { answerClientError, answerConnect, answerExpectation, headerGetter } from './wire.js'
import type { MockyardOptions } from '../config/options.js'
import { attachContract } from '../check/contract.js'
import { DEFAULT_SESSION_LIMIT } from '../harness/sessions.js'
import { createSocketServer } from './websocket.js'
import { logRefused, stalledStream } from './node-handler.js'


export function packageInfo(): { name: string; description: string; version: string } {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; description: string; version: string }
  return { name: pkg.name, description: pkg.description, version: pkg.version }
}

/** The test-harness side every handle offers: the request log and overrides (defined once in src/harness). */
export type { HarnessApi }

export function harnessOf(instance: Instance): HarnessApi {
  return createHarness(() => instance)
}

export interface RunningServer extends HarnessApi {
  /** `http://HOST:PORT`, with a loopback host when bound to all interfaces. */
  readonly url: string
  readonly port: number
  readonly host: string
  /** The `node:http` server. */
  readonly server: Server
  /**
   * Stops accepting connections, closes idle keep-alive connections, lets responses in flight
   * finish (their latency included) for up to `graceMs` (default 100 ms; the CLI gives 10 s on
   * Ctrl-C). Then a request still waiting on its latency is answered at once, as at a reset, and
   * what is left (a forwarded request, an upload) is cut. Open streams and hung requests are not
   * in flight: they end at once.
   */
  stop(options?: { graceMs?: number }): Promise<void>
}

/** How long a connection may stay open without sending a byte (node's own `headersTimeout`). */
export const SILENT_CONNECTION_MS = 60_000

/** How long requests in flight may take to finish when the CLI stops (SIGINT, SIGTERM). */
export const STOP_GRACE_MS = 10_000

/** After the grace, how long the requests answered at once have to be written before every connection closes. */
const ANSWER_WAITING_MS = 200

/** Starts a `node:http` listener over an instance (`silentMs`: how long a connection may send nothing, shortened by tests). */
export async function listen(instance: Instance, host: string, port: number, { silentMs = SILENT_CONNECTION_MS } = {}): Promise<RunningServer> {
  const limit = bodyLimitOf(instance)
  const info = packageInfo()
  const handle = listenerHandler(instance, { limit, rootInfo: () => info })
  // A missing Host is answered by the handler (a 400 JSON), not by node's bare 400.
  const server = createServer(
    {
      requireHostHeader: false,
      // Only a WebSocket upgrade upgrades: `Upgrade: h2c` (curl --http2, Java's HttpClient) is
      // answered over HTTP/1.1 as the request it also is. Node 22.21 and 24.9 read this option;
      // older ones refuse such upgrades with a 400 (websocket.ts).
      shouldUpgradeCallback: (req: IncomingMessage) => (req.headers.upgrade ?? '').toLowerCase() === 'websocket',
    } as Parameters<typeof createServer>[0],
    (req: IncomingMessage, res: ServerResponse) => handle(req, res),
  )
  server.keepAliveTimeout = 5000
  // Bytes that are not HTTP get a JSON 400 too (docs/behaviour.md, "Requests on the wire").
  server.on('clientError', answerClientError)
  // A tunnel request (`CONNECT host:443`) gets a JSON 400 too, not a silently dropped connection.
  server.on('connect', answerConnect)
  // An `Expect` other than 100-continue: a JSON 417, not node's bare one.
  // The CORS headers of the 417 are the engine's, as on every answer the listener builds.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now()
    answerExpectation(req, res, (response) => instance.engine.finish(response, { headers: headerGetter(req) }))
    logRefused(instance, req.method ?? 'GET', req.url ?? '/', 417, 'the Expect header cannot be met', started)
  })
  // `Expect: 100-continue` with a declared body over `limit`: the 413 comes instead of the 100.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) notContinued.add(req)
    else res.writeContinue()
    handle(req, res)
  })
  // Every open connection, for stop(): one whose request has not fully arrived is not in flight.
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    // A connection that sends nothing at all is closed after a while: node's headersTimeout
    // starts with the first byte, so without this any local process could hold sockets for good.
    const silent = setTimeout(() => socket.bytesRead === 0 && socket.destroy(), silentMs)
    silent.unref()
    socket.once('close', () => {
      clearTimeout(silent)
      sockets.delete(socket)
    })
  })
  // WebSocket upgrades on the same port (docs/behaviour.md, "WebSocket"): an upgraded connection
  // is no HTTP connection any more; stop() closes it with a close frame.
  const webSockets = createSocketServer(instance, { limit, maxSockets: instance.options.sessions?.limit ?? DEFAULT_SESSION_LIMIT })
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.delete(socket)
    webSockets.handle(req, socket, head)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  let stopping: Promise<void> | undefined
  return {
    ...harnessOf(instance),
    url: localUrlOf(host, address),
    port: address.port,
    host,
    server,
    stop({ graceMs = 100 } = {}) {
      stopping ??= new Promise<void>((resolve) => {
        // docs/behaviour.md, "The dashboard": its event streams are not requests to wait for.
        closeEventStreams(instance)
        // Sockets first, so they close with 1001 (going away), not the 1012 of a reset.
        webSockets.close(graceMs)
        // Open streams and hung requests are not work in flight (docs/behaviour.md, "Faults",
        // "Streams and Server-Sent Events"): every session's lifetime ends now, not after graceMs.
        instance.endOpen()
        // Keep-alive connections close as soon as they are idle; responses in flight (latency
        // included) get `graceMs`, then their connections go too. A connection whose request has
        // not fully arrived (a head still being sent, a client that opened a socket and waits)
        // has nothing in flight: it closes at once too, so it cannot hold the stop for `graceMs`.
        const sweep = setInterval(() => closeWaiting(server, sockets), 20)
        // The grace is over: a request still waiting on its latency is answered now (as at a
        // reset), not cut off; what is still open a moment later (a request forwarded to a back
        // end that does not answer, an upload) is cut.
        let cut: NodeJS.Timeout | undefined
        const force = setTimeout(() => {
          instance.answerWaiting()
          cut = setTimeout(() => server.closeAllConnections(), ANSWER_WAITING_MS)
          cut.unref()
        }, graceMs)
        force.unref()
        server.close(() => {
          clearInterval(sweep)
          clearTimeout(force)
          clearTimeout(cut)
          resolve()
        })
        closeWaiting(server, sockets)
      }).then(() => instance.close())
      return stopping
    },
  }
}

/** Closes the connections with no response under way: idle keep-alive ones, and those whose request head has not fully arrived. */
function closeWaiting(server: Server, sockets: Set<Socket>): void {
  server.closeIdleConnections()
  for (const socket of sockets) {
    // node sets `_httpMessage` once a request reaches the handler, until its response is sent.
    const response = (socket as { _httpMessage?: unknown })._httpMessage
    // A stream's client that stopped reading: the stop ended the stream, and what is still
    // buffered would wait for that client for the whole grace (docs/behaviour.md, "Streams").
    if (response == null || stalledStream(response as ServerResponse)) socket.destroy()
  }
}

/**
 * Starts a real HTTP listener for tests: latency 0, host 127.0.0.1, a random port, no live
 * reload, quiet logs (all overridable by the options).
 *
 * @example
 * const server = await startMockServer({ routes: 'mocks/routes.json' })
 * const res = await fetch(`${server.url}/v1/users`)
 * await server.stop()
 */
export async function startMockServer(options: MockyardOptions | string = {}): Promise<RunningServer> {
  const instance = await createInstance(options, TEST_DEFAULTS)
  await attachContract(instance)
  return listen(instance, instance.options.host ?? '127.0.0.1', instance.options.port ?? 0)
}

export type Middleware = ((req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void) &
  HarnessApi & {
    /** Stops watching files. */
    close(): Promise<void>
  }

/** Wraps an instance as connect-style middleware. */
export function middlewareOf(instance: Instance): Middleware {
  const limit = bodyLimitOf(instance)
  const handle = middlewareHandler(instance, { limit })
  const middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
    handle(req, res, next)
  }
  return Object.assign(middleware, harnessOf(instance), { close: () => instance.close() })
}

/**
 * Connect-style middleware for express, connect or a Vite dev server: answers configured
 * routes and calls `next()` for everything else. Latency 250 ms and live reload by default.
 *
 * @example
 * const app = express()
 * app.use('/mock', await createMiddleware({ routes: 'mocks/routes.json', latency: 0 }))
 */
export async function createMiddleware(options: MockyardOptions | string = {}): Promise<Middleware> {
  const instance = await createInstance(options, LISTENER_DEFAULTS)
  await attachContract(instance)
  return middlewareOf(instance)
}

/**
 * msw request handlers for the given config (options first: `handlers`, then the routes), for
 * your own `setupServer` or `setupWorker`. Unmatched requests fall through. msw's
 * `resetHandlers()` restarts their sequences.
 *
 * @example
 * const server = setupServer(...(await createHandlers({ routes: 'mocks/routes.json' })))
 */
export async function createHandlers(options: MockyardOptions | string = {}): Promise<Array<RequestHandler | WebSocketHandler>> {
  const instance = await createInstance(options, TEST_DEFAULTS)
  const { MockyardHandler } = await import('../msw/index.js')
  return [...instance.handlers, new MockyardHandler(instance.engine)]
}
