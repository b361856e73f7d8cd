import { dirname, resolve as resolvePath } from 'node:path'
import type { Engine } from '../core/create-engine.js'
import { ConfigError, formatMessage, formatProblem } from '../core/errors.js'
import { DEFAULT_BODY_LIMIT, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_LATENCY_MS } from '../core/defaults.js'
import type { MockHandler } from '../harness/handler-kinds.js'
import { createPipeline, pipelineRequestFromFetch, type Pipeline, type PipelineStats, type Outcome, type PipelineRequest, type RespondOptions } from '../harness/pipeline.js'
import type { RequestLog } from '../harness/request-log.js'
import type { Logger, RoutesConfig } from '../core/types.js'
import { validateRoutes } from '../core/validate-routes.js'
import { openConfigSource, type ReloadStatus } from './config-source.js'
import { defaultDataFor, parseJsonFile, resolveConfig, type ResolvedConfig } from './load-config.js'
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js'
import { parseSize, type MockyardOptions } from './options.js'
import { readTextFile } from './read-text.js'
import type { Coverage, TrafficCheck } from '../harness/traffic-check.js'

export type { Outcome, RespondOptions, SentAnswer } from '../harness/pipeline.js'
export type { ReloadStatus } from './config-source.js'

/** The defaults a surface applies where the options say nothing (docs/behaviour.md, "Defaults per surface"). */
export interface SurfaceDefaults {
  latency: number
  watch: boolean
  logLevel: LogLevel
  /** Serve the bundled mocks when no routes, plugins or config file are given. */
  bundled?: boolean
  /** Print option warnings even when `logLevel` hides warnings (surfaces quiet by default; docs/behaviour.md, "Options"). */
  warnOptions?: boolean
  /**
   * Read each data file when first served instead of at load, checking only that it exists (in
   * process under a test runner: a test file loads faster). Default: where warnings are hidden.
   * A `logProvider` always has them read and checked at load.
   */
  readOnFirstUse?: boolean
}

/** The listener's, the middleware's and `MockServer`'s defaults: a person watches, so latency and live reload. */
export const LISTENER_DEFAULTS: SurfaceDefaults = { latency: DEFAULT_LATENCY_MS, watch: true, logLevel: 'info' }

/** `startMockServer`'s and `createHandlers`'s: tests want no delay, no watching and quiet logs. */
export const TEST_DEFAULTS: SurfaceDefaults = { latency: 0, watch: false, logLevel: 'error', warnOptions: true }

/** The largest body an instance's listener or middleware reads, in bytes (the `limit` option). */
export function bodyLimitOf(instance: Instance): number {
  return parseSize(instance.options.limit ?? DEFAULT_BODY_LIMIT) ?? DEFAULT_BODY_LIMIT_BYTES
}

