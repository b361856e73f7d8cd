/**
 * `mockyard/vite`: a Vite plugin that hands mockyard's route table, its data files and msw's
 * worker script to the page during `vite dev`, and reloads the page when a routes or data file
 * changes. The page runs the engine itself, through `startWorker()` of `mockyard/browser`.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Plugin, ViteDevServer } from 'vite'
import type { SerializedConfig } from '../browser/config.js'
import { ConfigError, formatMessage, formatProblem } from '../core/errors.js'
import { contentTypeOf } from '../core/build-response.js'
import { listFiles } from '../core/validate-routes.js'
import { compileRoutes, type RouteSource } from '../core/compile-routes.js'
import { openConfigSource, type ConfigSource, type SourceLogger } from '../config/config-source.js'
import type { FolderFiles } from '../config/folder-files.js'
import { findLocalMocks, resolveConfig, type ResolvedConfig } from '../config/load-config.js'
import { LISTENER_ONLY_OPTIONS, noEffectWarning, type MockyardOptions } from '../config/options.js'
import { countOf } from '../core/count.js'

export type { SerializedConfig, SerializedSource } from '../browser/config.js'

/**
 * Options of the Vite plugin: mockyard's options (`routes`, `data`, `plugins`, `latency`,
 * `pluginContext`, `watch`), or `config`, the path of a mockyard config file (options given
 * here then override the file's). msw `handlers` cannot travel to the browser: pass them to
 * `startWorker({ handlers })` instead.
 *
 * @example
 * mockyard({ config: 'mocks/config.js', latency: 0 } satisfies MockyardViteOptions)
 */
export interface MockyardViteOptions extends MockyardOptions {
  /** A mockyard config file (`mocks/config.js`). Default: `mocks/config.js` (or `.mjs`/`.json`) in the Vite root, else its `mocks/routes.json` with `mocks/data`, else the bundled example mocks. */
  config?: string
  /** Also serve the mocks from `vite build` output (worker script, route table, data files). Default `false`. */
  build?: boolean
}

/**
 * The virtual module that exports the serialized config.
 *
 * @example
 * import config from 'virtual:mockyard'
 * await startWorker({ config })
 */
export const VIRTUAL_MODULE_ID = 'virtual:mockyard'
const RESOLVED_VIRTUAL_ID = '\0' + VIRTUAL_MODULE_ID
const WORKER_FILE = 'mockServiceWorker.js'
/** The plugin's own option names, next to mockyard's (`handlers` is refused with its own warning). */
const PLUGIN_OPTION_NAMES = ['config', 'build'] as const
const PREFIX = '@mockyard/'

interface Loaded {
  config: SerializedConfig
  /** Routes files and the config file, absolute: a change to one reloads the routes. */
  routesFiles: Set<string>
  configFile?: string
  /** The data folder of each source (`config.sources[i]` reads `sourceFolders[i]`). */
  sourceFolders: FolderFiles[]
  /** The data folders by the path their files are served under (`/@mockyard/data/0/`, without Vite's base). */
  dataFolders: Map<string, FolderFiles>
  /** The data files the routes name, absolute: only these are followed (docs/behaviour.md, "Live reload and the working folder"). */
  dataFiles: Set<string>
  /** How many routes the page serves: counted as it counts them, one per key whichever files name it. */
  routeCount?: number
}

/** A reload the config source refused: it logged the error and keeps the last good table. */
class ReloadFailed extends Error {}

interface Logger {
  info(message: string, options?: { timestamp?: boolean }): void
  warn(message: string, options?: { timestamp?: boolean }): void
  error(message: string, options?: { timestamp?: boolean }): void
}

/**
 * The folder of the msw the app uses, looked up from `root` on every call: `node_modules/msw` in
 * the root or the nearest folder above it that has one, as Node looks a package up, and kept as
 * that path, through the link when it is one (pnpm links it into its store). A relink or an
 * upgrade of msw while the dev server runs is then read at once. Node's `require.resolve` would
 * not do: it keeps, for the life of the process, the real path it found first (the old version's
 * folder in pnpm's store: a stale script, and none at all once pnpm prunes it). Without a
 * `node_modules/msw` (Yarn Plug'n'Play, `NODE_PATH`), Node's own resolution answers.
 * The look-up is one `stat` in the common case, a few in a nested workspace: 4 to 13 µs, next to
 * about 140 µs to read the script itself, which happens when the browser registers or updates
 * the worker, not per request of the page.
 */
