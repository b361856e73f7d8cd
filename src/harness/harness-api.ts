/**
 * The test-harness API, defined once: the request log (`requests`, `waitForRequest`), per-test
 * handlers and routes (`use`, `useRoutes`) and `reset`. The listener, the middleware,
 * `MockServer`, the Vitest handle and the browser worker offer it in process (`createHarness`);
 * the Playwright admin client offers the same calls over HTTP (`RemoteHarness`), with its
 * records derived from `RequestRecord` (`LoggedRequest`).
 */
import type { RequestHandler, WebSocketHandler } from 'msw'
import type { RoutesConfig } from '../core/types.js'
import type { RequestFilter, RequestLog, RequestRecord, Violation } from './request-log.js'
import type { Coverage } from './traffic-check.js'
import { expectCalledIn } from './route-usage.js'
import { formatMessage } from '../core/errors.js'
import { isPromise } from '../core/types.js'

/** How long `waitForRequest` waits (default 5,000 ms). */
export interface WaitOptions {
  timeout?: number
}

/** The harness calls a test makes in process. */
export interface HarnessApi {
  /** The recorded requests, oldest first, optionally filtered. */
  requests(filter?: RequestFilter): RequestRecord[]
  /** Resolves with the first request (recorded or to come) that fits; rejects after `timeout` ms (default 5000). */
  waitForRequest(predicate: (record: RequestRecord) => unknown, options?: WaitOptions): Promise<RequestRecord>
  /** Adds msw handlers in front of the others until the next reset. */
  use(...handlers: Array<RequestHandler | WebSocketHandler>): void
  /** Overrides routes (an object, or a routes.json path) until the next reset: they replace what they answer (docs/behaviour.md, "Overrides"). */
  useRoutes(routes: RoutesConfig | string): void
  /** Sequences, overrides, per-test handlers and the request log back to the start. */
  reset(): void
  /**
   * The `validate` document's operations answered and never answered since the start (a reset
   * keeps the counts); throws when `validate` is unset (docs/behaviour.md, "Traffic checked
   * against a contract").
   */
  coverage(): Coverage
  /**
   * Asserts how many requests a route had since the last reset (in a test runner: in this test):
   * `expectCalled('GET v1/users', 2)`; without a count, at least one. Takes a route key or a path,
   * with or without a method. Throws an explanation (the requests made, counted per route).
   */
  expectCalled(route: string, count?: number): void
}

/**
 * A request as the admin endpoint `GET /__mockyard/requests` reports it: the record's fields,
 * with `null` where the record has none (JSON has no `undefined`).
 */
export type LoggedRequest = Pick<RequestRecord, 'method' | 'url' | 'headers' | 'body' | 'status' | 'session' | 'time' | 'durationMs'> & {
  [K in 'route' | 'entry' | 'file' | 'fault']-?: NonNullable<RequestRecord[K]> | null
} & {
  /** A streamed answer's state (`open`, `ended`); absent for any other answer. */
  stream?: RequestRecord['stream']
} & {
  /** Where the exchange breaks the `validate` document; present only when it does. */
  violations?: Violation[]
} & Pick<RequestRecord, 'kind' | 'direction' | 'data'> & {
  /**
   * A WebSocket record's: whether a step took it (an unmatched client message: false, with its
   * explanation). Over the admin endpoint, an HTTP request nothing answered has them too
   * (`matched: false` and its explanation), which the Playwright fixtures fail the test with.
   */
  matched?: boolean
  explanation?: string
}

/**
 * A record as the admin endpoint reports it.
 *
 * @example
 * send(res, 200, { requests: log.list().map(loggedRequestOf) })
 */
