/**
 * A Vite app with the mockyard plugin, in Chromium: msw's service worker controls the page and
 * `startWorker()` answers the page's requests from the routes and data files.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test, type Page } from '@playwright/test'
import type { MockyardWorker } from 'mockyard/browser'
import { APP_URL, collectConsole, openApp, pageFetch, projectOf } from './support.js'

const EXAMPLES_DATA = fileURLToPath(new URL('../fixtures/examples/data/', import.meta.url))
/** The worker script of the msw the app runs on. */
const mswWorker = () => join(dirname(createRequire(import.meta.url).resolve(`${projectOf().msw}/package.json`)), 'lib', 'mockServiceWorker.js')

type AppWindow = Window & {
  mocks: MockyardWorker
  call(path: string, init?: RequestInit): Promise<string>
  msw: typeof import('msw')
}

/** The request log of the page, reduced to what the tests compare. */
const logged = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as AppWindow).mocks.requests().map((r) => ({ method: r.method, path: new URL(r.url).pathname + new URL(r.url).search, route: r.route, entry: r.entry, file: r.file, status: r.status, matched: r.matched })),
  )

test.describe('the Vite app', () => {
  test('a service worker runs msw\'s own script and controls the page', async ({ page, request }) => {
    await openApp(page)
    const controller = await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)
    expect(controller).toBe(new URL('/mockServiceWorker.js', APP_URL()).href)
    const script = await request.get(new URL('/mockServiceWorker.js', APP_URL()).href)
    expect(script.status()).toBe(200)
    expect(script.headers()['content-type']).toBe('application/javascript; charset=utf-8')
    expect(script.headers()['cache-control']).toBe('no-store')
    expect(await script.text()).toBe(readFileSync(mswWorker(), 'utf8'))
  })

  test('the console shows the start line and no warning for Vite\'s own requests', async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page)
    expect(messages.filter((m) => m.includes('[mockyard]'))).toEqual([
      expect.stringMatching(/^info: \[mockyard\] mocking 13 routes from .*examples\/routes\.json, (.*app\/)?mocks\/routes\.json in this page \(worker \/mockServiceWorker\.js, latency 0 ms\)\. Requests no route answers go to the network, with a warning\.$/),
    ])
    // msw is quiet: no per-request groups, no "Mocking enabled".
    expect(messages.filter((m) => m.includes('[MSW]'))).toEqual([])
  })

  test('JSON from the routes and data, recorded in the request log', async ({ page }) => {
    await openApp(page)
    expect(await page.evaluate(() => (window as unknown as AppWindow).call('/v1/users'))).toBe('200 {"file":"users.json"}\n')
    await expect(page.locator('#out li')).toHaveText(['200 {"file":"users.json"}'])
    const record = await page.evaluate(() => (window as unknown as AppWindow).mocks.waitForRequest((r) => r.url.endsWith('/v1/users'), { timeout: 2000 }))
    expect(record).toMatchObject({ method: 'GET', route: 'v1/users', entry: 'default', file: 'users.json', status: 200, matched: true })
  })

  test('a binary file arrives byte for byte', async ({ page }) => {
    await openApp(page)
    const res = await pageFetch(page, '/v1/report')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/pdf')
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(EXAMPLES_DATA, 'report.pdf')))).toBe(true)
  })

  test('a sequence advances per request and restarts on reset()', async ({ page }) => {
    await openApp(page)
    const seen: string[] = []
    for (let i = 0; i < 4; i++) seen.push(await page.evaluate(() => (window as unknown as AppWindow).call('/v1/jobs/42')))
    expect(seen.map((s) => s.slice(0, 3))).toEqual(['202', '202', '200', '202'])
    await page.evaluate(() => (window as unknown as AppWindow).mocks.reset())
    expect(await page.evaluate(() => (window as unknown as AppWindow).mocks.requests().length)).toBe(0)
    expect(await page.evaluate(() => (window as unknown as AppWindow).call('/v1/jobs/42'))).toMatch(/^202 /)
  })

  test('a multipart upload is matched by the uploaded file\'s name', async ({ page }) => {
    await openApp(page)
    const upload = (fileName: string) =>
      page.evaluate(async (name) => {
        const form = new FormData()
        form.set('kind', 'wire')
        form.set('proof', new File([new Uint8Array([37, 80, 68, 70])], name, { type: 'application/pdf' }))
        return (window as unknown as AppWindow).call('/v1/payments', { method: 'POST', body: form })
      }, fileName)
    expect(await upload('receipt.pdf')).toBe('200 {"file":"payment-form.json"}\n')
    expect(await upload('other.pdf')).toBe('200 {"file":"payment-default.json"}\n')
    const [first] = await page.evaluate(() => (window as unknown as AppWindow).mocks.requests({ method: 'POST' }))
    expect(first).toMatchObject({ route: 'v1/payments', entry: 'post[2]' })
    expect(first!.body).toContain('filename="receipt.pdf"')
  })

  test('the request log keeps 64 KB of a large body and counts the rest', async ({ page }) => {
    await openApp(page)
    const size = 100 * 1024
    await page.evaluate((n) => (window as unknown as AppWindow).call('/v1/payments', { method: 'POST', body: 'x'.repeat(n), headers: { 'content-type': 'text/plain' } }), size)
    const [record] = await page.evaluate(() => (window as unknown as AppWindow).mocks.requests({ method: 'POST' }))
    expect(record!.body).toBe(`${'x'.repeat(64 * 1024)}… [${size - 64 * 1024} more bytes]`)
  })

  test('an entry chosen by a request header', async ({ page }) => {
    await openApp(page)
    const call = (headers: Record<string, string>) => page.evaluate((h) => (window as unknown as AppWindow).call('/v1/profile', { headers: h }), headers)
    expect(await call({ 'X-Role': 'admin' })).toBe('200 {"file":"profile-admin.json"}\n')
    expect(await call({})).toBe('200 {"file":"profile.json"}\n')
  })

  test('a redirect to a route of the same origin is followed through the worker', async ({ page }) => {
    await openApp(page)
    const follow = (path: string) =>
      page.evaluate(async (p) => {
        const res = await fetch(p)
        return { status: res.status, redirected: res.redirected, path: new URL(res.url).pathname, body: await res.text() }
      }, path)
    expect(await follow('/v1/moved')).toEqual({ status: 200, redirected: true, path: '/v1/users', body: '{"file":"users.json"}\n' })
    expect(await follow('/v1/moved-permanently')).toEqual({ status: 200, redirected: true, path: '/v1/profile', body: '{"file":"profile.json"}\n' })
    expect((await logged(page)).map((r) => `${r.path} ${r.status} ${r.route}`)).toEqual([
      '/v1/moved 302 v1/moved',
      '/v1/users 200 v1/users',
      '/v1/moved-permanently 301 v1/moved-permanently',
      '/v1/profile 200 v1/profile',
    ])
  })

  test('CORS as a page sees it: no Origin reaches the worker, headers are exposed, OPTIONS only on routes', async ({ page }) => {
    await openApp(page)
    const jobs = await pageFetch(page, '/v1/jobs/42')
    expect(jobs.headers.get('access-control-allow-origin')).toBe('*')
    expect(jobs.headers.get('access-control-expose-headers')).toBe('location')
    expect(jobs.headers.get('location')).toBe('/v1/jobs/42')
    const preflight = await pageFetch(page, '/v1/users', { method: 'OPTIONS' })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE')
    expect(preflight.headers.get('access-control-max-age')).toBe('600')
    // Not a route: the worker lets it go to the dev server.
    await pageFetch(page, '/not-a-route', { method: 'OPTIONS' })
    expect((await logged(page)).slice(1)).toEqual([
      { method: 'OPTIONS', path: '/v1/users', route: 'v1/users', entry: 'preflight', status: 204, matched: true },
      { method: 'OPTIONS', path: '/not-a-route', status: 0, matched: false },
    ])
  })

  test('a request no route answers goes to the network, with a warning that says why', async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page)
    const res = await pageFetch(page, '/v1/user')
    // Vite's SPA fallback answered it: the request reached the dev server.
    expect(res.headers.get('content-type')).toContain('text/html')
    const warning = messages.find((m) => m.startsWith('warning: [mockyard] no route answers GET /v1/user'))
    expect(warning).toBe(
      [
        'warning: [mockyard] no route answers GET /v1/user: no route has the path /v1/user.',
        'Closest routes:',
        '  - v1/users (GET, POST, PUT, PATCH, DELETE)',
        '  - v1/feed (GET, POST, PUT, PATCH, DELETE)',
        '  - v1/orders (GET, POST, PUT, PATCH, DELETE)',
        'Add a route to your routes file, for example "v1/user": { "file": "user.json" }.',
        'The request goes to the network.',
      ].join('\n'),
    )
    expect(await logged(page)).toEqual([{ method: 'GET', path: '/v1/user', status: 0, matched: false }])
    // A known route that does not answer the method: the engine's explanation, prefixed once.
    await pageFetch(page, '/v1/jobs/42', { method: 'PATCH' })
    expect(messages.find((m) => m.includes('no route answers PATCH /v1/jobs/42'))).toBe(
      [
        'warning: [mockyard] no route answers PATCH /v1/jobs/42: v1/jobs/42 answers GET, not PATCH.',
        'Add a "patch" key (or a route-level "file") to "v1/jobs/42" in your routes file.',
        'The request goes to the network.',
      ].join('\n'),
    )
  })

  test('use() puts a handler in front until reset()', async ({ page }) => {
    await openApp(page)
    const users = () => page.evaluate(() => (window as unknown as AppWindow).call('/v1/users'))
    await page.evaluate(() => {
      const { mocks, msw } = window as unknown as AppWindow
      mocks.use(msw.http.get('/v1/users', () => msw.HttpResponse.json({ from: 'use()' })))
    })
    expect(await users()).toBe('200 {"from":"use()"}')
    expect((await logged(page)).at(-1)).toMatchObject({ path: '/v1/users', entry: 'handler', status: 200, matched: true })
    await page.evaluate(() => (window as unknown as AppWindow).mocks.reset())
    expect(await users()).toBe('200 {"file":"users.json"}\n')
  })

  test('notifications through the worker: list, current user, changes undone by reset()', async ({ page }) => {
    await openApp(page)
    const list = (headers: Record<string, string> = {}) =>
      page.evaluate(async (h) => {
        const res = await fetch('/api/v1/notifications', { headers: h })
        const body = (await res.json()) as { totalCount: number; notifications: Array<{ id: string }> }
        return { status: res.status, totalCount: body.totalCount, ids: body.notifications.map((n) => n.id) }
      }, headers)
    expect(await list()).toEqual({ status: 200, totalCount: 3, ids: ['n-1', 'n-2', 'n-3'] })
    expect(await list({ 'X-Mock-User': 'other-user' })).toEqual({ status: 200, totalCount: 1, ids: ['o-1'] })
    expect((await pageFetch(page, '/api/v1/notifications?topicId=BILLING', { method: 'DELETE' })).status).toBe(204)
    expect((await list()).ids).toEqual(['n-1', 'n-3'])
    const forbidden = await pageFetch(page, '/api/v1/notifications?to.userId=jane')
    expect(forbidden.status).toBe(403)
    expect((await logged(page)).map((r) => `${r.method} ${r.status} ${r.entry}`)).toEqual(['GET 200 handler', 'GET 200 handler', 'DELETE 204 handler', 'GET 200 handler', 'GET 403 handler'])
    await page.evaluate(() => (window as unknown as AppWindow).mocks.reset())
    expect((await list()).ids).toEqual(['n-1', 'n-2', 'n-3'])
  })

  test('the route table from the virtual module works the same', async ({ page }) => {
    await openApp(page, '/virtual.html')
    const config = await page.evaluate(() => (window as unknown as { config: { sources: Array<{ file: string; dataUrl: string }>; latency: number } }).config)
    expect(config.latency).toBe(0)
    expect(config.sources.map((s) => s.dataUrl)).toEqual(['/@mockyard/data/0/', '/@mockyard/data/1/'])
    expect(await (await pageFetch(page, '/v1/claims?status=open')).json()).toEqual({ file: 'claims-open.json' })
  })

  test('without the plugin\'s config: inline files, fetched files, the 250 ms default latency', async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page, '/manual.html')
    const started = Date.now()
    const hello = await pageFetch(page, '/v1/hello')
    expect(Date.now() - started).toBeGreaterThanOrEqual(240)
    expect(hello.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await hello.text()).toBe(`hello from ${new URL(APP_URL()).origin}`)
    const report = await pageFetch(page, '/v1/report')
    expect(Buffer.from(await report.arrayBuffer()).equals(readFileSync(join(EXAMPLES_DATA, 'report.pdf')))).toBe(true)
    // onUnhandledRequest: 'error': the request fails, and the console says why.
    expect(await page.evaluate(() => fetch('/v1/users').then((r) => `answered ${r.status}`, (e: Error) => e.name))).toBe('TypeError')
    expect(messages.find((m) => m.startsWith('error: [mockyard] no route answers GET /v1/users'))).toBe(
      [
        'error: [mockyard] no route answers GET /v1/users: no route has the path /v1/users.',
        'Closest routes:',
        '  - v1/hello (GET, POST, PUT, PATCH, DELETE)',
        '  - v1/report (GET, POST, PUT, PATCH, DELETE)',
        'Add a route to your routes file, for example "v1/users": { "file": "users.json" }.',
        'The request fails (onUnhandledRequest: "error").',
      ].join('\n'),
    )
  })
})

