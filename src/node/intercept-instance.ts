/**
 * A loaded mockyard instance served in process: `startInterception()` wired to
 * `instance.respond()` (extra handlers, then the routes, with the request log), with the
 * instance's explanations for requests nothing answers. `setupMockServer()` (mockyard/vitest)
 * uses it; `bench/in-process.mjs` measures it.
 */
import { setMaxListeners } from 'node:events'
import { toFetchResponse, truncatedResponse, untilAborted } from '../core/fetch-request.js'
import { isLoopbackName } from '../core/request-url.js'
import type { MockResponse } from '../core/build-response.js'
import { NetworkFault, terminated } from './interception/network-fault.js'
import { isPassthrough, PassedThrough, Unanswered } from '../harness/unhandled.js'
import { formatViolation } from '../harness/traffic-check.js'
import { isSocketHandler } from '../harness/handler-kinds.js'
import { surfaceRequestFromFetch, type Instance } from '../config/instance.js'
import { startInterception, type Interception } from './interception/index.js'
import type { InterceptedSocket } from './interception/websocket.js'
import { driveClient } from '../harness/websocket.js'

export interface InstanceInterception extends Interception {
  /**
   * The explanations of the requests failed under `onUnhandledRequest: 'error'` since the last
   * call, oldest first; the list starts empty again.
   */
  takeUnmatched(): string[]
  /**
   * The explanations of requests failed under `'error'` that `owner` (an option) named a test
   * for (Jest's `test.concurrent` tests, which get no `afterEach`), since the last call; the
   * list starts empty again. `takeUnmatched()` holds the others.
   */
  takeOwned(): Array<{ owner: string; explanation: string }>
  /**
   * The violations of the `validate` document since the last call, one line each (the request,
   * the file and JSON pointer, the message, the schema path), oldest first; the list starts empty again.
   */
  takeViolations(): string[]
}

/**
 * Intercepts fetch, http/https and XMLHttpRequest for any host and answers through `instance`.
 * A request nothing answers follows the instance's `onUnhandledRequest` (default `'error'`),
 * explained by the engine (why no route matched); `'warn'` goes to the instance's logger.
 *
 * @example
 * const instance = await createInstance({ routes: 'mocks/routes.json' }, { latency: 0, watch: false, logLevel: 'error' })
 * const interception = interceptInstance(instance)
 * // ... fetch('http://api.test/v1/users') is answered by the routes ...
 * interception.dispose()
 */
export interface InterceptInstanceOptions {
  /** The test a request comes from, for the tests a runner gives no hooks (see `takeOwned`). */
  owner?: () => string | undefined
  /**
   * Whether a request an http client made before a reset and that arrives after it fails as the
   * reset failed its test's (default: yes). Not when tests run at once: the reset of one is not
   * the end of the others, whose requests must still be answered.
   */
  failsLateRequests?: () => boolean
}

export function interceptInstance(instance: Instance, options: InterceptInstanceOptions = {}): InstanceInterception {
  const strategy = instance.options.onUnhandledRequest ?? 'error'
  const unmatched: string[] = []
  const owned: Array<{ owner: string; explanation: string }> = []
  /** Files an explanation: under the test `owner` names (asked in the request's own async context), else with the rest. */
  const fail = (explanation: string) => {
    const owner = options.owner?.()
    if (owner === undefined) unmatched.push(explanation)
    else owned.push({ owner, explanation })
  }
  const violations: string[] = []
  const interception = startInterception({
    strategy,
    async resolve(request) {
      const outcome = await instance.respond(surfaceRequestFromFetch(request))
      if (outcome.kind === 'route') {
        if (outcome.violations) {
          const exchange = { method: request.method.toUpperCase(), url: request.url, status: outcome.response.status, file: outcome.info.file, route: outcome.info.route }
          for (const violation of outcome.violations) violations.push(formatViolation(exchange, violation))
        }
        return outcome.response.fault === undefined ? toFetchResponse(outcome.response) : playFault(outcome.response, request, () => outcome.lifetime ?? instance.lifetime())
      }
      // msw's passthrough() from a use() handler: the request goes on to the network as sent.
      if (outcome.kind === 'handler') return isPassthrough(outcome.response) ? new PassedThrough() : outcome.response
      // Nothing answers in process: recorded as such (status 0), then failed, warned or let
      // through, with this request's own explanation (docs/behaviour.md, "Unmatched requests").
      outcome.settle({ status: 0 })
      const explanation = withReplacedFetchHint(interception, withLocalServerHint(request.url, outcome.explanation))
      if (strategy === 'error') fail(explanation())
      return new Unanswered(explanation)
    },
    warn: (message) => instance.logger.warn(message),
    // A request an http client made before a reset (its test's) and that arrives after it is that test's.
    lifetime: () => (options.failsLateRequests?.() === false ? undefined : instance.lifetime()),
    // msw's WebSocket handlers first: the `use()` ones of the current test (newest first), then the extra ones.
    onWebSocket: (connection) => answerSocket(instance, connection, strategy, fail, socketHandlersOf(instance.handlersInUse())),
  })
  return {
    dispose: () => interception.dispose(),
    fetchReplaced: () => interception.fetchReplaced(),
    takeUnmatched: () => unmatched.splice(0),
    takeOwned: () => owned.splice(0),
    takeViolations: () => violations.splice(0),
  }
}

