/**
 * The worker app under a Vite `base` (`/app/`), in Chromium: the dev server (its own server,
 * started here) and the output of `vite build` with `mockyard({ build: true })`, served by
 * `vite preview`. The plugin serves its files under the base; `startWorker()` finds them there
 * (Vite's `import.meta.env.BASE_URL`) and lets the dev server's own requests under the base pass
 * silently, as it does at the root.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test, type TestInfo } from '@playwright/test'
import { build, createServer, preview, type InlineConfig, type PreviewServer, type ViteDevServer } from 'vite'
import mockyard from 'mockyard/vite'
import { collectConsole, openApp, pageFetch, projectOf } from './support.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const APP = join(ROOT, 'test/browser/app')
const EXAMPLES = join(ROOT, 'test/fixtures/examples')
const src = (path: string) => join(ROOT, 'src', path)

/** As in global-setup.ts: the public entry points resolve to the sources. */
const alias = [
  { find: /^mockyard$/, replacement: src('core/index.ts') },
  { find: /^mockyard\/notifications\/fixtures$/, replacement: src('notifications/fixtures.ts') },
  { find: /^mockyard\/(msw|node|vitest|playwright|browser|vite|notifications)$/, replacement: src('$1/index.ts') },
]

const appMocks = { routes: [join(EXAMPLES, 'routes.json'), join(APP, 'mocks/routes.json')], latency: 0, watch: false }

/** The app's Vite config under `base: '/app/'`. */
const appConfig = (extra: InlineConfig = {}): InlineConfig => ({
  configFile: false,
  root: APP,
  base: '/app/',
  logLevel: 'silent',
  clearScreen: false,
  resolve: { alias },
  ...extra,
})

const urlOf = (server: ViteDevServer | PreviewServer) => {
  const address = server.httpServer!.address()
  if (!address || typeof address === 'string') throw new Error('the Vite server has no port')
  return `http://127.0.0.1:${address.port}/app/`
}

/** The base is the plugin's and the page's alone, whatever the msw: once is enough. */
const onceOnly = (info: TestInfo) => test.skip(projectOf(info).msw === 'msw2', 'runs in the msw 3 project')

test.describe('under base: /app/, the dev server', () => {
  let server: ViteDevServer
  let appUrl: string

  test.beforeAll(async ({}, info) => {
    onceOnly(info)
    server = await createServer(
      appConfig({
        cacheDir: join(ROOT, '.tmp', 'vite-base'),
        plugins: [mockyard(appMocks)],
        server: { host: '127.0.0.1', port: 0 },
        // Optimised up front: a dependency found late would reload the page in the middle of a test.
        optimizeDeps: { include: ['msw', 'msw/browser', 'qs', 'mime/lite'] },
      }),
    )
    await server.listen()
    appUrl = urlOf(server)
  })
  test.afterAll(async () => {
    await server?.close()
  })

  test('the worker runs from the base and Vite\'s own requests under it pass silently', async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page, '', appUrl)
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(new URL('mockServiceWorker.js', appUrl).href)
    expect(messages.filter((m) => m.includes('[mockyard]'))).toEqual([expect.stringMatching(/^info: \[mockyard\] mocking 13 routes from .* \(worker \/app\/mockServiceWorker\.js, latency 0 ms\)\./)])

    // What the dev server answers once the page runs: a module imported late (a virtual module,
    // as Vite rewrites its import), a framework's runtime, a component file. Each goes through
    // the worker, and none is a route.
    await page.evaluate(async () => {
      const script = Object.assign(document.createElement('script'), { type: 'module', src: '/app/@id/__x00__virtual:mockyard' })
      const loaded = new Promise((resolve, reject) => Object.assign(script, { onload: resolve, onerror: reject }))
      document.head.append(script)
      await loaded
      await fetch('/app/@react-refresh')
      await fetch('/app/src/App.vue')
      await fetch('/app/@fs/nowhere/component.svelte')
    })
    // A path of the app that is not Vite's still warns.
    await pageFetch(page, '/app/v1/nowhere')
    expect(messages.filter((m) => m.startsWith('warning:'))).toEqual([expect.stringMatching(/^warning: \[mockyard\] no route answers GET \/app\/v1\/nowhere: /)])

    // The routes answer as at the root.
    expect(await (await pageFetch(page, '/v1/users')).json()).toEqual({ file: 'users.json' })
  })
})

test.describe('under base: /app/, the output of vite build with build: true', () => {
  let server: PreviewServer
  let appUrl: string
  let outDir: string

  test.beforeAll(async ({}, info) => {
    onceOnly(info)
    test.setTimeout(120_000)
    outDir = mkdtempSync(join(tmpdir(), 'mockyard-base-build-'))
    await build(
      appConfig({
        cacheDir: join(outDir, '.vite'),
        plugins: [mockyard({ ...appMocks, build: true })],
        // The plain entry (startWorker() alone), and the app's with extra handlers (index.html):
        // in built output the handler step must not import msw lazily, as that import is a
        // request of the page the worker would hold while the handler step waits for it.
        build: { outDir, emptyOutDir: true, minify: false, rollupOptions: { input: { plain: join(APP, 'plain.html'), index: join(APP, 'index.html') } } },
      }),
    )
    server = await preview(appConfig({ build: { outDir }, preview: { host: '127.0.0.1', port: 0 } }))
    appUrl = urlOf(server)
  })
  test.afterAll(async () => {
    await server?.close()
    if (outDir) rmSync(outDir, { recursive: true, force: true })
  })

  test('the worker finds the route table, its script and the data files under the base', async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page, 'plain.html', appUrl)
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(new URL('mockServiceWorker.js', appUrl).href)
    expect(await (await pageFetch(page, '/v1/users')).json()).toEqual({ file: 'users.json' })
    expect(messages.filter((m) => m.startsWith('error:') || m.startsWith('warning:'))).toEqual([])
  })

  test('with extra handlers, the handlers and the routes answer (no request waits on a lazy import)', async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page, 'index.html', appUrl)
    expect(await (await pageFetch(page, '/v1/users')).json()).toEqual({ file: 'users.json' })
    const notifications = await pageFetch(page, '/api/v1/notifications')
    expect(notifications.status).toBe(200)
    expect(messages.filter((m) => m.startsWith('error:'))).toEqual([])
  })
})