test.describe('the plugin\'s endpoints', () => {
  test('the config as JSON, with the data folders\' URLs', async ({ request }) => {
    const res = await request.get(new URL('/@mockyard/config.json', APP_URL()).href)
    expect(res.headers()['content-type']).toBe('application/json; charset=utf-8')
    const config = await res.json()
    expect(config).toMatchObject({ latency: 0, workerUrl: '/mockServiceWorker.js', warnings: [] })
    expect(config.error).toBeUndefined()
    expect(Object.keys(config.sources[1].routes)).toEqual(['v1/moved', 'v1/moved-permanently', 'v1/browser-live'])
  })

  test('data files are served from inside the data folder only', async ({ request }) => {
    const get = (path: string) => request.get(APP_URL().replace(/\/$/, '') + path)
    const pdf = await get('/@mockyard/data/0/report.pdf')
    expect(pdf.status()).toBe(200)
    expect(pdf.headers()['content-type']).toBe('application/pdf')
    expect((await pdf.body()).equals(readFileSync(join(EXAMPLES_DATA, 'report.pdf')))).toBe(true)
    for (const path of ['/@mockyard/data/0/..%2Froutes.json', '/@mockyard/data/0/%2E%2E%2Froutes.json', '/@mockyard/data/0/%2Fetc%2Fpasswd', '/@mockyard/data/7/users.json', '/@mockyard/data/0/nope.json']) {
      const res = await get(path)
      expect(res.status(), path).toBe(404)
      expect(await res.text(), path).not.toContain('v1/users')
    }
  })
})