function mswFolder(root: string): string | undefined {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules' && existsSync(join(dir, 'node_modules', 'msw', 'package.json'))) return join(dir, 'node_modules', 'msw')
    if (dirname(dir) === dir) break
  }
  try {
    return dirname(createRequire(join(root, 'package.json')).resolve('msw/package.json'))
  } catch {
    return undefined
  }
}

/** msw's worker script, read now from the msw the app uses; or why it cannot be. */
async function readWorkerScript(root: string): Promise<{ script: string } | { error: string }> {
  const folder = mswFolder(root)
  if (folder === undefined) {
    return { error: formatMessage(`msw cannot be found from ${root} (no node_modules/msw there or in a folder above it), so there is no ${WORKER_FILE} to serve. Install msw in the app: npm install -D msw.`) }
  }
  const path = join(folder, 'lib', WORKER_FILE)
  try {
    return { script: await readFile(path, 'utf8') }
  } catch (error) {
    let version = ''
    try {
      version = ` ${JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')).version}`
    } catch {}
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (error as Error).message.split('\n')[0]
    return { error: formatMessage(`msw's ${WORKER_FILE} cannot be read at ${path} (msw${version}): ${reason}. Reinstall msw in the app (npm install -D msw); mockyard needs msw 2.13.5+ or 3.`) }
  }
}

/** A path for the terminal: relative to `root` when inside it, else as it is. */
function displayPath(path: string, root: string): string {
  const rel = relative(root, path)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path
}

/** The base the plugin's URLs live under: Vite's `base` when it is a path, else `/`. */
function absoluteBase(base: string): string {
  if (!base.startsWith('/')) return '/'
  return base.endsWith('/') ? base : base + '/'
}

/**
 * The mockyard Vite plugin. During `vite dev` it serves:
 *
 * - `/mockServiceWorker.js`: msw's worker script, looked up and read on every request from the
 *   msw that the app itself uses (never a stale copy, even after an upgrade or a pnpm relink);
 * - `/@mockyard/config.json` and the virtual module `virtual:mockyard`: the route table
 *   (validated with the same loader as every other surface; an invalid config shows in the
 *   terminal and, through `startWorker()`, in the page's console);
 * - `/@mockyard/data/<n>/<file>`: the files of data folder `n`, never outside it.
 *
 * With a Vite `base` that is a path (`base: '/app/'`), these URLs are under it
 * (`/app/@mockyard/config.json`), where `startWorker()` looks for them.
 *
 * A change to a routes or data file reloads the page (`watch: false` turns that off). Not
 * active in `vite build` unless `build: true`.
 *
 * @example
 * // vite.config.ts
 * import { defineConfig } from 'vite'
 * import mockyard from 'mockyard/vite'
 *
 * export default defineConfig({
 *   plugins: [mockyard({ routes: 'mocks/routes.json', latency: 100 })],
 * })
 */
