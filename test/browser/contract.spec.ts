/**
 * The shared behaviour contract (test/contract/cases.ts) in real Chromium: every request is a
 * `fetch` of a page whose service worker runs `startWorker()` over the examples fixture (served
 * by the Vite plugin, latency 0; the routes' own latency still applies), overrides included
 * (`useRoutes` on the page's handle).
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test'
import { runContract, type Framework, type Surface } from '../contract/cases.js'
import { APP_URL, openApp, pageFetch, projectOf } from './support.js'

let browser: Browser | undefined
let appUrl: string | undefined

/** Playwright Test as the contract's framework: the hooks get the worker's browser. */
const playwright: Framework = {
  describe: (name, body) => test.describe(name, body),
  it: (name, body) => {
    test(name, () => body())
  },
  beforeAll: (body) =>
    test.beforeAll(async ({ browser: current }, info) => {
      browser = current
      appUrl = APP_URL(info)
      await body()
    }),
  afterAll: (body) => test.afterAll(() => body()),
  beforeEach: (body) => test.beforeEach(() => body()),
  expect,
}

async function createSurface(): Promise<Surface> {
  if (!browser || !appUrl) throw new Error('no browser: create() runs inside beforeAll')
  const context: BrowserContext = await browser.newContext()
  const page: Page = await context.newPage()
  await openApp(page, '', appUrl)
  return {
    fetch: (path, init) => pageFetch(page, path, init),
    reset: () => page.evaluate(() => (window as unknown as { mocks: { reset(): void } }).mocks.reset()),
    // The page's own startWorker handle, as an app's tests call it.
    useRoutes: (routes) => page.evaluate((layer) => (window as unknown as { mocks: { useRoutes(routes: unknown): void } }).mocks.useRoutes(layer), routes),
    close: () => context.close(),
    opaqueRedirects: true,
    // fetch drops Origin and Access-Control-Request-*; the CORS cases check what a page gets.
    forbiddenHeadersDropped: true,
  }
}

test.describe('browser worker', () => {
  // One page for the whole contract, in one Playwright worker, in order.
  test.describe.configure({ mode: 'default' })
  runContract('browser (startWorker in a Vite app, Chromium)', createSurface, playwright, { overrides: true })
})