/** A request as every node surface hands it over (the pipeline's request). */
export type SurfaceRequest = PipelineRequest

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
  readonly handlers: MockHandler[]
  /**
   * Answers a request: extra handlers first, then the routes; records it in the log (see
   * `Outcome`). The outcome comes at once when nothing needs a wait (the body already read, no
   * extra handlers, no latency, the file in memory: the HTTP listener's hot path), else a
   * promise of it.
   */
  respond(request: SurfaceRequest, options?: RespondOptions): Outcome | Promise<Outcome>
  /** Adds handlers in front of all others until the next reset. */
  use(...handlers: MockHandler[]): void
  /** The handlers in force, in the order they are tried: the `use()` ones (newest first), then `handlers`. */
  handlersInUse(): readonly MockHandler[]
  /** Whether a handler or a route of the session's table could answer a request to this path (`Pipeline.mayAnswer`). */
  mayAnswer(pathname: string, session?: string): boolean
  /**
   * Overrides routes (for one session, or for everyone) until the next reset, replacing what they
   * answer (docs/behaviour.md, "Overrides"): an object,
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
  inspect(session?: string): { engine: Engine; overrides: RoutesConfig[]; sessionOverrides: RoutesConfig[]; overriddenSessions: string[] }
  /** The per-session state held now (sessions counted, engines, sessions with sequence positions). */
  stats(): PipelineStats
  /** Aborts at the reset of that session (or everyone's) and at `close()`: what stays open (a hung request, a stream) ends then (`Pipeline.lifetime`). */
  lifetime(session?: string): AbortSignal
  /** Ends everything open (streams, hung requests: every session's lifetime) at once: the surface is stopping. */
  endOpen(): void
  /** After `endOpen()`: the latencies still running end, and their requests are answered at once (a stop's grace is over). */
  answerWaiting(): void
  /** Stops watching files and ends everything open. */
  /**
   * Checks each answered exchange against an OpenAPI document from now on: the `validate`
   * option's checker, which each surface loads (src/check/contract.ts) only when it is set.
   */
  setTrafficCheck(check: TrafficCheck | undefined): void
  /** The checker of the `validate` option, once loaded. */
  readonly trafficCheck: TrafficCheck | undefined
  /** The document's operations answered and never answered since the start (`validate` set). */
  coverage(): Coverage
  /** A WebSocket opened on a request's path: the route's script, or why none (docs/behaviour.md, "WebSocket"). */
  openSocket: Pipeline['openSocket']
  close(): Promise<void>
}

/**
 * Options a changed config file cannot change in a running instance (the listener, the engine and
 * the logger are built with them): a change is logged as needing a restart.
 */
const RESTART_OPTIONS = ['port', 'host', 'latency', 'limit', 'pluginContext', 'watch', 'requestLog', 'admin', 'logProvider', 'onUnhandledRequest', 'validate'] as const

