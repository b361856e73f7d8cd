/// <reference types="node" preserve="true" />
/**
 * `mockyard/node-test`: in-process mocks for Node's test runner (`node --test`). No port:
 * `fetch`, Node's `http`/`https` and a global `XMLHttpRequest` are intercepted for requests to
 * any host.
 */
import { after, afterEach, before, beforeEach } from 'node:test'
import { setupWithRunner, type MockServerHandle, type SetupOptions } from '../runners/setup.js'

export type { MockServerHandle, SetupOptions }

/**
 * Registers `node:test` hooks (`before`, `beforeEach`, `afterEach`, `after`) in the file, or in
 * the `describe` it is called in, that serve the given config in process: the same options, handle
 * and rules as `setupMockServer` of `mockyard/vitest` (docs/behaviour.md, "Test runners"). A
 * request nothing answers fails the test that made it, with the explanation, once: after the
 * file's own `afterEach` hooks ran.
 *
 * @example
 * import { test } from 'node:test'
 * import assert from 'node:assert/strict'
 * import { setupMockServer } from 'mockyard/node-test'
 *
 * const mocks = setupMockServer({ routes: 'mocks/routes.json' })
 *
 * test('lists users', async () => {
 *   assert.equal((await fetch('http://api.test/v1/users')).status, 200)
 *   mocks.expectCalled('GET v1/users', 1)
 * })
 */
export function setupMockServer(options: SetupOptions | string = {}): MockServerHandle {
  // The tests begun and not yet ended: more than one when a suite runs with `concurrency`.
  const running = new Set<unknown>()
  // What a test fails with after it ended (its requests nothing answered), raised once its
  // afterEach hooks all ran: node:test runs no further afterEach hook of a test after one throws,
  // and setupMockServer()'s, declared first, would skip the file's own.
  const failures = new Map<object, unknown>()
  // The tests whose `after` hook raises it: a test whose beforeEach did not get that far fails in afterEach.
  const deferred = new WeakSet<object>()
  beforeEach((context) => {
    running.add(context)
    // A test's `after` hooks run after every afterEach hook, and still fail the test.
    const test = context as { after?: (fn: () => void) => void }
    if (typeof test.after !== 'function') return
    test.after(() => {
      if (!failures.has(context)) return
      const failure = failures.get(context)
      failures.delete(context)
      throw failure
    })
    deferred.add(context)
  })
  return setupWithRunner<{ error?: unknown }>(options, {
    name: 'node:test',
    // Without isolation every file runs in one process, and file-level hooks all go to its root.
    twiceHint:
      'Under node --test --test-isolation=none all test files share one process, so each file\'s setupMockServer() is active at once: run with isolation (the default), or put each file\'s call and its tests inside a describe() block of their own.',
    beforeAll: (fn) => before(fn),
    // node:test runs afterEach hooks in the order declared: the reset waits for the next test.
    beforeEach: (fn) => beforeEach(() => fn()),
    // The hook's context is the test's: `error` is what the test failed with, if it did.
    afterEach: (fn) =>
      afterEach((context) => {
        try {
          fn(context as { error?: unknown })
        } catch (failure) {
          // Raised by the test's `after` hook (above), past the file's own afterEach hooks.
          if (!deferred.has(context)) throw failure
          failures.set(context, failure)
        } finally {
          running.delete(context)
        }
      }),
    concurrent: (context) => running.size > 1 && running.has(context),
    concurrentBy: 'a describe() or test() with the concurrency option',
    afterAll: (fn) => after(fn),
    testErrors: (context) => {
      // node:test wraps what the test threw (ERR_TEST_FAILURE, the same message, the thrown error
      // as its cause) and prints the cause: only the thrown error is the test's own.
      const error = context.error as { code?: unknown; cause?: unknown } | undefined | null
      if (error === undefined || error === null) return []
      return [error.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error]
    },
  })
}
