/**
 * A loaded mockyard instance served in process: `startInterception()` wired to
 * `instance.respond()` (extra handlers, then the routes, with the request log), with the
 * instance's explanations for requests nothing answers. `setupMockServer()` (mockyard/vitest)
 * uses it; `bench/in-process.mjs` measures it.
 */
import { toFetchResponse } from '../core/fetch-request.js'
import { Unanswered } from '../harness/unhandled.js'
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
export function interceptInstance(instance: Instance): InstanceInterception {
  const strategy = instance.options.onUnhandledRequest ?? 'error'
  const unmatched: string[] = []
  const interception = startInterception({
    strategy,
    async resolve(request) {
      const outcome = await instance.respond(surfaceRequestFromFetch(request))
      if (outcome.kind === 'route') return toFetchResponse(outcome.response)
      if (outcome.kind === 'handler') return outcome.response
      // Nothing answers in process: recorded as such (status 0), then failed, warned or let
      // through, with this request's own explanation (docs/behaviour.md, "Unmatched requests").
      outcome.settle({ status: 0 })
      if (strategy === 'error') unmatched.push(outcome.explanation())
      return new Unanswered(outcome.explanation)
    },
    warn: (message) => instance.logger.warn(message),
    onWebSocket: (connection) => answerSocket(instance, connection, strategy, unmatched),
  })
  return {
    dispose: () => interception.dispose(),
    takeUnmatched: () => unmatched.splice(0),
  }
}

/**
 * A WebSocket the global `WebSocket` opened in process (docs/behaviour.md, "WebSocket"): the
 * route's steps drive it; where no route has steps it follows `onUnhandledRequest` as a request
 * would (recorded with status 0; 'error' fails the socket, the others let it reach the network).
 */
function answerSocket(instance: Instance, { client, server }: InterceptedSocket, strategy: string, unmatched: string[]): void {
  const opened = instance.openSocket({ url: client.url.href, logHeaders: [] })
  if (opened.kind === 'unmatched') {
    opened.settle(0)
    if (strategy === 'error') {
      unmatched.push(opened.explanation())
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
