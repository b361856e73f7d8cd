/**
 * A Vite `base` other than `/` (`base: '/app/'`), with a real dev server over the worker app of
 * test/browser: the plugin serves its files under the base; the page's modules get the base as
 * `import.meta.env.BASE_URL`, from which `startWorker()` finds the route table and tells the dev
 * server's own requests (`/app/@id/…`, `/app/@vite/client`, `/app/src/…`) from the app's.
 * test/browser/base.spec.ts runs the same in Chromium, and the output of `vite build`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type ViteDevServer } from 'vite'
import { isCommonAssetRequest } from 'msw'
import mockyard, { type SerializedConfig } from 'mockyard/vite'
import { defaultConfigUrl, isDevServerPath, viteBase } from '../../src/browser/base-path.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const APP = join(ROOT, 'test/browser/app')
const src = (path: string) => join(ROOT, 'src', path)

describe('the worker reads Vite\'s base', () => {
  it('BASE_URL as a path ending in /; / outside Vite and for a base that is not a path', () => {
    expect(viteBase({ BASE_URL: '/app/' })).toBe('/app/')
    expect(viteBase({ BASE_URL: '/app' })).toBe('/app/')
    expect(viteBase({ BASE_URL: '/' })).toBe('/')
    expect(viteBase({ BASE_URL: './' })).toBe('/')
    expect(viteBase({ BASE_URL: 'https://cdn.example.com/app/' })).toBe('/')
    expect(viteBase({})).toBe('/')
    expect(viteBase(undefined)).toBe('/')
  })

  it('the route table under the base', () => {
    expect(defaultConfigUrl('/')).toBe('/@mockyard/config.json')
    expect(defaultConfigUrl('/app/')).toBe('/app/@mockyard/config.json')
  })

  it('the dev server own paths under the base, and at the root as before; the app paths are not', () => {
    for (const path of ['/app/@vite/client', '/app/@id/__x00__virtual:mockyard', '/app/@fs/home/me/app/src/App.vue', '/app/@react-refresh', '/app/src/App.vue', '/app/node_modules/.vite/deps/react.js', '/app/@mockyard/config.json', '/app/.vite/x']) {
      expect(isDevServerPath(path, '/app/'), path).toBe(true)
    }
    for (const path of ['/@id/__x00__virtual:mockyard', '/src/App.vue', '/@react-refresh']) {
      expect(isDevServerPath(path, '/'), path).toBe(true)
      expect(isDevServerPath(path, '/app/'), path).toBe(true)
    }
    for (const path of ['/app/v1/users', '/app/', '/app/srcs/x', '/app/api/src/x', '/v1/users', '/app/@idx']) {
      expect(isDevServerPath(path, '/app/'), path).toBe(false)
    }
    // Without the base, its paths are the app's.
    expect(isDevServerPath('/app/@id/x', '/')).toBe(false)
  })
})

describe('a real Vite dev server with base: /app/', () => {
  let server: ViteDevServer
  let origin: string
  const cacheDir = mkdtempSync(join(tmpdir(), 'mockyard-vite-base-'))

  beforeAll(async () => {
    server = await createServer({
      configFile: false,
      root: APP,
      base: '/app/',
      cacheDir,
      logLevel: 'silent',
      clearScreen: false,
      resolve: {
        alias: [
          { find: /^mockyard$/, replacement: src('core/index.ts') },
          { find: /^mockyard\/notifications\/fixtures$/, replacement: src('notifications/fixtures.ts') },
          { find: /^mockyard\/(msw|node|vitest|playwright|browser|vite|notifications)$/, replacement: src('$1/index.ts') },
        ],
      },
      plugins: [mockyard({ routes: join(APP, 'mocks/routes.json'), latency: 0, watch: false })],
      server: { host: '127.0.0.1', port: 0, ws: false },
      // The page's modules as Vite transforms them are enough here: nothing to pre-bundle.
      optimizeDeps: { noDiscovery: true, include: [] },
    })
    await server.listen()
    const address = server.httpServer!.address()
    if (!address || typeof address === 'string') throw new Error('the Vite dev server has no port')
    origin = `http://127.0.0.1:${address.port}`
  })
  afterAll(async () => {
    await server?.close()
    rmSync(cacheDir, { recursive: true, force: true })
  })

  const get = (path: string) => fetch(origin + path, { headers: { accept: '*/*' } })

  /** The `import.meta.env` Vite writes at the top of a module it serves. */
  async function envOf(path: string): Promise<{ BASE_URL?: unknown }> {
    const code = await (await get(path)).text()
    const match = /^import\.meta\.env = (\{.*?\});/m.exec(code)
    expect(match, `no import.meta.env in ${path}`).not.toBeNull()
    return JSON.parse(match![1]!) as { BASE_URL?: unknown }
  }

  it('the worker module gets the base, and finds the route table under it', async () => {
    const env = await envOf(`/app/@fs${src('browser/base-path.ts')}`)
    expect(env.BASE_URL).toBe('/app/')
    // Under the base: in the build output (build: true) nothing answers at the root.
    const configUrl = defaultConfigUrl(viteBase(env))
    expect(configUrl).toBe('/app/@mockyard/config.json')
    const response = await get(configUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const config = (await response.json()) as SerializedConfig
    expect(config.workerUrl).toBe('/app/mockServiceWorker.js')
    expect(config.sources[0]!.dataUrl).toBe('/app/@mockyard/data/0/')
    expect((await get(config.workerUrl!)).status).toBe(200)
  })

  it('every module request of the page that is not a plain asset is one of the dev server own paths', async () => {
    const base = viteBase(await envOf(`/app/@fs${src('browser/base-path.ts')}`))
    // The pages' scripts, then what the entries import, as the browser would ask for them.
    const urls = new Set<string>()
    for (const page of ['/app/', '/app/virtual.html']) {
      const html = await (await get(page)).text()
      for (const [, url] of html.matchAll(/<script type="module" src="([^"]+)"/g)) urls.add(url!)
    }
    for (const entry of [...urls].filter((url) => url.endsWith('.ts'))) {
      const code = await (await get(entry)).text()
      for (const [, , url] of code.matchAll(/(from|import)\s*\(?\s*"([^"]+)"/g)) urls.add(url!)
    }
    expect(urls).toContain('/app/@vite/client')
    expect(urls).toContain('/app/@id/__x00__virtual:mockyard')
    // Vite answers each: they are its own, not the app's.
    for (const url of urls) expect((await get(url)).status, url).toBe(200)
    const notAssets = [...urls].filter((url) => !isCommonAssetRequest(new Request(origin + url)))
    expect(notAssets).toContain('/app/@id/__x00__virtual:mockyard')
    for (const url of notAssets) expect(isDevServerPath(new URL(url, origin).pathname, base), url).toBe(true)
  })
})
