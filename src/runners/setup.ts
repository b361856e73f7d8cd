/**
 * `setupMockServer()` once for every test runner: Vitest (`mockyard/vitest`), Jest
 * (`mockyard/jest`) and Node's test runner (`mockyard/node-test`) hand in their hooks, and get
 * the same options, the same handle, the same per-test reset and the same failure of a test that
 * made a request nothing answers (docs/behaviour.md, "Test runners").
 */
import { formatMessage } from '../core/errors.js'
import { createInstance, type Instance } from '../config/instance.js'
import { LISTENER_ONLY_OPTIONS, noEffectWarning, type MockyardOptions } from '../config/options.js'
import { createHarness, type HarnessApi } from '../harness/harness-api.js'
import { RouteUsage, unusedRoutesWarning } from '../harness/route-usage.js'
import { interceptInstance, type InstanceInterception } from '../node/intercept-instance.js'
import { InterceptionActiveError } from '../node/interception/index.js'
import { unmatchedFailure } from '../harness/test-failures.js'
import { attachContract } from '../check/contract.js'

/** The handle `setupMockServer()` returns: the harness API, per test. */
export interface MockServerHandle extends HarnessApi {
  /** The loaded instance (after `beforeAll`). */
  readonly instance: Instance | undefined
}

/** `setupMockServer()`'s options: mockyard's options, and what only a test runner has. */
export interface SetupOptions extends MockyardOptions {
  /**
   * After the last test of the file (of the `describe` it is called in), warn once about the
   * route and method keys no test used, as `[mockyard] 2 routes were not used by any test ...`.
   */
  reportUnused?: boolean
}

/** What a runner lends the setup: its hooks, and what its current test already failed with. */
export interface RunnerHooks<Context> {
  /** The runner's name, for messages (`Vitest`, `Jest`, `node:test`). */
  name: string
  beforeAll(fn: () => Promise<void>): void
  /** The hook fails the test it ran after when `fn` throws. */
  afterEach(fn: (context: Context) => void): void
  afterAll(fn: () => Promise<void>): void
  /** The errors the current test failed with so far, so an explanation is not repeated. */
  testErrors?(context: Context): unknown[] | undefined
  /** The runner's own way into a second active call, said after the usual causes (node:test's `--test-isolation=none`). */
  twiceHint?: string
  /**
   * Whether the test just ended ran at once with others of the file (Vitest's
   * `describe.concurrent`, node:test's `concurrency`): their resets clear each other's state.
   */
  concurrent?(context: Context): boolean
  /** How the runner's tests come to run at once, for the warning (`describe.concurrent or test.concurrent`). */
  concurrentBy?: string
  /**
   * The runner runs `afterEach` hooks in the order they were declared (Jest, node:test), so
   * setupMockServer()'s, declared first, runs before the user's: the reset then waits for the
   * next test's `beforeEach` (or the end of the file), so that the user's `afterEach` still sees
   * the test's log and overrides, and its requests do not count in the next test.
   */
  beforeEach?(fn: () => void): void
  /**
   * Tests the runner gives no `beforeEach`/`afterEach` hooks (Jest's `test.concurrent`): how many
   * the setup's block has, and how many of them have ended so far. Their state is reset, and what
   * they sent with no mock reported, when the next test starts or the file ends.
   */
  hookless?(): { total: number; ended: number }
  /**
   * The name of the hookless test a request comes from (asked in the request's own async
   * context), or undefined: what it sends with no mock is then reported as that test's, never as
   * a failure of a test running beside it.
   */
  hooklessOwner?(): string | undefined
}

