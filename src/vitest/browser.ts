/**
 * `mockyard/vitest` in Vitest's browser mode (the `browser` export condition): the same
 * `setupMockServer`, answered by msw's service worker in the test page. The route table and the
 * worker script come from the `mockyard/vite` plugin in the Vitest config, as in an app.
 */
import { afterAll, afterEach, beforeAll, type TestContext } from 'vitest'
import { startWorker, type MockyardWorker, type StartWorkerOptions } from '../browser/start-worker.js'
import { formatMessage } from '../core/errors.js'
import type { HarnessApi } from '../harness/harness-api.js'
import { expectCalledIn, RouteUsage, unusedRoutesWarning } from '../harness/route-usage.js'
import { unmatchedFailure } from '../harness/test-failures.js'

/** The handle `setupMockServer()` returns in the browser: the harness API, per test. */
export interface BrowserMockServerHandle extends Omit<HarnessApi, 'coverage'> {
  /** The running worker (after `beforeAll`). */
  readonly worker: MockyardWorker | undefined
}

/** `setupMockServer()`'s options in the browser: the worker's, and `reportUnused`. */
export interface BrowserSetupOptions extends StartWorkerOptions {
  /** After the last test of the file, warn once about the routes and methods no test used. */
  reportUnused?: boolean
}

/** What the worker prints for a request it fails: the test fails with it instead (once). */
const FAILED_REQUEST = 'The request fails (onUnhandledRequest: "error").'

/**
 * Registers Vitest hooks that start msw's worker in the test page with the route table of the
 * `mockyard/vite` plugin: before all tests, reset after each, stopped after all. Latency is 0 and
 * a request nothing answers fails, and fails the test that made it with the explanation, as in
 * Node. Options given as a routes path are the plugin's business: a string here is refused.
 *
 * @example
 * // vitest.config.ts: plugins: [mockyard('mocks/routes.json')], test.browser: { enabled: true, ... }
 * import { setupMockServer } from 'mockyard/vitest'
 *
 * const mocks = setupMockServer()
 *
 * it('lists users', async () => {
 *   expect((await fetch('/v1/users')).status).toBe(200)
 *   mocks.expectCalled('GET v1/users', 1)
 * })
 */
export function setupMockServer(options: BrowserSetupOptions | string = {}): BrowserMockServerHandle {
  if (typeof options === 'string') {
    throw new TypeError(
      formatMessage(`setupMockServer('${options}') runs in a browser here (Vitest's browser mode), where files cannot be read: give the routes to the mockyard/vite plugin in the Vitest config (plugins: [mockyard('${options}')]) and call setupMockServer() without them.`),
    )
  }
  const { reportUnused = false, ...workerOptions } = options
  const strategy = workerOptions.onUnhandledRequest ?? 'error'
  const usage = reportUnused ? new RouteUsage() : undefined
  let worker: MockyardWorker | undefined
  const need = () => {
    if (!worker) throw new Error(formatMessage('the mock server is not started yet. Call the handle inside tests or hooks, after setupMockServer() has run its beforeAll.'))
    return worker
  }
  const logger = workerOptions.logger ?? console

  beforeAll(async () => {
    worker = await startWorker({
      latency: 0,
      ...workerOptions,
      onUnhandledRequest: strategy,
      logger: {
        info: () => {},
        warn: (message) => logger.warn(message),
        error: (message) => {
          if (!String(message).endsWith(FAILED_REQUEST)) logger.error(message)
        },
      },
    })
  })

  afterEach((context: TestContext) => {
    const records = worker?.requests() ?? []
    usage?.add(records)
    worker?.reset()
    if (strategy !== 'error') return
    const explanations = records.filter((record) => !record.matched && record.status === 0 && record.explanation).map((record) => record.explanation!)
    const failure = unmatchedFailure(explanations, context.task.result?.errors)
    if (failure) throw failure
  })

  afterAll(async () => {
    if (usage && worker) {
      const routes = Object.assign({}, ...worker.config.sources.map((source) => source.routes))
      const warning = unusedRoutesWarning(usage.unused(routes), 'in this file')
      if (warning) logger.warn(warning)
    }
    await worker?.stop()
    worker = undefined
  })

  const call =
    <K extends keyof HarnessApi>(name: K) =>
    (...args: Parameters<HarnessApi[K]>) =>
      (need()[name as keyof MockyardWorker] as (...a: unknown[]) => unknown)(...args)
  return {
    requests: call('requests') as HarnessApi['requests'],
    waitForRequest: call('waitForRequest') as HarnessApi['waitForRequest'],
    use: call('use') as HarnessApi['use'],
    reset: call('reset') as HarnessApi['reset'],
    expectCalled: function expectCalled(route: string, count?: number) {
      try {
        expectCalledIn(need().requests(), route, count, 'in this test')
      } catch (error) {
        // The failure points at the test's line, not into mockyard.
        if (error instanceof Error) Error.captureStackTrace?.(error, expectCalled)
        throw error
      }
    },
    useRoutes: call('useRoutes') as HarnessApi['useRoutes'],
    get worker() {
      return worker
    },
  }
}
