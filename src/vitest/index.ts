/// <reference types="node" preserve="true" />
// The declarations name Node types (node:http, NodeJS): an app's browser-only tsconfig (`types: ["vite/client"]`) needs this to compile them.
/**
 * `mockyard/vitest`: in-process mocks for Vitest. No port: `fetch`, Node's `http`/`https` and a
 * global `XMLHttpRequest` are intercepted for requests to any host.
 */
import { afterAll, afterEach, beforeAll } from 'vitest'
import { formatMessage } from '../core/errors.js'
import { createInstance, type Instance } from '../config/instance.js'
import type { MockyardOptions } from '../config/options.js'
import { createHarness, type HarnessApi } from '../harness/harness-api.js'
import { interceptInstance, type InstanceInterception } from '../node/intercept-instance.js'
import { InterceptionActiveError } from '../node/interception/index.js'
import { attachContract } from '../check/contract.js'

/** The handle `setupMockServer()` returns: the harness API, per test. */
export interface MockServerHandle extends HarnessApi {
  /** The loaded instance (after `beforeAll`). */
  readonly instance: Instance | undefined
}

/** The messages of the errors a test failed with, and of their causes. */
function shownMessages(errors: ReadonlyArray<unknown> | undefined): string[] {
  const texts: string[] = []
  const seen = new Set<unknown>()
  const visit = (error: unknown) => {
    if (typeof error !== 'object' || error === null || seen.has(error)) return
    seen.add(error)
    const { message, cause } = error as { message?: unknown; cause?: unknown }
    if (typeof message === 'string') texts.push(message)
    visit(cause)
  }
  for (const error of errors ?? []) visit(error)
  return texts
}

/**
 * A client that wraps the request's error and copies its message (axios) would have Vitest print
 * the explanation twice, as the error and as its `Caused by`: the cause is dropped from the
 * test's reported errors where its explanation is in the message already.
 */
function dropRepeatedCauses(errors: unknown[] | undefined, explanations: readonly string[]): void {
  if (explanations.length === 0) return
  for (const error of errors ?? []) {
    let current = error as { message?: unknown; cause?: unknown } | undefined
    for (let depth = 0; current && typeof current === 'object' && depth < 10; depth++) {
      const cause = current.cause as { message?: unknown; cause?: unknown } | undefined
      const message = current.message
      if (cause && typeof cause === 'object' && typeof message === 'string' && typeof cause.message === 'string') {
        const repeated = explanations.some((text) => message.includes(text) && (cause.message as string).includes(text))
        if (repeated) {
          current.cause = cause.cause
          continue
        }
      }
      current = cause
    }
  }
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
  let interception: InstanceInterception | undefined
  const need = () => {
    if (!instance) throw new Error(formatMessage('the mock server is not started yet. Call the handle inside tests or hooks, after setupMockServer() has run its beforeAll.'))
    return instance
  }

  beforeAll(async () => {
    // Warnings belong on the test output (a typo'd route key, a missing data file, an unhandled
    // request under 'warn'): each printed once per load, on stderr, which Vitest shows with the
    // test. Data files are still read on first use, so a test file loads fast.
    instance = await createInstance(options, { latency: 0, watch: false, logLevel: 'warn', readOnFirstUse: true })
    await attachContract(instance)
    try {
      interception = interceptInstance(instance)
    } catch (error) {
      if (!(error instanceof InterceptionActiveError)) throw error
      throw new Error(
        formatMessage(
          'setupMockServer() is already intercepting requests in this test file: it was called twice (a setup file and the test file both call it?), and only one can be active at a time. Keep one call: either in the setup file (export its handle for the tests), or in each test file.',
        ),
      )
    }
  })

  afterEach((context) => {
    instance?.reset()
    // An explanation the test already failed with (the request's own error, or its cause) is
    // not repeated: each is shown once, here only when the app swallowed the error.
    const unmatched = interception?.takeUnmatched() ?? []
    const errors = context.task.result?.errors
    dropRepeatedCauses(errors, unmatched)
    const shown = shownMessages(errors)
    const messages = unmatched.filter((message) => !shown.some((text) => text.includes(message)))
    const violations = interception?.takeViolations() ?? []
    const parts: string[] = []
    if (messages.length > 0) {
      parts.push(`${messages.length === 1 ? 'a request' : `${messages.length} requests`} had no mock in this test:\n${messages.join('\n')}\nAdd a route or a handler (mocks.use()), or set onUnhandledRequest to 'warn' or 'bypass'.`)
    }
    if (violations.length > 0) {
      // docs/behaviour.md, "Traffic checked against a contract": fails the test as an unmatched request does.
      const document = instance?.trafficCheck?.document ?? 'the validate document'
      parts.push(`${violations.length === 1 ? 'a request or its answer breaks' : `${violations.length} violations of`} ${document} in this test:\n${violations.join('\n')}\nFix the mock's data file or the app's request, or the document if it is wrong.`)
    }
    if (parts.length > 0) {
      const error = new Error(formatMessage(parts.join('\n')))
      // The failure is the explanation; where in mockyard it was thrown is no help.
      error.stack = `${error.name}: ${error.message}`
      throw error
    }
  })

  afterAll(async () => {
    await interception?.dispose()
    await instance?.close()
    interception = undefined
  })

  return {
    ...createHarness(need),
    get instance() {
      return instance
    },
  }
}
