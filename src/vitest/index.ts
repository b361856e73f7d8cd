/// <reference types="node" preserve="true" />
// The declarations name Node types (node:http, NodeJS): an app's browser-only tsconfig (`types: ["vite/client"]`) needs this to compile them.
/**
 * `mockyard/vitest`: in-process mocks for Vitest. No port: `fetch`, Node's `http`/`https` and a
 * global `XMLHttpRequest` are intercepted for requests to any host.
 */
import { afterAll, afterEach, beforeAll, beforeEach, type TestContext } from 'vitest'
import { setupWithRunner, type MockServerHandle, type SetupOptions } from '../runners/setup.js'

export type { MockServerHandle, SetupOptions }

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
 *   mocks.expectCalled('GET v1/claims', 1)
 * })
 */
export function setupMockServer(options: SetupOptions | string = {}): MockServerHandle {
  // The tests begun and not yet ended: more than one when tests of the file run at once.
  const running = new Set<unknown>()
  beforeEach((context) => {
    running.add(context.task)
  })
  return setupWithRunner<TestContext>(options, {
    name: 'Vitest',
    beforeAll,
    afterAll,
    afterEach: (fn) =>
      afterEach((context) => {
        try {
          fn(context)
        } finally {
          running.delete(context.task)
        }
      }),
    // Vitest's own record of the test's errors, read before the hook's error is added to it.
    testErrors: (context) => context.task.result?.errors,
    concurrent: (context) => context.task.concurrent === true && running.size > 1,
    concurrentBy: 'describe.concurrent, test.concurrent or sequence.concurrent',
  })
}
