/**
 * Starts the worker tests' Vite dev servers, each with the mockyard plugin over its own mocks:
 *
 * - `MOCKYARD_VITE_URL`: the examples fixture (and the app's own routes), latency 0;
 * - `MOCKYARD_VITE_MSW2_URL`: the same app on msw 2.15;
 * - `MOCKYARD_VITE_EDIT_URL`: a copy of the examples fixture in a temporary folder
 *   (`MOCKYARD_VITE_EDIT_DATA`), which the live-reload test edits; what that server prints in
 *   the terminal goes to `MOCKYARD_VITE_EDIT_LOG` (and to the terminal with MOCKYARD_VITE_LOG=1).
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createLogger, createServer, type Logger, type Plugin, type ViteDevServer } from 'vite'
import mockyard, { type MockyardViteOptions } from 'mockyard/vite'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const APP = join(ROOT, 'test/browser/app')
const EXAMPLES = join(ROOT, 'test/fixtures/examples')
const src = (path: string) => join(ROOT, 'src', path)

const MSW2_WORKER = join(ROOT, 'node_modules/msw2/lib/mockServiceWorker.js')

/** As in vitest.config.ts: the public entry points resolve to the sources. */
const alias = [
  { find: /^mockyard$/, replacement: src('core/index.ts') },
  { find: /^mockyard\/notifications\/fixtures$/, replacement: src('notifications/fixtures.ts') },
  { find: /^mockyard\/(msw|node|vitest|playwright|browser|vite|notifications)$/, replacement: src('$1/index.ts') },
]

const verbose = process.env.MOCKYARD_VITE_LOG === '1'

/** Vite's logger, also writing every line to a file the tests read. */
function fileLogger(path: string): Logger {
  writeFileSync(path, '')
  const terminal = createLogger(verbose ? 'info' : 'silent')
  const write = (level: 'info' | 'warn' | 'error') => (message: string, options?: object) => {
    appendFileSync(path, `${level}: ${message}\n`)
    terminal[level](message, options)
  }
  return { ...terminal, info: write('info'), warn: write('warn'), warnOnce: write('warn'), error: write('error') }
}

/**
 * The app on msw 2.15 (installed as `msw2`): `msw` resolves to it, and its worker script is
 * served in front of the plugin's (which serves the msw an app resolves: msw 3 here).
 */
const msw2: Plugin = {
  name: 'msw2-worker',
  configureServer(server) {
    server.middlewares.use((req, res, next) => {
      if (!req.url?.startsWith('/mockServiceWorker.js')) return next()
      res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'no-store' })
      res.end(readFileSync(MSW2_WORKER, 'utf8'))
    })
  },
}

async function startVite(name: string, options: MockyardViteOptions, extra: { logFile?: string; msw2?: boolean } = {}): Promise<ViteDevServer> {
  const server = await createServer({
    configFile: false,
    root: APP,
    cacheDir: join(ROOT, '.tmp', `vite-${name}`),
    ...(extra.logFile ? { customLogger: fileLogger(extra.logFile) } : { logLevel: verbose ? 'info' : 'warn' }),
    clearScreen: false,
    resolve: { alias: extra.msw2 ? [...alias, { find: /^msw(\/.*)?$/, replacement: 'msw2$1' }] : alias },
    plugins: [...(extra.msw2 ? [msw2] : []), mockyard(options)],
    server: { host: '127.0.0.1', port: 0 },
    // Optimised up front: a dependency found late would reload pages in the middle of a test.
    optimizeDeps: { include: [...(extra.msw2 ? ['msw2', 'msw2/browser'] : ['msw', 'msw/browser']), 'qs', 'mime/lite'] },
  })
  await server.listen()
  return server
}

export default async function setup() {
  const edit = mkdtempSync(join(tmpdir(), 'mockyard-vite-'))
  cpSync(EXAMPLES, edit, { recursive: true })
  const appMocks = { routes: [join(EXAMPLES, 'routes.json'), join(APP, 'mocks/routes.json')], latency: 0 }
  const [main, onMsw2, edited] = await Promise.all([
    startVite('main', appMocks),
    startVite('msw2', appMocks, { msw2: true }),
    startVite('edit', { routes: join(edit, 'routes.json'), latency: 0 }, { logFile: join(edit, 'vite.log') }),
  ])
  const urlOf = (server: ViteDevServer) => {
    const address = server.httpServer!.address()
    if (!address || typeof address === 'string') throw new Error('the Vite dev server has no port')
    return `http://127.0.0.1:${address.port}/`
  }
  process.env.MOCKYARD_VITE_URL = urlOf(main)
  process.env.MOCKYARD_VITE_MSW2_URL = urlOf(onMsw2)
  process.env.MOCKYARD_VITE_EDIT_URL = urlOf(edited)
  process.env.MOCKYARD_VITE_EDIT_DATA = join(edit, 'data')
  process.env.MOCKYARD_VITE_EDIT_LOG = join(edit, 'vite.log')
  return async () => {
    await Promise.all([main.close(), onMsw2.close(), edited.close()])
    rmSync(edit, { recursive: true, force: true })
  }
}
