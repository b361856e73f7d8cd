import { readFileSync } from 'node:fs'
import { dirname, resolve as resolvePath } from 'node:path'
import type { RequestHandler } from 'msw'
import { compileRoutes, type RouteSource, type RouteTable } from '../core/compile-routes.js'
import { createEngine, type Engine, type HandleResult, type MatchInfo } from '../core/engine.js'
import { ConfigError, formatMessage, formatProblem } from '../core/errors.js'
import { createRequestLog, type LogEntry, type RequestLog, type RequestInput } from '../core/request-log.js'
import type { EngineRequest } from '../core/request-data.js'
import { fromFetchRequest } from '../core/fetch.js'
import type { MockResponse } from '../core/respond.js'
import type { Logger, RoutesConfig } from '../core/types.js'
import { listFiles, validateRoutes } from '../core/validate-routes.js'
import { folderFiles, type FolderFiles } from './folder-files.js'
import { defaultDataFor, loadConfig, markConfigChanged, parseJsonFile, readRoutes, resolveConfig, type ResolvedConfig } from './load-config.js'
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js'
import type { MockyardOptions } from './options.js'
import { watchFiles, type FileWatch } from './watcher.js'
import { createSessionBound, DEFAULT_SESSION_LIMIT } from './sessions.js'

/** The defaults a surface applies where the options say nothing (docs/behaviour.md, "Defaults per surface"). */
export interface SurfaceDefaults {
  latency: number
  watch: boolean
  logLevel: LogLevel
  /** Serve the bundled mocks when no routes, plugins or config file are given. */
  bundled?: boolean
  /** Print option warnings even when `logLevel` hides warnings (surfaces quiet by default; docs/behaviour.md, "Options"). */
  warnOptions?: boolean
}

/** A request as every node surface hands it over: the engine's view plus a lazy Fetch `Request`. */
export interface SurfaceRequest extends EngineRequest {
  /** The headers as the request log takes them (node's flat `rawHeaders`, a `Headers`, ...). */
  readonly logHeaders: RequestInput['headers']
  /** A full Fetch `Request`, built only when msw handlers must see it. */
  toFetch(): Request | Promise<Request>
  /** The body, when the adapter has read it already (`null`: none): lets `respondNow` answer without a wait. */
  readonly bodyBytes?: Uint8Array | null
  /** Unmatched, it goes to the `proxy` target: logged with the entry `proxy` (docs/behaviour.md, "Record, import and proxy"). */
  readonly proxied?: boolean
}

const PROXIED: Partial<MatchInfo> = { entry: 'proxy' }

export type Outcome =
  | { kind: 'handler'; response: Response; record: LogEntry }
  | { kind: 'route'; response: MockResponse; info: MatchInfo; record: LogEntry }
  | { kind: 'unmatched'; explanation: () => string; record: LogEntry }

/**
 * Everything the node surfaces share: the loaded config, the engine, the extra msw handlers, the
 * request log, per-session state and live reload.
 */
export interface Instance {
  readonly config: ResolvedConfig
  readonly options: MockyardOptions
  readonly logger: Logger
  /** Whether one line per request goes to the logger (a custom logger, or the default at info). */
  readonly logsRequests: boolean
  readonly engine: Engine
  readonly log: RequestLog
  /** Handlers from the options and plugins (tried before the routes). */
  readonly handlers: RequestHandler[]
  /** Answers a request: extra handlers first, then the routes. Records it in the log. */
  respond(request: SurfaceRequest, session?: string): Promise<Outcome>
  /**
   * `respond()` without a wait where none is needed (the body already read, no extra handlers,
   * no latency, the file in memory): the HTTP listener's hot path.
   */
  respondNow(request: SurfaceRequest, session?: string): Outcome | Promise<Outcome>
  /** Adds handlers in front of all others until the next reset. */
  use(...handlers: RequestHandler[]): void
  /**
   * Adds or replaces routes (for one session, or for everyone) until the next reset: an object,
   * or the path of a routes file (its files are read from its own data folder).
   */
  useRoutes(routes: RoutesConfig | string, session?: string): void
  /** The routes in force (for one session): as loaded, plus overrides. */
  routes(session?: string): RoutesConfig
  /** Sequences, overrides, per-test handlers and the request log back to the start. */
  reset(session?: string): void
  /** The defaults of the surface that made this instance (what applies where the options say nothing). */
  readonly defaults: SurfaceDefaults
  /** The last live reload: when, and its error while the config is broken (the dashboard shows it). */
  readonly reloads: ReloadStatus
  /** What answers a session now: its engine and the override layers in force (everyone's, then its own). */
  inspect(session?: string): { engine: Engine; overrides: RoutesConfig[]; sessionOverrides: RoutesConfig[] }
  close(): Promise<void>
}

