import { readFileSync, watch, type FSWatcher } from 'node:fs'
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
import { validateRoutes } from '../core/validate-routes.js'
import { folderFiles, type FolderFiles } from './folder-files.js'
import { defaultDataFor, loadConfig, parseJsonFile, readRoutes, type ResolvedConfig } from './load-config.js'
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js'
import type { MockyardOptions } from './options.js'

/** The defaults a surface applies where the options say nothing (docs/behaviour.md, "Defaults per surface"). */
export interface SurfaceDefaults {
  latency: number
  watch: boolean
  logLevel: LogLevel
  /** Serve the bundled mocks when no routes, plugins or config file are given. */
  bundled?: boolean
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
  close(): Promise<void>
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
  // The folders are made while loading; the logger and watch flag are known once options are read.
  const folders = new Map<string, FolderFiles>()
  const settings: { logger?: Logger; watch?: boolean } = {}
  const filesFor = (data: string) => {
    let files = folders.get(data)
    if (!files) {
      files = folderFiles(data, { onChange: (name) => settings.logger?.info(formatMessage(`data file changed, served fresh from now on: ${name}`)) })
      folders.set(data, files)
      if (settings.watch) files.watch()
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
  settings.logger = logger
  const watching = options.watch ?? defaults.watch
  settings.watch = watching
  if (watching) for (const files of folders.values()) files.watch()
  for (const warning of loaded.warnings) logger.warn(formatMessage(formatProblem(warning)))
  let baseSources: RouteSource[] = loaded.sources
  const engineOptions = { latency: options.latency ?? defaults.latency, pluginContext: options.pluginContext, logger }
  const engine = createEngine(compileRoutes(baseSources), engineOptions)
  const log = createRequestLog(options.requestLog)
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
  const inlineFiles = filesFor(options.data ?? process.cwd())
  const engineFor = (session: string) => overrides.get(session)?.engine ?? overrides.get('')?.engine ?? engine
  const tableWith = (layers: RouteSource[], session: string): RouteTable =>
    compileRoutes([...baseSources, ...(session !== '' ? (overrides.get('')?.layers ?? []) : []), ...layers])

  const watchers: FSWatcher[] = []
  if (watching) {
    let timer: NodeJS.Timeout | undefined
    const reload = async () => {
      try {
        const next = await readRoutes(config.routes, filesFor)
        for (const warning of next.warnings) logger.warn(formatMessage(formatProblem(warning)))
        baseSources = next.sources
        engine.setTable(compileRoutes(baseSources))
        for (const [session, override] of overrides) override.engine.setTable(tableWith(override.layers, session))
        logger.info(formatMessage(`routes reloaded from ${config.routes.filter((r) => typeof r.routes === 'string').map((r) => r.label).join(', ')}`))
      } catch (error) {
        logger.error(error instanceof ConfigError ? error.message + '\n' + formatMessage('keeping the last good routes.') : error)
      }
    }
    for (const spec of config.routes) {
      if (typeof spec.routes !== 'string') continue
      try {
        const watcher = watch(spec.routes, { persistent: false }, () => {
          clearTimeout(timer)
          timer = setTimeout(() => void reload(), 40)
        })
        watcher.on('error', () => undefined)
        watchers.push(watcher)
      } catch {
        // The file vanished between load and watch: nothing to watch.
      }
    }
  }

  /** The outcome of a request the engine handled, recorded in the log. */
  function outcomeOf(request: SurfaceRequest, session: string, started: number, time: number, result: HandleResult, body: Uint8Array | null): Outcome {
    if (!result.matched) return { kind: 'unmatched', explanation: result.explanation, record: record(request, session, started, time, body, 0, request.proxied ? PROXIED : undefined) }
    const { info } = result
    return { kind: 'route', response: result.response, info, record: record(request, session, started, time, body, info.status, info) }
  }

  function record(request: SurfaceRequest, session: string, started: number, time: number, body: Uint8Array | null, status: number, info?: Partial<MatchInfo>): LogEntry {
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
    })
  }

  async function respond(request: SurfaceRequest, session = ''): Promise<Outcome> {
    const started = performance.now()
    const time = Date.now()
    // Start reading the body before any handler can consume the request (memoised by the adapters).
    const bodyRead = request.body().catch(() => null)
    const extra = perTest.length > 0 ? [...perTest, ...handlers] : handlers
    if (extra.length > 0) {
      // msw is loaded only when there are handlers: it costs ~100 ms and ~30 MB at start.
      const { getResponse } = await import('msw')
      const response = await getResponse(extra, await request.toFetch())
      if (response) {
        return { kind: 'handler', response, record: record(request, session, started, time, await bodyRead, response.status, { entry: 'handler' }) }
      }
    }
    const result = await engineFor(session).handle(request, { session })
    return outcomeOf(request, session, started, time, result, await bodyRead)
  }

  function respondNow(request: SurfaceRequest, session = ''): Outcome | Promise<Outcome> {
    const body = request.bodyBytes
    if (body === undefined || perTest.length > 0 || handlers.length > 0) return respond(request, session)
    const started = performance.now()
    const time = Date.now()
    const result = engineFor(session).handleNow(request, body, { session })
    if (result instanceof Promise) return result.then((settled) => outcomeOf(request, session, started, time, settled, body))
    return outcomeOf(request, session, started, time, result, body)
  }

  return {
    config,
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
      const previous = overrides.get(session)
      const layers = [...(previous?.layers ?? []), { file: typeof input === 'string' ? input : 'overrides', routes, files }]
      overrides.set(session, { layers, engine: createEngine(tableWith(layers, session), engineOptions) })
    },
    routes(session = '') {
      return (overrides.get(session)?.engine ?? overrides.get('')?.engine ?? engine).table.config
    },
    reset(session) {
      if (session === undefined || session === '') {
        engine.reset()
        overrides.clear()
        perTest = []
        log.clear()
        for (const handler of handlers) resetHandler(handler)
      } else {
        engine.reset(session)
        overrides.delete(session)
        log.clear(session)
        for (const handler of handlers) resetHandlerSession(handler, session)
      }
    },
    async close() {
      for (const watcher of watchers) watcher.close()
      for (const files of folders.values()) files.close()
    },
  }
}

/** Wraps a Fetch `Request` (from an interceptor or a worker) for `Instance.respond`. */
export function surfaceRequestFromFetch(request: Request): SurfaceRequest {
  return { ...fromFetchRequest(request), logHeaders: request.headers, toFetch: () => request }
}
