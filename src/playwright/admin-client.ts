import { formatMessage, withoutPrefix } from '../core/errors.js'
import { matchesFilter, type RequestFilter, type RequestRecord } from '../harness/request-log.js'
import { expectCalledIn } from '../harness/route-usage.js'
import type { RoutesConfig } from '../core/types.js'
import { SENDABLE_SESSION, SESSION_HEADER } from '../harness/session.js'
import { decidesAtOnce, type LoggedRequest, type RemoteHarness, type WaitOptions } from '../harness/harness-api.js'
import type { Coverage } from '../harness/traffic-check.js'

export type { RequestFilter } from '../harness/request-log.js'
export type { LoggedRequest }

export { SESSION_HEADER }

/** A typed client for the listener's admin endpoints, usable from any Node test. */
export interface AdminClient extends RemoteHarness {
  /** The listener's URL. */
  readonly url: string
  /** The session this client acts on (every call carries `x-mockyard-session`), if any. */
  readonly session: string | undefined
  /**
   * The recorded requests, oldest first; with a filter, those that fit it (`method`, `path` as an
   * exact path or a RegExp, `route`, `session`), as the Vitest handle's `requests(filter)`.
   */
  requests(filter?: RequestFilter): Promise<LoggedRequest[]>
  /** Polls the request log until a request fits, or rejects after `timeout` ms (default 5,000). */
  waitForRequest(predicate: (request: LoggedRequest) => unknown, options?: WaitOptions & { interval?: number }): Promise<LoggedRequest>
  /** The routes in force, as loaded plus overrides. */
  routes(): Promise<RoutesConfig>
  /** Overrides routes (for the session, or for everyone) until the next reset: they replace what they answer, never merge. */
  useRoutes(routes: RoutesConfig): Promise<RoutesConfig>
  /** The `validate` document's operations answered and never answered (`GET /__mockyard/coverage`); rejects when the listener runs without `--validate`. */
  coverage(): Promise<Coverage>
  /**
   * Asserts how many requests a route had since the last reset (of this client's session, when it
   * has one), as the in-process handles' `expectCalled`: `await mocks.expectCalled('GET v1/users', 2)`;
   * without a count, at least one. Rejects with the requests made, counted per route.
   */
  expectCalled(route: string, count?: number): Promise<void>
}

/** The variable the Playwright helpers read the listener's URL from (`URL_VARIABLE` in ./index.ts). */
const URL_VARIABLE = 'MOCKYARD_URL'

/**
 * The listener did not answer at all (refused, unknown host, reset): said once, with where the URL
 * came from and what to do, instead of the raw `fetch failed` and its cause.
 */
export class ListenerUnreachableError extends Error {
  override name = 'ListenerUnreachableError'
}

/** Why a request to the listener failed, in a few words (`connect ECONNREFUSED 127.0.0.1:9`). */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause
  const inner = cause instanceof Error ? cause : error instanceof Error ? error : undefined
  if (inner instanceof AggregateError && inner.errors.length > 0) return reasonOf({ cause: inner.errors[0] })
  return inner?.message || (inner as NodeJS.ErrnoException | undefined)?.code || String(error)
}

/** How the message of a `ListenerUnreachableError` begins, after the prefix. */
export const UNREACHABLE = 'cannot reach '

function unreachable(url: string, error: unknown): ListenerUnreachableError {
  const named = process.env[URL_VARIABLE] !== undefined && url.replace(/\/+$/, '') === process.env[URL_VARIABLE].replace(/\/+$/, '') ? `${URL_VARIABLE}=${url}` : url
  const message = formatMessage(
    `${UNREACHABLE}${named}: ${reasonOf(error)}. Start the mock server before the tests (globalSetup() from mockyard/playwright, or the CLI as a webServer entry), and check that the URL is the one it printed ("mockyard listening on ...").`,
  )
  const failure = new ListenerUnreachableError(message)
  // The stack would only show mockyard's own frames.
  failure.stack = `${failure.name}: ${message}`
  return failure
}

async function call(url: string, listener: string, init: RequestInit): Promise<unknown> {
  let res: Response
  try {
    res = await fetch(url, init)
  } catch (error) {
    throw unreachable(listener, error)
  }
  const text = await res.text()
  if (!res.ok) {
    let message = text
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text
    } catch {
      // Not JSON: keep the text.
    }
    throw new Error(formatMessage(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${withoutPrefix(message)}`))
  }
  return text === '' ? undefined : JSON.parse(text)
}

/**
 * Creates a client for the admin endpoints of a running listener.
 *
 * @example
 * const admin = createAdminClient(process.env.MOCKYARD_URL!, { session: 'worker-1' })
 * await admin.useRoutes({ 'v1/flags': { file: 'flags-on.json' } })
 * const [first] = await admin.requests({ path: '/v1/users' }) // { method, url, route, entry, file, status, ... }
 */
export function createAdminClient(url: string, options: { session?: string } = {}): AdminClient {
  // A session travels as a header: one that cannot be sent (a test title with "—" or a newline)
  // is said here, not taken for a listener that cannot be reached at the first call.
  if (options.session !== undefined && options.session !== '' && !SENDABLE_SESSION.test(options.session)) {
    throw new TypeError(
      formatMessage(`session ${JSON.stringify(options.session.slice(0, 80))}: not a value a header can carry (visible ASCII, spaces inside). Use an ASCII name, or encodeURIComponent() it.`),
    )
  }
  const base = url.replace(/\/+$/, '') + '/__mockyard/'
  const headers: Record<string, string> = options.session ? { [SESSION_HEADER]: options.session } : {}
  const client: AdminClient = {
    url,
    session: options.session,
    async reset() {
      await call(base + 'reset', url, { method: 'POST', headers })
    },
    async requests(filter) {
      const all = ((await call(base + 'requests', url, { headers })) as { requests: LoggedRequest[] }).requests
      return filter ? all.filter((record) => matchesFilter(record, filter)) : all
    },
    async waitForRequest(predicate, { timeout = 5000, interval = 50 } = {}) {
      const deadline = Date.now() + timeout
      for (;;) {
        const found = (await client.requests()).find(decidesAtOnce(predicate))
        if (found) return found
        if (Date.now() >= deadline) {
          throw new Error(formatMessage(`no request fitting the predicate reached ${url} within ${timeout} ms. Check what was sent with requests(), or raise the timeout.`))
        }
        await new Promise((resolve) => setTimeout(resolve, interval))
      }
    },
    async routes() {
      return (await call(base + 'routes', url, { headers })) as RoutesConfig
    },
    async useRoutes(routes) {
      return (await call(base + 'routes', url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(routes) })) as RoutesConfig
    },
    async coverage() {
      return (await call(base + 'coverage', url, { headers })) as Coverage
    },
    async expectCalled(route, count) {
      // The admin endpoint's records have null where a record has nothing: the same rule reads both.
      const answer = (await call(base + 'requests', url, { headers })) as { requests: LoggedRequest[]; log?: { limit: number; dropped: number } }
      const records = answer.requests.map((record) => ({ ...record, route: record.route ?? undefined }) as unknown as RequestRecord)
      try {
        expectCalledIn(records, route, count, options.session ? 'in this session since its last reset' : 'since the last reset', answer.log)
      } catch (error) {
        // The failure points at the test's line, not into mockyard.
        if (error instanceof Error) Error.captureStackTrace(error, client.expectCalled)
        throw error
      }
    },
  }
  return client
}
