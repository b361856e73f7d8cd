/**
 * The Vite plugin serves msw's worker script from the msw the app uses *now*: looked up on every
 * request, through pnpm's link into its store, so that a relink or an upgrade while the dev
 * server runs is served at once (never the old version's script, never a 500 once pnpm prunes
 * it). Without msw, the answer and the terminal say to install it; `build: true` fails the
 * build with the same words.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Plugin } from 'vite'
import mockyard from 'mockyard/vite'
import { named, removeTempDirs, tempDir, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void

interface Hooks {
  configResolved(config: unknown): void
  configureServer(server: unknown): Promise<void>
  generateBundle(this: unknown): Promise<void>
}

/** GET `url` through the plugin's middleware: status and body. */
function get(middleware: Middleware, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let status = 0
    const res = {
      writeHead: (code: number) => (status = code),
      end: (body?: string | Uint8Array) => resolve({ status, body: body === undefined ? '' : Buffer.from(body).toString('utf8') }),
    } as unknown as ServerResponse
    middleware({ method: 'GET', url } as IncomingMessage, res, () => reject(new Error(`${url} went on to Vite`)))
  })
}

/** An app folder whose `node_modules/msw` links into a pnpm-like store, as pnpm lays it out. */
function pnpmApp() {
  const root = tempDir('mockyard-vite-msw-')
  const store = join(root, 'node_modules', '.pnpm')
  const version = (v: string, script: string | undefined) => {
    const folder = join(store, `msw@${v}`, 'node_modules', 'msw')
    mkdirSync(join(folder, 'lib'), { recursive: true })
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'msw', version: v, exports: { './package.json': './package.json' } }))
    if (script !== undefined) writeFileSync(join(folder, 'lib', 'mockServiceWorker.js'), script)
    return folder
  }
  const link = (folder: string) => {
    rmSync(join(root, 'node_modules', 'msw'), { force: true })
    // Relative, as pnpm writes it.
    symlinkSync(folder.slice(join(root, 'node_modules').length + 1), join(root, 'node_modules', 'msw'), 'dir')
  }
  return { root, version, link }
}

async function start(root: string, options = {}) {
  const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, named('a.json'))
  const plugin = mockyard({ routes: mocks.routes, watch: false, ...options }) as unknown as Plugin & Hooks
  const errors: string[] = []
  plugin.configResolved({ root, base: '/app/', logger: { info: () => {}, warn: () => {}, error: (m: string) => errors.push(m) } })
  let middleware: Middleware | undefined
  await plugin.configureServer({ middlewares: { use: (m: Middleware) => (middleware = m) } })
  return { plugin, middleware: middleware!, errors }
}

describe('the Vite plugin serves the worker script of the msw the app has now', () => {
  it('after a relink to another msw while the server runs, the new script; after the old one is pruned, still the new one', async () => {
    const app = pnpmApp()
    const old = app.version('2.13.5', '/* msw 2.13.5 */')
    app.link(old)
    const { middleware, errors } = await start(app.root)
    expect(await get(middleware, '/app/mockServiceWorker.js')).toEqual({ status: 200, body: '/* msw 2.13.5 */' })

    // `pnpm up msw`: the link moves, the old version stays in the store for now.
    app.link(app.version('3.0.5', '/* msw 3.0.5 */'))
    expect(await get(middleware, '/app/mockServiceWorker.js')).toEqual({ status: 200, body: '/* msw 3.0.5 */' })

    // The old version leaves the store.
    rmSync(join(old, '..', '..'), { recursive: true })
    expect(await get(middleware, '/app/mockServiceWorker.js')).toEqual({ status: 200, body: '/* msw 3.0.5 */' })
    expect(errors).toEqual([])
  })

  it('msw found in a folder above the root (a workspace), as Node finds it', async () => {
    const app = pnpmApp()
    app.link(app.version('3.0.5', '/* hoisted */'))
    const nested = join(app.root, 'packages', 'web')
    mkdirSync(nested, { recursive: true })
    const { middleware } = await start(nested)
    expect(await get(middleware, '/app/mockServiceWorker.js')).toEqual({ status: 200, body: '/* hoisted */' })
  })

  it('without msw: a 500 whose text, also in the terminal, says to install it', async () => {
    const root = tempDir('mockyard-vite-no-msw-')
    const { middleware, errors } = await start(root)
    const message = `[mockyard] msw cannot be found from ${root} (no node_modules/msw there or in a folder above it), so there is no mockServiceWorker.js to serve. Install msw in the app: npm install -D msw.`
    expect(await get(middleware, '/app/mockServiceWorker.js')).toEqual({ status: 500, body: message })
    expect(errors).toEqual([message])
  })

  it('an msw without its worker script: a 500 that names the file and the version', async () => {
    const app = pnpmApp()
    const folder = app.version('1.3.2', undefined)
    app.link(folder)
    const { middleware } = await start(app.root)
    expect(await get(middleware, '/app/mockServiceWorker.js')).toEqual({
      status: 500,
      body: `[mockyard] msw's mockServiceWorker.js cannot be read at ${join(app.root, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js')} (msw 1.3.2): it does not exist. Reinstall msw in the app (npm install -D msw); mockyard needs msw 2.13.5+ or 3.`,
    })
  })

  it('with build: true and no msw, the build fails with the same words', async () => {
    const root = tempDir('mockyard-vite-no-msw-')
    const { plugin } = await start(root, { build: true })
    const build = plugin.generateBundle.call({
      emitFile: () => {},
      error: (message: string) => {
        throw new Error(message)
      },
    })
    await expect(build).rejects.toThrow(`[mockyard] msw cannot be found from ${root} (no node_modules/msw there or in a folder above it)`)
  })
})
