/**
 * docs/browser.md, "What the worker answers", in Chromium: the dev server's own requests never
 * reach the routes (a catch-all route included); page loads and the page's static assets pass
 * without a warning unless a route under a literal path answers them; any other request no route
 * answers is warned about, or failed with `onUnhandledRequest: 'error'` (a `.json` or `.xml` path
 * included), and the warning of another origin's request names its full URL.
 */
import { expect, test, type Page } from '@playwright/test'
import type { MockyardWorker } from 'mockyard/browser'
import { collectConsole, openApp } from './support.js'

type RulesWindow = Window & { mocks: MockyardWorker; attempt(url: string, init?: RequestInit): Promise<string> }
const attempt = (page: Page, url: string, init?: RequestInit) => page.evaluate(([u, i]) => (window as unknown as RulesWindow).attempt(u as string, i as RequestInit | undefined), [url, init] as const)
const mockyardLines = (messages: string[]) => messages.filter((m) => m.includes('[mockyard]') && !m.includes('mocking '))

test.describe('what the worker answers', () => {
  test('a catch-all route leaves lazy modules, reloads and static assets to the page', async ({ page }) => {
    await openApp(page, '/rules.html?catch-all')
    const imported = await page.evaluate(() =>
      Promise.all(['/src/lazy.ts', '/src/lazy.ts?t=1'].map((path) => import(/* @vite-ignore */ path).then((m: { lazy: number }) => `ok ${m.lazy}`, (e: Error) => `failed: ${e.message}`))),
    )
    expect(imported).toEqual(['ok 42', 'ok 42'])
    // The routes still answer the page's calls, and a route under a literal path its images.
    expect(await attempt(page, '/v1/anything')).toBe('404 application/json; charset=utf-8')
    expect(await attempt(page, '/img/dot.svg')).toBe('200 image/svg+xml')
    expect(await attempt(page, '/rules.ts')).toMatch(/^200 (text|application)\/javascript/)
    const reloaded = await page.reload()
    expect(reloaded?.status()).toBe(200)
    expect(reloaded?.headers()['content-type']).toContain('text/html')
    await expect(page.locator('#status')).toHaveText('ready', { timeout: 20_000 })
    const paths = await page.evaluate(() => (window as unknown as RulesWindow).mocks.requests().map((r) => new URL(r.url).pathname))
    expect(paths).not.toContain('/rules.html')
  })

  test('a link to a route under a literal path still opens the mock (msw 3 hands page loads to the worker)', async ({ page }) => {
    test.skip(test.info().project.metadata.msw !== 'msw', 'msw 2 lets every page load go to the network')
    await openApp(page, '/rules.html?catch-all')
    const opened = await page.goto(new URL('/v1/report', page.url()).href)
    expect([opened?.status(), opened?.headers()['content-type'], await opened?.text()]).toEqual([200, 'application/json; charset=utf-8', '{"report":true}'])
  })

  test("onUnhandledRequest 'error' fails a data file's typo; static assets pass silently", async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page, '/rules.html?unhandled=error')
    expect(await attempt(page, '/v1/reprot.json')).toBe('failed: TypeError')
    expect(await attempt(page, '/v1/feed.xml')).toBe('failed: TypeError')
    expect(await attempt(page, '/v1/reprot', { headers: { accept: 'text/html' } })).toBe('failed: TypeError')
    expect(await attempt(page, '/v1/report.json')).toBe('200 application/json; charset=utf-8')
    // Not in the app: Vite answers them (its 404, or index.html), and no line is printed.
    expect(await attempt(page, '/logo.png')).not.toMatch(/^failed/)
    expect(await attempt(page, '/fonts/body.woff2')).not.toMatch(/^failed/)
    expect(mockyardLines(messages)).toEqual([
      expect.stringMatching(/^error: \[mockyard\] no route answers GET \/v1\/reprot\.json/),
      expect.stringMatching(/^error: \[mockyard\] no route answers GET \/v1\/feed\.xml/),
      expect.stringMatching(/^error: \[mockyard\] no route answers GET \/v1\/reprot[:\s]/),
    ])
  })

  test("the warning of another origin's request names its URL", async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page, '/rules.html')
    // Port 9 (discard): nothing listens, the request fails once it reaches the network.
    await attempt(page, 'http://127.0.0.1:9/v1/elsewhere?x=1')
    expect(mockyardLines(messages)).toEqual([expect.stringContaining('The request went to http://127.0.0.1:9/v1/elsewhere?x=1, another origin than the page')])
  })
})