function sameOption(a: unknown, b: unknown): boolean {
  if (typeof a === 'function' || typeof b === 'function') return typeof a === typeof b
  return JSON.stringify(a) === JSON.stringify(b)
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
  // The data files are read and checked at load unless the surface reads them on first use
  // (Vitest; surfaces whose warnings are hidden), where only their existence is checked.
  const readOnFirstUse = defaults.readOnFirstUse ?? LOG_LEVELS.indexOf(defaults.logLevel) < LOG_LEVELS.indexOf('warn')
  const checkFiles = (config: ResolvedConfig) => config.options.logProvider !== undefined || !readOnFirstUse
  const source = await openConfigSource(() => resolveConfig(input, { bundled: defaults.bundled ?? false }, optionOverrides), { checkFiles })
  const options = source.config.options
  const logger = options.logProvider ? options.logProvider() : createLogger(defaults.logLevel)
  const watching = options.watch ?? defaults.watch
  const optionLogger = defaults.warnOptions && !options.logProvider && LOG_LEVELS.indexOf(defaults.logLevel) < LOG_LEVELS.indexOf('warn') ? createLogger('warn') : logger
  for (const warning of source.config.warnings) optionLogger.warn(formatMessage(formatProblem(warning)))
  for (const warning of source.warnings) logger.warn(formatMessage(formatProblem(warning)))
  const pipeline = createPipeline({
    sources: source.sources,
    engine: { latency: options.latency ?? defaults.latency, pluginContext: options.pluginContext, logger },
    // Replaced in place when a changed config file is reloaded.
    handlers: source.config.handlers,
    requestLog: options.requestLog,
    sessionLimit: options.sessions?.limit,
    logger,
    // The files the overrides name are followed while they are in force.
    onOverridesChanged: () => source.follow(),
  })
  /**
   * Where the files of an inline override (`useRoutes({...})`) are read: the `data` option, else
   * the data folder of the first local routes file (as the worker reads them from its first
   * source's), else the working folder. Looked up at each call: a reload may have moved it.
   */
  const inlineFiles = () => {
    const { config } = source
    const local = [config.options.routes ?? []].flat().find((routes) => typeof routes === 'string')
    const data = config.options.data ?? config.routes.find((spec) => spec.routes === local)?.data ?? process.cwd()
    return source.filesFor(data)
  }

  // Live reload (docs/behaviour.md, "Live reload and the working folder"): the source watches;
  // each good reload hands the new table (and handlers) to the pipeline.
  if (watching) {
    // What is in force until a restart: a config file changed back to it needs none.
    const running = source.config.options
    source.watch(logger, () => pipeline.overrideLayers(), ({ config, previous, sources }) => {
      if (config !== previous) {
        const needRestart = RESTART_OPTIONS.filter((key) => !sameOption(running[key], config.options[key]))
        if (needRestart.length > 0) {
          logger.warn(formatMessage(`the config file changed ${needRestart.join(', ')}: ${needRestart.length > 1 ? 'these apply' : 'this applies'} at the next start. Restart mockyard to apply ${needRestart.length > 1 ? 'them' : 'it'}.`))
        }
        pipeline.setHandlers(config.handlers)
      }
      pipeline.setSources(sources)
    })
  }

  return {
    get config() {
      return source.config
    },
    options,
    logger,
    logsRequests: options.logProvider !== undefined || LOG_LEVELS.indexOf(defaults.logLevel) >= LOG_LEVELS.indexOf('info'),
    engine: pipeline.engine,
    log: pipeline.log,
    handlers: pipeline.handlers,
    respond: pipeline.respond,
    use: pipeline.use,
    handlersInUse: pipeline.handlersInUse,
    mayAnswer: pipeline.mayAnswer,
    stats: pipeline.stats,
    openSocket: pipeline.openSocket,
    useRoutes(input, session = '') {
      let routes: RoutesConfig
      let files = inlineFiles()
      if (typeof input === 'string') {
        const path = resolvePath(input)
        let text: string
        try {
          text = readTextFile(path)
        } catch (cause) {
          throw new ConfigError([{ file: path, pointer: '', message: 'the routes file cannot be read', fix: 'Check the path given to useRoutes().' }], { cause })
        }
        const parsed = parseJsonFile(text, path)
        if (parsed.problem) throw new ConfigError([parsed.problem])
        routes = parsed.value as RoutesConfig
        files = source.filesFor(defaultDataFor(dirname(path)))
      } else {
        routes = input
      }
      const { errors, warnings } = validateRoutes(routes, typeof input === 'string' ? resolvePath(input) : 'useRoutes()', { override: true })
      if (errors.length > 0) throw new ConfigError(errors)
      // An unknown key in an override (a typo'd `fiel`) is warned about as in a routes file.
      for (const warning of warnings) logger.warn(formatMessage(formatProblem(warning)))
      pipeline.override({ file: typeof input === 'string' ? input : 'overrides', routes, files }, session)
    },
    defaults,
    reloads: source.reloads,
    inspect(session = '') {
      const { engine, overrides, sessionOverrides, overriddenSessions } = pipeline.inspect(session)
      return { engine, overrides: overrides.map((layer) => layer.routes), sessionOverrides: sessionOverrides.map((layer) => layer.routes), overriddenSessions }
    },
    routes(session = '') {
      return pipeline.inspect(session).engine.table.config
    },
    reset: pipeline.reset,
    lifetime: pipeline.lifetime,
    endOpen: pipeline.close,
    answerWaiting: pipeline.hurry,
    setTrafficCheck: pipeline.setTrafficCheck,
    get trafficCheck() {
      return pipeline.trafficCheck
    },
    coverage() {
      const check = pipeline.trafficCheck
      if (check === undefined) throw new Error(formatMessage('coverage() needs the validate option: set validate to the path of your OpenAPI document (--validate openapi.yaml on the command line).'))
      return check.coverage()
    },
    async close() {
      // What stays open (a hung request, a stream, a socket) ends with the surface.
      pipeline.close()
      source.close()
    },
  }
}

/** Wraps a Fetch `Request` (from an interceptor or a worker) for `Instance.respond`. */
export const surfaceRequestFromFetch: (request: Request) => SurfaceRequest = pipelineRequestFromFetch
