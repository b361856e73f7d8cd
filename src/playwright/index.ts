/// <reference types="node" preserve="true" />
// The declarations name Node types (node:http, NodeJS): an app's browser-only tsconfig (`types: ["vite/client"]`) needs this to compile them.
/**
 * `mockyard/playwright`: start the listener in Playwright's `globalSetup`, and give each test
 * its own session on it. Does not import Playwright itself: pass the fixtures to your `test`.
 */
import { randomUUID } from 'node:crypto'
import type { BrowserContext, Fixtures, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions } from '@playwright/test'
import type { MockyardOptions } from '../config/options.js'
import { startMockServer } from '../listener/server.js'
import { createAdminClient, ListenerUnreachableError, SESSION_HEADER, UNREACHABLE, type AdminClient, type LoggedRequest } from './admin-client.js'
import { installedPlaywrightVersion, missingUrlMessage } from './missing-url.js'
import { SESSION_COOKIE } from '../harness/session.js'
import { unmatchedFailure } from '../harness/test-failures.js'
import { isUnhandledStrategy, type UnhandledRequestStrategy } from '../harness/unhandled.js'
import { formatMessage } from '../core/errors.js'

export { createAdminClient, ListenerUnreachableError, SESSION_HEADER, type AdminClient, type LoggedRequest, type RequestFilter } from './admin-client.js'
export type { Coverage, OperationCoverage, Violation } from '../harness/traffic-check.js'

/** The environment variable that carries the listener's URL to the tests. */
export const URL_VARIABLE = 'MOCKYARD_URL'

/**
 * Makes a Playwright `globalSetup` function: it starts the listener (latency 0, 127.0.0.1, a
 * random port unless the options say otherwise), publishes its URL as `MOCKYARD_URL` and returns
 * the teardown that stops it. Playwright starts `webServer` entries before global setups, so an
 * app started by `webServer` cannot read this URL: for that, run the CLI as a `webServer` entry
 * instead (docs/playwright.md).
 *
 * @example
 * // global-setup.ts
 * import { globalSetup } from 'mockyard/playwright'
 * export default globalSetup('mocks/config.js')
 *
 * // playwright.config.ts
 * export default defineConfig({ globalSetup: './global-setup.ts' })
 */
export function globalSetup(options: MockyardOptions | string = {}): () => Promise<() => Promise<void>> {
  return async () => {
    const server = await startMockServer(options)
    process.env[URL_VARIABLE] = server.url
    return async () => {
      await server.stop()
    }
  }
}

/** What the `mockyard` fixture gives each test: its own session on the shared listener. */
export interface MockyardFixture extends AdminClient {
  /** The session id this test's requests carry. */
  readonly session: string
}

/** The test-scoped fixtures `mockyardFixtures()` adds. */
export interface MockyardTestFixtures {
  mockyard: MockyardFixture
}

/** What `mockyardFixtures()` takes. */
export interface MockyardFixturesOptions {
  /** The listener's URL; default `MOCKYARD_URL`. */
  url?: string
  /**
   * What a request of the test's session that nothing answered (no route, handler or proxy) does
   * to the test, once it ended: `'error'` (the default) fails it with the explanations, `'warn'`
   * prints them, `'bypass'` does neither. The listener answers such a request `404` either way.
   */
  onUnhandledRequest?: UnhandledRequestStrategy
}

/** Whether a record is a request nothing answered (a WebSocket message the steps did not take aside: those fail no test in process either). */
function unanswered(record: LoggedRequest): boolean {
  return record.matched === false && record.explanation !== undefined && record.direction === undefined
}

/**
 * The error a test fails with after it ended for its session's requests nothing answered: the
 * text `setupMockServer()` fails a test with, its hint in the fixture's words (there is no
 * `mocks.use()` here).
 */
function fixtureFailure(explanations: readonly string[], errors: unknown[]): Error | undefined {
  return unmatchedFailure(explanations, errors, undefined, FIXTURE_HINT)
}

/** What to do, in the fixture's words (there is no `mocks.use()` here). */
const FIXTURE_HINT = "Add a route (to the routes file, or mockyard.useRoutes() in the test) or a handler, or set onUnhandledRequest to 'warn' or 'bypass' (mockyardFixtures({ onUnhandledRequest }))."