/**
 * Options a changed config file cannot change in a running instance (the listener, the engine and
 * the logger are built with them): a change is logged as needing a restart.
 */
const RESTART_OPTIONS = ['port', 'host', 'latency', 'limit', 'pluginContext', 'watch', 'requestLog', 'admin', 'logProvider', 'onUnhandledRequest'] as const

function sameOption(a: unknown, b: unknown): boolean {
  if (typeof a === 'function' || typeof b === 'function') return typeof a === typeof b
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The state of live reload (docs/behaviour.md, "The dashboard"). */
export interface ReloadStatus {
  /** Reloads so far (successful or not). */
  count: number
  /** When the last one ran (ISO 8601). */
  at?: string
  /** Its error, while the config is broken and the last good table is served. */
  error?: string
}

/** Resets one session's state of a handler that keeps per-session state (`resetSession`). */
function resetHandlerSession(handler: RequestHandler, session: string): void {
  const reset = (handler as unknown as { resetSession?: (session: string) => void }).resetSession
  if (typeof reset === 'function') reset.call(handler, session)
}

function resetHandler(handler: RequestHandler): void {
  // msw 3: public reset(); msw 2.15: protected, the same method at run time.
  const reset = (handler as unknown as { reset?: () => void }).reset
  if (typeof reset === 'function') reset.call(handler)
}

/**
 * Loads a configuration and builds the shared state of one surface.
 *
 * @example
 * const instance = await createInstance('mocks/config.js', { latency: 0, watch: false, logLevel: 'error' })
 */
export async function createInstance(
  input: string | MockyardOptions | undefined,
  defaults: SurfaceDefaults,
  optionOverrides?: MockyardOptions,
): Promise<Instance> {
  // The data folders are made while loading. They watch nothing themselves: with live reload the
  // instance watches the files the routes name (see `followFiles` below).
  const folders = new Map<string, FolderFiles>()
  const filesFor = (data: string) => {
    let files = folders.get(data)
    if (!files) {
      files = folderFiles(data)
      folders.set(data, files)
    }
    return files
  }
  let config: ResolvedConfig
  let loaded: Awaited<ReturnType<typeof readRoutes>>
  try {
    ;({ config, loaded } = await loadConfig(input, filesFor, { bundled: defaults.bundled ?? false }, optionOverrides))
  } catch (error) {
    for (const files of folders.values()) files.close()
    throw error
  }
  const options = config.options
  const logger = options.logProvider ? options.logProvider() : createLogger(defaults.logLevel)
  const watching = options.watch ?? defaults.watch
  const optionLogger = defaults.warnOptions && !options.logProvider && LOG_LEVELS.indexOf(defaults.logLevel) < LOG_LEVELS.indexOf('warn') ? createLogger('warn') : logger
  for (const warning of config.warnings) optionLogger.warn(formatMessage(formatProblem(warning)))
  for (const warning of loaded.warnings) logger.warn(formatMessage(formatProblem(warning)))
  let baseSources: RouteSource[] = loaded.sources
  const engineOptions = { latency: options.latency ?? defaults.latency, pluginContext: options.pluginContext, logger }
  const engine = createEngine(compileRoutes(baseSources), engineOptions)
  const log = createRequestLog(options.requestLog)
  // Replaced in place when a changed config file is reloaded.
  const handlers = config.handlers
  let perTest: RequestHandler[] = []

  /**
   * Route overrides: '' for everyone, else per session; each has its own engine. A session's
   * table is the loaded routes, then everyone's overrides, then the session's own.
   */
  interface Override {
    layers: RouteSource[]
    engine: Engine
  }
  const overrides = new Map<string, Override>()
  /** Forgets what one session changed: sequences, overrides, handler stores (not the shared state). */
  const forgetSession = (session: string) => {
    engine.reset(session)
    overrides.get('')?.engine.reset(session)
    // The files its overrides named are no longer followed.
    if (overrides.delete(session)) followFiles()
    for (const handler of handlers) resetHandlerSession(handler, session)
  }
  // docs/behaviour.md, "Sessions": at most sessions.limit sessions keep state; LRU dropped first.
  const sessions = createSessionBound(options.sessions?.limit ?? DEFAULT_SESSION_LIMIT, (session) => {
    forgetSession(session)
    logger.debug(formatMessage(`session ${JSON.stringify(session.slice(0, 80))} dropped: more than ${options.sessions?.limit ?? DEFAULT_SESSION_LIMIT} sessions are live (sessions.limit). It starts afresh if it returns.`))
  })
  const inlineFiles = filesFor(options.data ?? process.cwd())
  const engineFor = (session: string) => overrides.get(session)?.engine ?? overrides.get('')?.engine ?? engine
  const tableWith = (layers: RouteSource[], session: string): RouteTable =>
    compileRoutes([...baseSources, ...(session !== '' ? (overrides.get('')?.layers ?? []) : []), ...layers])

  // Live reload (docs/behaviour.md, "Live reload and the working folder"): the config file, the
  // routes files and the data files the routes in force name are watched, nothing else.
  /** Data file paths, with the folders and names that serve them. */
  let dataPaths = new Map<string, Array<{ files: FolderFiles; name: string }>>()
  let routesPaths = new Set<string>()
  let fileWatch: FileWatch | undefined
  const followFiles = () => {
    if (!fileWatch) return
    const data = new Map<string, Array<{ files: FolderFiles; name: string }>>()
    const layers = [...baseSources, ...[...overrides.values()].flatMap((override) => override.layers)]
    for (const source of layers) {
      const files = source.files as Partial<FolderFiles>
      if (typeof files.pathOf !== 'function' || typeof files.invalidate !== 'function') continue
      for (const { name } of listFiles(source.routes)) {
        const path = files.pathOf(name)
        if (path === undefined) continue
        let users = data.get(path)
        if (!users) data.set(path, (users = []))
        if (!users.some((user) => user.files === files && user.name === name)) users.push({ files: files as FolderFiles, name })
      }
    }
    dataPaths = data
    routesPaths = new Set(config.routes.flatMap((spec) => (typeof spec.routes === 'string' ? [spec.routes] : [])))
    fileWatch.set([...data.keys(), ...routesPaths, ...(config.configFile ? [config.configFile] : [])])
  }

  const reloads: ReloadStatus = { count: 0 }
  let reloading: Promise<void> | undefined
  let reloadAgain: { config: boolean } | undefined
  /** Reloads the routes (and, when it changed, the config file); one reload at a time. */
  const reload = (configChanged: boolean): void => {
    if (reloading) {
      reloadAgain = { config: configChanged || (reloadAgain?.config ?? false) }
      return
    }
    reloading = reloadNow(configChanged).finally(() => {
      reloading = undefined
      const again = reloadAgain
      reloadAgain = undefined
      if (again && fileWatch) reload(again.config)
    })
  }
  const reloadNow = async (configChanged: boolean) => {
    try {
      let nextConfig = config
      if (configChanged && config.configFile) {
        markConfigChanged(config.configFile)
        nextConfig = await resolveConfig(input, { bundled: defaults.bundled ?? false }, optionOverrides)
        if (nextConfig.problems.length > 0) throw new ConfigError(nextConfig.problems)
        for (const warning of nextConfig.warnings) logger.warn(formatMessage(formatProblem(warning)))
      }
      const next = await readRoutes(nextConfig.routes, filesFor)
      for (const warning of next.warnings) logger.warn(formatMessage(formatProblem(warning)))
      if (nextConfig !== config) {
        const needRestart = RESTART_OPTIONS.filter((key) => !sameOption(config.options[key], nextConfig.options[key]))
        if (needRestart.length > 0) {
          logger.warn(formatMessage(`the config file changed ${needRestart.join(', ')}: ${needRestart.length > 1 ? 'these apply' : 'this applies'} at the next start. Restart mockyard to apply ${needRestart.length > 1 ? 'them' : 'it'}.`))
        }
        config = nextConfig
        handlers.splice(0, handlers.length, ...nextConfig.handlers)
      }
      baseSources = next.sources
      engine.setTable(compileRoutes(baseSources))
      for (const [session, override] of overrides) override.engine.setTable(tableWith(override.layers, session))
      followFiles()
      Object.assign(reloads, { count: reloads.count + 1, at: new Date().toISOString(), error: undefined })
      const names = config.routes.filter((r) => typeof r.routes === 'string').map((r) => r.label)
      logger.info(formatMessage(`routes reloaded from ${configChanged && config.configFile ? config.configFile : names.join(', ')}`))
    } catch (error) {
      Object.assign(reloads, { count: reloads.count + 1, at: new Date().toISOString(), error: error instanceof Error ? error.message : String(error) })
      logger.error(error instanceof ConfigError ? error.message + '\n' + formatMessage('keeping the last good routes.') : error)
    }
  }
  if (watching) {
    fileWatch = watchFiles((paths) => {
      let configChanged = false
      let routesChanged = false
      for (const path of paths) {
        if (path === config.configFile) configChanged = true
        if (routesPaths.has(path)) routesChanged = true
        const users = dataPaths.get(path)
        if (!users) continue
        for (const { files, name } of users) files.invalidate(name)
        logger.info(formatMessage(`data file changed, served fresh from now on: ${path}`))
      }
      if (configChanged || routesChanged) reload(configChanged)
    }, (folder, error) => {
      logger.warn(formatMessage(`cannot watch ${folder} (${error.code ?? error.message}): edits there are not reloaded. Raise the system's limit of file watches (fs.inotify.max_user_watches on Linux), or restart mockyard after editing.`))
    })
    followFiles()
  }

  /** The outcome of a request the engine handled, recorded in the log. */
  function outcomeOf(request: SurfaceRequest, session: string, started: number, time: number, result: HandleResult, body: Uint8Array | null): Outcome {
    if (!result.matched) {
      // Computed once, for the 404, the warning and the log alike; the request is released then.
      let explain: (() => string) | undefined = result.explanation
      let text: string | undefined
      const explanation = () => {
        if (text === undefined) {
          text = explain!()
          explain = undefined
        }
        return text
      }
      return { kind: 'unmatched', explanation, record: record(request, session, started, time, body, 0, request.proxied ? PROXIED : undefined, undefined, explanation) }
    }
    const { info } = result
    return { kind: 'route', response: result.response, info, record: record(request, session, started, time, body, info.status, info, result.response.headers) }
  }

  function record(
    request: SurfaceRequest,
    session: string,
    started: number,
    time: number,
    body: Uint8Array | null,
    status: number,
    info?: Partial<MatchInfo>,
    responseHeaders?: RequestInput['responseHeaders'],
    explanation?: () => string,
  ): LogEntry {
    return log.add({
      time,
      method: request.method.toUpperCase(),
      url: request.url,
      headers: request.logHeaders,
      body,
      session,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      status,
      matched: info !== undefined && info !== PROXIED,
      route: info?.route,
      entry: info?.entry,
      file: info?.file,
      responseHeaders,
      explanation,
    })
  }

  async function respond(request: SurfaceRequest, session = ''): Promise<Outcome> {
    sessions.touch(session)
    const started = performance.now()
    const time = Date.now()
    // Start reading the body before any handler can consume the request (memoised by the adapters).
    const bodyRead = request.body().catch(() => null)
    const extra = perTest.length > 0 ? [...perTest, ...handlers] : handlers
    if (extra.length > 0) {
      // msw is loaded only when there are handlers: it is costly at start (bench/README.md, "msw loaded only for handlers").
      const { getResponse } = await import('msw')
      const response = await getResponse(extra, await request.toFetch())
      if (response) {
        return { kind: 'handler', response, record: record(request, session, started, time, await bodyRead, response.status, { entry: 'handler' }, response.headers) }
      }
    }
    const result = await engineFor(session).handle(request, { session })
    return outcomeOf(request, session, started, time, result, await bodyRead)
  }

  function respondNow(request: SurfaceRequest, session = ''): Outcome | Promise<Outcome> {
    const body = request.bodyBytes
    if (body === undefined || perTest.length > 0 || handlers.length > 0) return respond(request, session)
    sessions.touch(session)
    const started = performance.now()
    const time = Date.now()
    const result = engineFor(session).handleNow(request, body, { session })
    if (result instanceof Promise) return result.then((settled) => outcomeOf(request, session, started, time, settled, body))
    return outcomeOf(request, session, started, time, result, body)
  }

  return {
    get config() {
      return config
    },
    options,
    logger,
    logsRequests: options.logProvider !== undefined || LOG_LEVELS.indexOf(defaults.logLevel) >= LOG_LEVELS.indexOf('info'),
    engine,
    log,
    handlers,
    respond,
    respondNow,
    use(...next) {
      perTest = [...next, ...perTest]
    },
    useRoutes(input, session = '') {
      let routes: RoutesConfig
      let files = inlineFiles
      if (typeof input === 'string') {
        const path = resolvePath(input)
        let text: string
        try {
          text = readFileSync(path, 'utf8')
        } catch (cause) {
          throw new ConfigError([{ file: path, pointer: '', message: 'the routes file cannot be read', fix: 'Check the path given to useRoutes().' }], { cause })
        }
        const parsed = parseJsonFile(text, path)
        if (parsed.problem) throw new ConfigError([parsed.problem])
        routes = parsed.value as RoutesConfig
        files = filesFor(defaultDataFor(dirname(path)))
        const { errors } = validateRoutes(routes, path)
        if (errors.length > 0) throw new ConfigError(errors)
      } else {
        routes = input
        const { errors } = validateRoutes(routes, 'useRoutes()')
        if (errors.length > 0) throw new ConfigError(errors)
      }
      sessions.touch(session)
      const previous = overrides.get(session)
      const layers = [...(previous?.layers ?? []), { file: typeof input === 'string' ? input : 'overrides', routes, files }]
      overrides.set(session, { layers, engine: createEngine(tableWith(layers, session), engineOptions) })
      followFiles()
    },
    defaults,
    reloads,
    inspect(session = '') {
      return {
        engine: engineFor(session),
        overrides: (overrides.get('')?.layers ?? []).map((layer) => layer.routes),
        sessionOverrides: session === '' ? [] : (overrides.get(session)?.layers ?? []).map((layer) => layer.routes),
      }
    },
    routes(session = '') {
      return (overrides.get(session)?.engine ?? overrides.get('')?.engine ?? engine).table.config
    },
    reset(session) {
      if (session === undefined || session === '') {
        engine.reset()
        if (overrides.size > 0) {
          overrides.clear()
          followFiles()
        }
        sessions.forget()
        perTest = []
        log.clear()
        for (const handler of handlers) resetHandler(handler)
      } else {
        forgetSession(session)
        sessions.forget(session)
        log.clear(session)
      }
    },
    async close() {
      fileWatch?.close()
      fileWatch = undefined
      for (const files of folders.values()) files.close()
    },
  }
}

/** Wraps a Fetch `Request` (from an interceptor or a worker) for `Instance.respond`. */
export function surfaceRequestFromFetch(request: Request): SurfaceRequest {
  return { ...fromFetchRequest(request), logHeaders: request.headers, toFetch: () => request }
}