/**
 * Registers the runner's hooks that serve the given config in process: load and intercept before
 * all tests, reset after each (sequences, per-test handlers and routes, the notifications store,
 * the request log), stop after all — safely, also when loading failed. Latency defaults to 0
 * here, and a request nothing answers fails the test that made it, with the explanation, once
 * (`onUnhandledRequest: 'error'`; `'warn'` and `'bypass'` let it through to the network).
 *
 * @example
 * export function setupMockServer(options: SetupOptions | string = {}) {
 *   return setupWithRunner(options, { name: 'Jest', beforeAll, afterEach: (fn) => afterEach(() => fn(undefined)), afterAll })
 * }
 */
export function setupWithRunner<Context>(options: SetupOptions | string, runner: RunnerHooks<Context>): MockServerHandle {
  const reportUnused = typeof options === 'object' && options !== null && options.reportUnused === true
  let instance: Instance | undefined
  let interception: InstanceInterception | undefined
  const usage = reportUnused ? new RouteUsage() : undefined
  const need = () => {
    if (!instance) throw new Error(formatMessage('the mock server is not started yet. Call the handle inside tests or hooks, after setupMockServer() has run its beforeAll.'))
    return instance
  }

  runner.beforeAll(async () => {
    // Warnings belong on the test output (a typo'd route key, a missing data file, an unhandled
    // request under 'warn'): each printed once per load, on stderr, which the runner shows with
    // the test. Data files are still read on first use, so a test file loads fast.
    instance = await createInstance(mockyardOptionsOf(options), { latency: 0, watch: false, logLevel: 'warn', readOnFirstUse: true })
    // Options given inline only (a config file's may serve the CLI too).
    const ignored = typeof options === 'object' && options !== null ? noEffectWarning(options, LISTENER_ONLY_OPTIONS, 'setupMockServer()', 'requests are answered in process, with no port, no HTTP listener and no admin endpoints', 'serve the mocks with startMockServer() for a listener') : undefined
    if (ignored) instance.logger.warn(ignored)
    await attachContract(instance)
    try {
      // Tests that run at once share the state: one's reset does not end the others' requests.
      const failsLateRequests = () => !runsAtOnce
      interception = interceptInstance(instance, runner.hooklessOwner ? { owner: runner.hooklessOwner, failsLateRequests } : { failsLateRequests })
    } catch (error) {
      if (!(error instanceof InterceptionActiveError)) throw error
      throw new Error(
        formatMessage(
          'setupMockServer() is already intercepting requests in this test file: it was called twice (a setup file and the test file both call it?), and only one can be active at a time. Keep one call: either in the setup file (export its handle for the tests), or in each test file.' +
            (runner.twiceHint ? ` ${runner.twiceHint}` : ''),
        ),
      )
    }
    const hookless = runner.hookless?.().total ?? 0
    if (hookless > 0) {
      runsAtOnce = true
      instance.logger.warn(
        formatMessage(
          `${hookless === 1 ? 'a test of this file is' : `${hookless} tests of this file are`} test.concurrent, and Jest runs no beforeEach or afterEach hooks for those: setupMockServer() cannot reset between them (they share overrides, use() handlers, sequences and the request log with the tests running beside them), and a request nothing answers there fails no test of its own (it is reported as a warning once they end). Use test() for the tests that use the mocks, or give them a file of their own.`,
        ),
      )
    }
  })

  let warnedConcurrent = false
  /** Whether tests of the file run at once (seen at the end of the first such test, or Jest's `test.concurrent` at load). */
  let runsAtOnce = false
  runner.afterEach((context) => {
    if (!warnedConcurrent && instance && runner.concurrent?.(context)) {
      warnedConcurrent = true
      runsAtOnce = true
      instance.logger.warn(
        formatMessage(
          `tests of this file run at once (${runner.concurrentBy ?? 'concurrently'}), and setupMockServer()'s state is the file's: the reset after each test clears the overrides, use() handlers, sequences and request log of the tests still running. Run the tests that use the mocks one after another, or give each its own file.`,
        ),
      )
    }
    if (runner.beforeEach) ended = true
    else reset()
    // An explanation the test already failed with (the request's own error, or its cause) is
    // not repeated: each is shown once, here only when the app swallowed the error.
    const violations = interception?.takeViolations() ?? []
    warnOwned()
    const failure = unmatchedFailure(interception?.takeUnmatched() ?? [], runner.testErrors?.(context), { document: documentName(), messages: violations })
    if (failure) throw failure
  })

  /** The validate document's name, for messages. */
  const documentName = () => instance?.trafficCheck?.document ?? 'the validate document'
  /**
   * What was sent with no mock (or against the validate document) when no test is left to fail:
   * the failure's text as a warning, saying when it was sent (`when` in place of "in this test").
   */
  const warnUnmatched = (explanations: string[], violations: string[], when: string) => {
    const failure = unmatchedFailure(explanations, undefined, { document: documentName(), messages: violations })
    if (failure) instance?.logger.warn(failure.message.replaceAll(' in this test:', ` ${when}:`))
  }

  /** What hookless tests sent with no mock: a warning naming each test (no test of theirs is left to fail). */
  const warnOwned = () => {
    const byOwner = new Map<string, string[]>()
    for (const { owner, explanation } of interception?.takeOwned() ?? []) byOwner.set(owner, [...(byOwner.get(owner) ?? []), explanation])
    for (const [owner, explanations] of byOwner) warnUnmatched(explanations, [], `in the test.concurrent test "${owner}" (Jest runs no afterEach hook for those, so it fails no test)`)
  }

  /** The reset after a test: what it used is counted, and its sequences, overrides and log go. */
  const reset = () => {
    usage?.add(instance?.log.list() ?? [])
    instance?.reset()
  }
  // Set when a test ended and its reset waits for the next test (runners with `beforeEach`).
  let ended = false
  /**
   * The reset deferred past the user's afterEach hooks. What those hooks sent with no mock (or
   * against the validate document) fails no test (the test is over): it is a warning.
   */
  const resetAfterHooks = () => {
    if (resetAfterHookless()) {
      ended = false
      return
    }
    if (!ended) return
    ended = false
    reset()
    warnUnmatched(interception?.takeUnmatched() ?? [], interception?.takeViolations() ?? [], 'after a test ended (in an afterEach hook)')
  }
  runner.beforeEach?.(resetAfterHooks)

  // How many of the tests that get no hooks had ended at the last reset.
  let hooklessEnded = 0
  /**
   * The reset owed to tests that got no hooks (Jest's `test.concurrent`) once some of them have
   * ended: their state goes, and what they sent with no mock is a warning (no test of theirs is
   * left to fail). True when it reset.
   */
  const resetAfterHookless = (): boolean => {
    const ended = runner.hookless?.().ended ?? 0
    if (ended <= hooklessEnded) return false
    hooklessEnded = ended
    reset()
    warnOwned()
    warnUnmatched(interception?.takeUnmatched() ?? [], interception?.takeViolations() ?? [], 'in a test.concurrent test (Jest runs no afterEach hook for those, so it fails no test)')
    return true
  }

  runner.afterAll(async () => {
    resetAfterHooks()
    warnOwned()
    // After a failed start (setupMockServer() called twice) there is nothing to report on.
    if (usage && instance && interception) {
      // The routes as loaded: the overrides of the last test are gone with its reset.
      const warning = unusedRoutesWarning(usage.unused(instance.routes()), 'in this file')
      if (warning) instance.logger.warn(warning)
    }
    await interception?.dispose()
    await instance?.close()
    interception = undefined
  })

  return {
    ...createHarness(need, 'in this test'),
    get instance() {
      return instance
    },
  }
}

/** The options mockyard itself reads: `reportUnused` is the runner setup's own. */
function mockyardOptionsOf(options: SetupOptions | string): MockyardOptions | string {
  if (typeof options !== 'object' || options === null || !('reportUnused' in options)) return options
  const { reportUnused: _, ...rest } = options
  return rest
}