/**
 * A fault in process (docs/behaviour.md, "Faults"): `reset` and `close` reject with a
 * `NetworkFault` (each client fails in its own way); `hang` stays pending until the request's
 * own signal aborts (its client's abort or timeout has failed it already) or the session's
 * lifetime ends (its reset, `close()`), which settles it as a reset; `truncate` answers with a
 * body that fails after its first half.
 */
async function playFault(response: MockResponse, request: Request, lifetimeOf: () => AbortSignal): Promise<Response> {
  switch (response.fault) {
    case 'reset':
    case 'close':
      throw new NetworkFault(response.fault)
    case 'hang': {
      const lifetime = lifetimeOf()
      // Every test's hung requests wait on one signal: no warning past ten.
      setMaxListeners(0, lifetime)
      const ended = await untilAborted([request.signal, lifetime])
      if (ended === lifetime) throw new NetworkFault('reset')
      // The client gave up and has its own error already: nothing more reaches it.
      return Response.error()
    }
    default:
      return truncatedResponse(response, terminated) ?? toFetchResponse(response)
  }
}

/**
 * msw's WebSocket handler (`ws.link(url).addEventListener('connection', ...)`), as msw 2 and 3
 * both have it: `run()` resolves with something truthy when the handler's URL matches the
 * connection (msw 3 and 2.x: the connection; older 2.x: `true`), after emitting its `connection`.
 */
interface SocketHandler {
  run(connection: InterceptedSocket, context?: object): Promise<unknown>
}

/** The WebSocket handlers among msw handlers. */
function socketHandlersOf(handlers: readonly unknown[]): SocketHandler[] {
  return handlers.filter((handler): handler is SocketHandler => isSocketHandler(handler) && typeof (handler as { run?: unknown }).run === 'function')
}

/**
 * A WebSocket the global `WebSocket` opened in process (docs/behaviour.md, "WebSocket"): msw's
 * WebSocket handlers first (every one whose URL matches runs, as under msw's own setupServer),
 * then the route's steps drive it; where neither answers, it follows `onUnhandledRequest` as a
 * request would (recorded with status 0; 'error' fails the socket, the others let it reach the
 * network).
 */
async function answerSocket(instance: Instance, connection: InterceptedSocket, strategy: string, fail: (explanation: string) => void, handlers: SocketHandler[]): Promise<void> {
  const { client, server } = connection
  if (handlers.length > 0) {
    const time = Date.now()
    let handled = false
    // In turn, as msw does: a handler that throws fails the socket (the interceptor closes it with 1011).
    for (const handler of handlers) if (await handler.run(connection)) handled = true
    if (handled) {
      instance.log.add({ time, method: 'GET', url: client.url.href, headers: [], body: null, session: '', durationMs: 0, status: 101, matched: true, entry: 'handler', kind: 'websocket' })
      return
    }
  }
  const opened = instance.openSocket({ url: client.url.href, logHeaders: [] })
  if (opened.kind === 'unmatched') {
    opened.settle(0)
    if (strategy === 'error') {
      fail(opened.explanation())
      // What a browser's socket does when nothing answers: an error event, then a close (1006).
      client.socket.dispatchEvent(new Event('error'))
      client.close(1006, 'no mock answers this WebSocket')
      return
    }
    if (strategy === 'warn') instance.logger.warn(opened.explanation())
    server.connect()
    return
  }
  driveClient(opened, client)
}

/**
 * An unanswered request to a server on this machine (`http://127.0.0.1:5173`, an app server a
 * test started) gets one more line: in process every host is answered by mockyard, and how to let
 * that server's requests through.
 */
/**
 * An explanation that says, when it is so, that `globalThis.fetch` was replaced after mockyard's
 * interception started: an msw `setupServer().listen()` after setupMockServer() puts its fetch in
 * front, and then its handlers and mockyard's routes do not see the same requests.
 */
function withReplacedFetchHint(interception: Interception, explanation: () => string): () => string {
  if (!interception.fetchReplaced()) return explanation
  return () =>
    `${explanation()}\nglobalThis.fetch was replaced after mockyard's interception started (an msw setupServer().listen() after setupMockServer(), or a mock of fetch): use one of the two for a test file, giving mockyard's routes to msw (createHandlers) or msw's handlers to mockyard (the handlers option, mocks.use()).`
}

function withLocalServerHint(url: string, explanation: () => string): () => string {
  const { hostname, port, origin } = new URL(url)
  // A host of this machine with a port: likely a server a test started.
  if (port === '' || !isLoopbackName(hostname)) return explanation
  return () =>
    `${explanation()}\nThe request went to ${origin}, a server on this machine: in process, mockyard answers every host. If it is your own server (one a test started), let its requests through: mocks.use(http.all('${origin}/*', () => passthrough())), with http and passthrough from msw.`
}