/**
 * Fixtures for `test.extend()`: `mockyard` (an admin client bound to a fresh session) and a
 * `page` whose requests carry that session, so parallel workers never see each other's
 * sequences, overrides or request log. A request of the session that nothing answered fails the
 * test after it ended, with the explanations (`onUnhandledRequest: 'error'`, the default; `'warn'`
 * prints them, `'bypass'` lets them be). The session is reset after the test. It is sent as the
 * `x-mockyard-session` header to the listener's origin, and as the `mockyard-session` cookie for
 * the listener's origin and the app's (`baseURL`): navigations, server components and server
 * actions carry it to an app server, where `propagateSessions()` passes it on.
 *
 * The listener's URL is `options.url` when given, else `MOCKYARD_URL` (set by `globalSetup()`,
 * or by a `webServer` entry whose `wait.stdout` captures `(?<mockyard_url>...)`).
 *
 * @example
 * import { test as base, expect } from '@playwright/test'
 * import { mockyardFixtures } from 'mockyard/playwright'
 *
 * const test = base.extend(mockyardFixtures()) // or mockyardFixtures({ url: 'http://127.0.0.1:9999' })
 * test('shows the users', async ({ page, mockyard }) => {
 *   await mockyard.useRoutes({ 'v1/users': { file: 'users-empty.json' } })
 *   await page.goto('/')
 *   expect(await mockyard.requests({ path: '/v1/users' })).toHaveLength(1)
 * })
 */
export function mockyardFixtures(
  options: MockyardFixturesOptions = {},
): Fixtures<MockyardTestFixtures, {}, PlaywrightTestArgs & PlaywrightTestOptions, PlaywrightWorkerArgs & PlaywrightWorkerOptions> {
  const strategy = options.onUnhandledRequest ?? 'error'
  if (!isUnhandledStrategy(strategy)) {
    throw new TypeError(formatMessage(`mockyardFixtures({ onUnhandledRequest }) must be "error", "warn" or "bypass", got ${JSON.stringify(strategy)}. Pick one of "error", "warn" and "bypass".`))
  }
  return {
    mockyard: async ({}, use, testInfo) => {
      const url = options.url ?? process.env[URL_VARIABLE]
      if (!url) throw new Error(missingUrlMessage(installedPlaywrightVersion()))
      const client = createAdminClient(url, { session: randomUUID() }) as MockyardFixture
      await use(client)
      // What the session sent that nothing answered, read before the reset clears the log.
      let explanations: string[] = []
      try {
        if (strategy !== 'bypass') explanations = (await client.requests()).filter(unanswered).map((record) => record.explanation!)
        await client.reset()
      } catch (error) {
        // An unreachable listener the test already failed on is said once, not again here.
        if (error instanceof ListenerUnreachableError && testInfo.errors.some((shown) => shown.message?.includes(UNREACHABLE))) return
        throw error
      }
      if (strategy === 'warn') {
        for (const explanation of explanations) console.warn(explanation)
        return
      }
      // Each explanation once: not again when the test already failed with it.
      const failure = fixtureFailure(explanations, testInfo.errors)
      if (failure) throw failure
    },
    page: async ({ page, mockyard, baseURL }, use) => {
      await carrySession(page.context(), mockyard, baseURL)
      await use(page)
    },
  }
}

/** Loopback names are one host (`localhost`, `127.0.0.1`, `[::1]`), as in propagateSessions(). */
function sameOrigin(a: URL, b: URL): boolean {
  const host = (url: URL) => (['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ? 'loopback' : url.hostname)
  return a.protocol === b.protocol && host(a) === host(b) && (a.port || a.protocol) === (b.port || b.protocol)
}

/**
 * Gives the browser context the test's session: the header on requests to the listener's
 * origin only (a custom header to other origins would make them answer CORS preflights), and
 * the cookie for the listener's and the app's origins. A header the page sets itself wins.
 */
async function carrySession(context: BrowserContext, mockyard: MockyardFixture, baseURL: string | undefined): Promise<void> {
  const listener = new URL(mockyard.url)
  const origins = [listener.origin]
  if (baseURL) {
    try {
      origins.push(new URL(baseURL).origin)
    } catch {
      // Not a URL: Playwright says so itself at the first navigation.
    }
  }
  await context.addCookies(origins.map((url) => ({ name: SESSION_COOKIE, value: mockyard.session, url, sameSite: 'Lax' as const })))
  await context.route(
    (url) => sameOrigin(url, listener),
    async (route) => {
      const headers = route.request().headers()
      await route.fallback({ headers: { ...headers, [SESSION_HEADER]: headers[SESSION_HEADER] ?? mockyard.session } })
    },
  )
}
