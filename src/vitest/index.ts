/**
 * `mockyard/vitest`: in-process mocks for Vitest. No port: `fetch`, Node's `http`/`https` and a
 * global `XMLHttpRequest` are intercepted for requests to any host.
 */
import { afterAll, afterEach, beforeAll } from 'vitest'
import { toFetchResponse } from '../core/fetch.js'
import { formatMessage } from '../core/errors.js'
import { createInstance, surfaceRequestFromFetch, type Instance } from '../node/instance.js'
import type { MockyardOptions } from '../node/options.js'
import type { HarnessApi } from '../node/server.js'
import { startInterception, type Interception } from '../node/intercept.js'

/** The handle `setupMockServer()` returns: the harness API, per test. */
export interface MockServerHandle extends HarnessApi {
  /** The loaded instance (after `beforeAll`). */
  readonly instance: Instance | undefined
}

/**
 * Registers Vitest hooks that serve the given config in process: load and intercept before all
 * tests, reset after each (sequences, per-test handlers and routes, the notifications store, the
 * request log), stop after all — safely, also when loading failed. Latency defaults to 0 here,
 * and a request nothing answers fails the test that made it, with the explanation
 * (`onUnhandledRequest: 'error'`; `'warn'` and `'bypass'` let it through to the network).
 *
 * @example
 * import { setupMockServer } from 'mockyard/vitest'
 *
 * const mocks = setupMockServer({ routes: 'mocks/routes.json' })
 *
 * it('lists open claims', async () => {
 *   const res = await fetch('http://api.test/v1/claims?status=open')
 *   expect((await res.json()).length).toBe(2)
 *   expect(mocks.requests({ path: '/v1/claims' })).toHaveLength(1)
 * })
 */
export function setupMockServer(options: MockyardOptions | string = {}): MockServerHandle {
  let instance: Instance | undefined
  let interception: Interception | undefined
  const unmatched: string[] = []
  const explanations = new Map<string, string>()
  const need = () => {
    if (!instance) throw new Error(formatMessage('the mock server is not started yet. Call the handle inside tests or hooks, after setupMockServer() has run its beforeAll.'))
    return instance
  }

  beforeAll(async () => {
    instance = await createInstance(options, { latency: 0, watch: false, logLevel: 'error' })
    const strategy = instance.options.onUnhandledRequest ?? 'error'
    const loaded = instance
    interception = startInterception({
      strategy,
      async resolve(request) {
        const outcome = await loaded.respond(surfaceRequestFromFetch(request))
        if (outcome.kind === 'route') return toFetchResponse(outcome.response)
        if (outcome.kind === 'handler') return outcome.response
        explanations.set(`${request.method} ${request.url}`, outcome.explanation())
        return undefined
      },
      explain(request) {
        const key = `${request.method} ${request.url}`
        const explanation = explanations.get(key) ?? formatMessage(`no route answers ${key}.`)
        explanations.delete(key)
        if (strategy === 'error') unmatched.push(explanation)
        return explanation
      },
      warn: (message) => loaded.logger.warn(message),
    })
  })

  afterEach(() => {
    instance?.reset()
    explanations.clear()
    if (unmatched.length > 0) {
      const messages = unmatched.splice(0)
      throw new Error(
        formatMessage(`${messages.length === 1 ? 'a request' : `${messages.length} requests`} had no mock in this test:\n${messages.join('\n')}\nAdd a route or a handler (mocks.use()), or set onUnhandledRequest to 'warn' or 'bypass'.`),
      )
    }
  })

  afterAll(async () => {
    await interception?.dispose()
    await instance?.close()
    interception = undefined
  })

  return {
    requests: (filter) => need().log.list(filter),
    waitForRequest: (predicate, waitOptions) => need().log.waitFor(predicate, waitOptions),
    use: (...handlers) => need().use(...handlers),
    useRoutes: (routes) => need().useRoutes(routes),
    reset: () => need().reset(),
    get instance() {
      return instance
    },
  }
}