export function loggedRequestOf(record: RequestRecord): LoggedRequest {
  return {
    method: record.method,
    url: record.url,
    headers: record.headers,
    body: record.body,
    route: record.route ?? null,
    entry: record.entry ?? null,
    file: record.file ?? null,
    fault: record.fault ?? null,
    status: record.status,
    session: record.session,
    time: record.time,
    durationMs: record.durationMs,
    ...(record.stream ? { stream: record.stream } : {}),
    ...(record.violations ? { violations: record.violations } : {}),
    // A WebSocket record says what it is (docs/behaviour.md, "WebSocket"); HTTP records stay as they were.
    ...(record.kind !== undefined ? { kind: record.kind } : {}),
    ...(record.direction !== undefined ? { direction: record.direction } : {}),
    ...(record.data !== undefined ? { data: record.data } : {}),
    ...(record.kind !== undefined ? { matched: record.matched } : {}),
    ...(record.kind !== undefined && record.explanation !== undefined ? { explanation: record.explanation } : {}),
  }
}

/**
 * The log calls and `reset` over HTTP: the same calls, each answered with a promise, over the
 * records the admin endpoint sends.
 */
export interface RemoteHarness {
  /** The recorded requests, oldest first; with a filter, those that fit it. */
  requests(filter?: RequestFilter): Promise<LoggedRequest[]>
  /** Resolves with the first request that fits; rejects after `timeout` ms (default 5,000). */
  waitForRequest(predicate: (request: LoggedRequest) => unknown, options?: WaitOptions): Promise<LoggedRequest>
  /** Sequences, overrides and the request log back to the start. */
  reset(): Promise<void>
}

/** What the in-process harness runs on: a pipeline, or an instance (which adds `useRoutes` from files). */
export interface HarnessTarget {
  readonly log: RequestLog
  use(...handlers: Array<RequestHandler | WebSocketHandler>): void
  useRoutes?(routes: RoutesConfig | string): void
  reset(): void
  coverage?(): Coverage
}

/**
 * The one in-process implementation of the harness API. `target` is read at each call, so a
 * handle can exist before what it runs on (the Vitest handle, before `beforeAll`). `scope` says
 * when the log was started, in `expectCalled`'s explanations (`in this test` for test runners).
 *
 * @example
 * const harness = createHarness(() => instance)
 * harness.requests({ path: '/v1/users' })
 */
export function createHarness(target: () => HarnessTarget, scope = 'since the last reset'): HarnessApi {
  return {
    requests: (filter) => target().log.list(filter),
    waitForRequest: (predicate, options) => target().log.waitFor(decidesAtOnce(predicate), options),
    use: (...handlers) => target().use(...handlers),
    useRoutes(routes) {
      const current = target()
      if (!current.useRoutes) throw new TypeError('useRoutes() is not available on this surface.')
      current.useRoutes(routes)
    },
    reset: () => target().reset(),
    coverage() {
      const current = target()
      if (!current.coverage) throw new TypeError('coverage() is not available on this surface.')
      return current.coverage()
    },
    expectCalled,
  }

  function expectCalled(route: string, count?: number): void {
    try {
      const { log } = target()
      expectCalledIn(log.list(), route, count, scope, { limit: log.limit, dropped: log.droppedSince() })
    } catch (error) {
      // The failure points at the test's line, not into mockyard (V8: Node, Chromium).
      if (error instanceof Error) (Error as { captureStackTrace?: (error: Error, above: unknown) => void }).captureStackTrace?.(error, expectCalled)
      throw error
    }
  }
}

/**
 * A `waitForRequest` predicate that must decide at once: a promise it returns (an `async`
 * predicate, as Playwright's own `waitForRequest` takes) would count as true for the first
 * record, so it is refused with a message saying what to write instead.
 */
export function decidesAtOnce<R>(predicate: (record: R) => unknown): (record: R) => unknown {
  return (record) => {
    const decided = predicate(record)
    if (isPromise(decided)) throw new TypeError(formatMessage('the waitForRequest predicate returned a promise (an async function?): it must return true or false at once. Read what it needs from the record it is given, without await.'))
    return decided
  }
}