export function mockyard(input: string | MockyardViteOptions = {}): Plugin {
  const options: MockyardViteOptions = typeof input === 'string' ? { config: input } : { ...input }
  const { config: configOption, build, handlers, ...mockyardOptions } = options
  const watchFiles = mockyardOptions.watch ?? true
  delete mockyardOptions.watch

  let root = process.cwd()
  let base = '/'
  let logger: Logger = { info: console.info, warn: console.warn, error: console.error }
  /** The data folders in the order they were first served: their index names their URL. */
  const folderList: FolderFiles[] = []
  /** The config source (load, last good table), once a first load succeeded (see ARCHITECTURE.md). */
  let source: ConfigSource | undefined
  let loaded: Promise<Loaded> | undefined
  let lastGood: Loaded | undefined
  /** The state of the last load, good or not: the files the watcher follows. */
  let latest: Loaded | undefined
  /** The source's messages go to Vite's terminal. */
  const sourceLogger: SourceLogger = {
    info: (message) => logger.info(message, { timestamp: true }),
    warn: (message) => logger.warn(message, { timestamp: true }),
    error: (message) => logger.error(String(message), { timestamp: true }),
  }

  async function resolveOptions(): Promise<ResolvedConfig> {
    // Paths given in code resolve from the working directory, as on every surface. The options
    // are checked as everywhere (docs/behaviour.md, "Options"); `config` and `build` are the plugin's own.
    const settings = { extraNames: PLUGIN_OPTION_NAMES }
    if (configOption) return resolveConfig(resolve(configOption), settings, mockyardOptions)
    if (mockyardOptions.routes !== undefined || mockyardOptions.plugins !== undefined) return resolveConfig(mockyardOptions, settings)
    // As the CLI (docs/behaviour.md, "Options"): mocks/config.*, else mocks/routes.json with mocks/data, else the bundled mocks.
    const found = findLocalMocks(root)
    if (found && 'configFile' in found) return resolveConfig(found.configFile, settings, mockyardOptions)
    if (found) {
      const data = mockyardOptions.data ?? found.data
      logger.info(formatMessage(`no routes given and no mocks/config.js in ${root}: serving ${relative(root, found.routes)} with the data folder ${relative(root, String(data)) || '.'}.`))
      return resolveConfig({ ...mockyardOptions, routes: found.routes, data }, settings)
    }
    const resolved = await resolveConfig(mockyardOptions, { ...settings, bundled: true })
    if (resolved.bundled) logger.info(formatMessage(`no routes given and no mocks/config.js or mocks/routes.json in ${root}: serving the bundled example mocks. Pass mockyard({ routes: "mocks/routes.json" }) in vite.config.`))
    return resolved
  }

  const routesFilesOf = (resolved: ResolvedConfig) => new Set(resolved.routes.flatMap((spec) => (typeof spec.routes === 'string' ? [spec.routes] : [])))

  /** The table as the browser receives it: each source with the URL of its data folder. */
  function serialize(resolved: ResolvedConfig, sources: RouteSource[], messages: string[]): Loaded {
    const prefix = absoluteBase(base)
    const sourceFolders = sources.map((source) => source.files as FolderFiles)
    const dataFolders = new Map<string, FolderFiles>()
    const config: SerializedConfig = {
      sources: sources.map((source, index) => {
        const folder = sourceFolders[index]!
        if (!folderList.includes(folder)) folderList.push(folder)
        const path = `/${PREFIX}data/${folderList.indexOf(folder)}/`
        dataFolders.set(path, folder)
        // Named from Vite's root, as the terminal names it: a build holds no path of the machine that built it.
        return { file: displayPath(source.file, root), routes: source.routes, dataUrl: `${prefix}${path.slice(1)}` }
      }),
      workerUrl: `${prefix}${WORKER_FILE}`,
      warnings: messages,
    }
    if (resolved.options.latency !== undefined) config.latency = resolved.options.latency
    if (resolved.options.pluginContext !== undefined) config.pluginContext = resolved.options.pluginContext
    const dataFiles = new Set(sources.flatMap((source) => listFiles(source.routes).flatMap(({ name }) => (source.files as FolderFiles).pathOf(name) ?? [])))
    return { config, routesFiles: routesFilesOf(resolved), configFile: resolved.configFile, sourceFolders, dataFolders, dataFiles, routeCount: compileRoutes(sources).routes.length }
  }

  /** Loads the config (the first time), or reloads it through the config source. */
  async function load(configChanged = false, changed?: readonly string[]): Promise<Loaded> {
    const prefix = absoluteBase(base)
    let resolved: ResolvedConfig | undefined
    try {
      if (source) {
        // The source logs the reload, its warnings, and its error (keeping the last good table).
        await source.reload(configChanged, changed)
        if (source.reloads.error !== undefined) throw new ReloadFailed(source.reloads.error)
        const messages = [...source.config.warnings, ...source.warnings].map((warning) => formatMessage(formatProblem(warning)))
        lastGood = latest = serialize(source.config, source.sources, messages)
        return lastGood
      }
      const opened = await openConfigSource(async () => (resolved = await resolveOptions()))
      opened.useLogger(sourceLogger)
      source = opened
      const messages = [...opened.config.warnings, ...opened.warnings].map((warning) => formatMessage(formatProblem(warning)))
      for (const message of messages) logger.warn(message)
      if (handlers?.length || opened.config.handlers.length > 0) {
        logger.warn(formatMessage('msw handlers in the mockyard options or plugins do not reach the browser. Pass them to startWorker({ handlers }) in the app instead.'))
      }
      // Options only a listener reads, and `validate` (not offered in the browser).
      const ignored = noEffectWarning(mockyardOptions, [...LISTENER_ONLY_OPTIONS, 'validate'], 'the browser', 'the service worker answers the page, with no port, no listener and no contract check', 'run the CLI (npx mockyard) for a listener')
      if (ignored) logger.warn(ignored)
      lastGood = latest = serialize(opened.config, opened.sources, messages)
      return lastGood
    } catch (error) {
      const message = error instanceof ReloadFailed || error instanceof ConfigError ? error.message : formatMessage(`the mocks could not be loaded: ${(error as Error).stack ?? error}`)
      if (!(error instanceof ReloadFailed)) logger.error(message)
      const config = lastGood?.config ?? { sources: [], workerUrl: `${prefix}${WORKER_FILE}` }
      // Still follow the files that failed, so that fixing them reloads.
      latest = {
        config: { ...config, error: message },
        routesFiles: resolved ? routesFilesOf(resolved) : (lastGood?.routesFiles ?? new Set()),
        configFile: resolved?.configFile ?? lastGood?.configFile ?? (configOption ? resolve(configOption) : undefined),
        sourceFolders: lastGood?.sourceFolders ?? [],
        dataFolders: lastGood?.dataFolders ?? new Map(),
        dataFiles: lastGood?.dataFiles ?? new Set(),
      }
      return latest
    }
  }

  const current = () => (loaded ??= load())

  /** Answers the plugin's own URLs; everything else goes on to Vite. */
  async function serve(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next()
    let path: string
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://vite').pathname)
    } catch {
      return next()
    }
    const prefix = absoluteBase(base)
    if (prefix !== '/' && path.startsWith(prefix)) path = '/' + path.slice(prefix.length)

    const send = (status: number, type: string, body: string | Uint8Array, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...extra })
      res.end(req.method === 'HEAD' ? undefined : body)
    }

    if (path === '/' + WORKER_FILE) {
      const worker = await readWorkerScript(root)
      if ('error' in worker) {
        logger.error(worker.error)
        return send(500, 'text/plain; charset=utf-8', worker.error)
      }
      return send(200, 'application/javascript; charset=utf-8', worker.script, { 'service-worker-allowed': '/' })
    }
    if (path === `/${PREFIX}config.json`) {
      const { config } = await current()
      return send(200, 'application/json; charset=utf-8', JSON.stringify(config))
    }
    if (path.startsWith(`/${PREFIX}data/`)) {
      const { dataFolders } = await current()
      const folderPath = path.slice(0, path.indexOf('/', `/${PREFIX}data/`.length) + 1)
      const files = folderPath ? dataFolders.get(folderPath) : undefined
      const name = path.slice(folderPath.length)
      // `read` refuses names that leave the folder; they answer 404 like missing files.
      const bytes = files && name ? await files.read(name) : undefined
      if (!bytes) return send(404, 'text/plain; charset=utf-8', formatMessage(`no data file at ${path}.`))
      return send(200, await contentTypeOf(name), bytes)
    }
    next()
  }

  function watch(server: ViteDevServer): void {
    let timer: ReturnType<typeof setTimeout> | undefined
    const changed = new Set<string>()
    const isRelevant = (file: string, state: Loaded) => {
      // A file no route names (a log file in the data folder, say) changes nothing.
      return state.routesFiles.has(file) || file === state.configFile || state.dataFiles.has(file)
    }
    const follow = (state: Loaded) => {
      const paths = [...state.routesFiles, ...state.dataFiles]
      if (state.configFile) paths.push(state.configFile)
      // Files outside the Vite root are not watched unless added (adding twice is harmless).
      server.watcher.add(paths)
    }
    const flush = async () => {
      const state = latest
      // Says what changed: a data file is no reason to read the routes again (docs/behaviour.md, "Live reload and the working folder").
      const kindOf = (file: string) => (file === state?.configFile ? 'config file' : state?.routesFiles.has(file) ? 'routes file' : 'data file')
      const names = [...changed].map((file) => `${kindOf(file)} ${displayPath(file, root)}`)
      const files = [...changed]
      const configChanged = state?.configFile !== undefined && changed.has(state.configFile)
      changed.clear()
      source?.invalidate()
      loaded = load(configChanged, files)
      follow(await loaded)
      for (const environment of Object.values(server.environments ?? {})) {
        const module = environment.moduleGraph.getModuleById(RESOLVED_VIRTUAL_ID)
        if (module) environment.moduleGraph.invalidateModule(module)
      }
      logger.info(formatMessage(`${names.join(', ')} changed: reloading the page.`), { timestamp: true })
      server.ws.send({ type: 'full-reload', path: '*' })
    }
    const onChange = (file: string) => {
      const state = latest
      if (!state || !isRelevant(resolve(file), state)) return
      changed.add(resolve(file))
      clearTimeout(timer)
      timer = setTimeout(() => void flush(), 100)
    }
    server.watcher.on('add', onChange)
    server.watcher.on('change', onChange)
    server.watcher.on('unlink', onChange)
    void current().then(follow)
  }

  return {
    name: 'mockyard',
    apply: build ? undefined : 'serve',
    configResolved(config) {
      root = config.root
      base = config.base
      logger = config.logger
    },
    async configureServer(server) {
      const state = await current()
      const routes = state.routeCount ?? 0
      if (!state.config.error) {
        logger.info(formatMessage(`serving ${countOf(routes, 'route')} from ${state.config.sources.map((s) => displayPath(s.file, root)).join(', ')} to the browser: the app's entry calls startWorker() from mockyard/browser.`))
      }
      server.middlewares.use((req, res, next) => {
        serve(req, res, next).catch(next)
      })
      if (watchFiles) watch(server)
    },
    resolveId(id) {
      return id === VIRTUAL_MODULE_ID ? RESOLVED_VIRTUAL_ID : undefined
    },
    async load(id) {
      if (id !== RESOLVED_VIRTUAL_ID) return undefined
      const { config } = await current()
      return `/** mockyard's route table (mockyard/vite). */\nexport default ${JSON.stringify(config)}\n`
    },
    async generateBundle() {
      // Only with `build: true` (the plugin applies to serve alone otherwise).
      if (this.environment?.config.consumer === 'server') return
      const { config, sourceFolders } = await current()
      if (config.error) this.error(config.error)
      const worker = await readWorkerScript(root)
      if ('error' in worker) this.error(worker.error)
      this.emitFile({ type: 'asset', fileName: WORKER_FILE, source: worker.script })
      this.emitFile({ type: 'asset', fileName: `${PREFIX}config.json`, source: JSON.stringify(config) })
      const emitted = new Set<string>()
      for (const [index, source] of config.sources.entries()) {
        const folder = sourceFolders[index]
        if (!folder) continue
        // The files the routes name: the rest of the data folder stays out of the build.
        for (const { name } of listFiles(source.routes)) {
          const fileName = `${PREFIX}data/${folderList.indexOf(folder)}/${name.replace(/\\/g, '/').replace(/^(\.\/)+/, '')}`
          const bytes = emitted.has(fileName) ? undefined : await folder.read(name)
          if (!bytes) continue
          emitted.add(fileName)
          this.emitFile({ type: 'asset', fileName, source: bytes })
        }
      }
    },
  }
}

export default mockyard

