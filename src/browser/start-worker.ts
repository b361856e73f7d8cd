import { bypass, getResponse, HttpHandler, ws, type RequestHandler } from 'msw'
import { setupWorker, type SetupWorker } from 'msw/browser'
import type { RouteSource } from '../core/compile-routes.js'
import type { Engine } from '../core/create-engine.js'
import { ConfigError, formatMessage } from '../core/errors.js'
import { networkFault, toFetchResponse } from '../core/fetch-request.js'
import { memoryFiles } from '../core/memory-files.js'
import { createPipeline, pipelineRequestFromFetch } from '../harness/pipeline.js'
import { createHarness, type HarnessApi } from '../harness/harness-api.js'
import { applyUnhandled, isBypassed, type UnhandledRequestStrategy } from '../harness/unhandled.js'
import { driveClient, type ClientConnection } from '../harness/websocket.js'
import type { FileSource, Logger, RoutesConfig } from '../core/types.js'
import { validateRoutes } from '../core/validate-routes.js'
import { WORKER_PATH, type SerializedConfig, type SerializedSource } from './config.js'
import { defaultConfigUrl, viteBase } from './base-path.js'
import { feedMemory } from './feed-memory.js'
import { answersAssets, isDevServerTraffic, isPageLoad, isStaticAsset } from './quiet-requests.js'
import { fetchFiles } from './fetch-files.js'
import { countOf } from '../core/count.js'
import { DEFAULT_LATENCY_MS } from '../core/defaults.js'

/**
 * The browser's default latency in ms (docs/behaviour.md, "Defaults per surface").
 *
 * @example
 * await startWorker({ latency: BROWSER_LATENCY * 2 })
 */
export const BROWSER_LATENCY = DEFAULT_LATENCY_MS

/**
 * What `startWorker` does with a request that neither a handler nor a route answers.
 *
 * @example
 * await startWorker({ onUnhandledRequest: 'error' satisfies BrowserUnhandledStrategy })
 */
export type BrowserUnhandledStrategy = UnhandledRequestStrategy

/**
 * Options of `startWorker`. Everything is optional: in a Vite app with the `mockyard/vite`
 * plugin, `await startWorker()` is enough.
 *
 * @example
 * const options: StartWorkerOptions = { handlers: createNotificationsHandlers({ notifications, defaultUser: 'aka-user' }) }
 */
export interface StartWorkerOptions {
  /** The route table. Default: fetched from the Vite plugin at `configUrl`. */
  config?: SerializedConfig
  /** Where to fetch the config when `config` is not given. Default `/@mockyard/config.json` under Vite's `base` (`/app/@mockyard/config.json` with `base: '/app/'`). */
  configUrl?: string
  /** Extra msw handlers (notifications, for example), tried before the routes. */
  handlers?: RequestHandler[]
  /** Global latency in ms; overrides the config's. Default: the config's, else 250. */
  latency?: number
  /** The value of `${context}` in text files; overrides the config's. Default: each request's origin. */
  pluginContext?: string
  /**
   * A request nothing answers: `'warn'` (default) lets it go to the network and prints why no
   * route took it; `'bypass'` lets it go silently; `'error'` prints the reason and fails the
   * request with a network error. Page loads, Vite's own requests (under its `base` too) and
   * static assets (scripts, styles, images, fonts, media) always go silently (docs/browser.md,
   * "What the worker answers").
   */
  onUnhandledRequest?: BrowserUnhandledStrategy
  /** `false` turns msw's own per-request console logging back on. Default `true` (quiet). */
  quiet?: boolean
  /** The worker script's URL and registration options. Default: the config's `workerUrl`, else `/mockServiceWorker.js`. */
  serviceWorker?: { url?: string; options?: RegistrationOptions }
  /** The request log's bound (default 1,000 records). */
  requestLog?: { limit?: number }
  /** Where mockyard's messages go. Default `console`. */
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>
}

/**
 * A running browser worker: the handle `startWorker` resolves with.
 *
 * @example
 * const mocks: MockyardWorker = await startWorker()
 * await fetch('/v1/users')
 * mocks.requests({ route: 'v1/users' }).length // 1
 * mocks.reset()
 */
export interface MockyardWorker extends Omit<HarnessApi, 'useRoutes' | 'coverage'> {
  /** Overrides routes until the next reset (docs/behaviour.md, "Overrides"): an object; their files come from the first source's data. */
  useRoutes(routes: RoutesConfig): void
  /** msw's worker (`setupWorker`), for anything mockyard does not wrap. */
  readonly worker: SetupWorker
  /** The engine over the route table. */
  readonly engine: Engine
  /** The config the worker runs on. */
  readonly config: SerializedConfig
  /** Stops intercepting this page's requests. */
  stop(): Promise<void>
}

/**
 * An unmatched request to another origin than the page's: the explanation names the path only,
 * so the full URL is added (the worker answers a route's path on any origin).
 */
function withOrigin(explanation: string, request: Request): string {
  const url = new URL(request.url)
  if (globalThis.location === undefined || url.origin === globalThis.location.origin) return explanation
  return `${explanation}\nThe request went to ${url.href}, another origin than the page's (${globalThis.location.origin}): a route answers its path on any origin.`
}

async function fetchConfig(url: string): Promise<SerializedConfig> {
  let response: Response
  try {
    response = await fetch(bypass(url, { cache: 'no-store' }))
  } catch (cause) {
    throw new Error(formatMessage(`the route table could not be fetched from ${url}: ${(cause as Error).message}. Add the mockyard plugin to vite.config (plugins: [mockyard(...)]), or pass startWorker({ config }).`), { cause })
  }
  const type = response.headers.get('content-type') ?? ''
  if (!response.ok || !type.includes('json')) {
    throw new Error(formatMessage(`the route table could not be fetched from ${url}: ${response.status} ${type || 'no content type'}. Add the mockyard plugin to vite.config (plugins: [mockyard(...)]), or pass startWorker({ config }).`))
  }
  return (await response.json()) as SerializedConfig
}

/** The data files of one source: inline files first, then the data URL. */
function filesOf(source: SerializedSource, base: string, byUrl: Map<string, FileSource>): FileSource {
  let remote: FileSource | undefined
  if (source.dataUrl !== undefined) {
    const href = new URL(source.dataUrl, base).href
    remote = byUrl.get(href) ?? fetchFiles(href)
    byUrl.set(href, remote)
  }
  if (!source.files) return remote ?? memoryFiles({}, source.file)
  const inline = memoryFiles(source.files, source.file)
  if (!remote) return inline
  const fallback = remote
  return { label: fallback.label, read: async (name) => (await inline.read(name)) ?? fallback.read(name) }
}

/** Validates and binds the serialized sources to their files. */
function toRouteSources(config: SerializedConfig, base: string, logger: Pick<Logger, 'warn'>): RouteSource[] {
  if (!config || !Array.isArray(config.sources)) {
    throw new ConfigError([{ file: 'startWorker()', pointer: '/config/sources', message: 'the config has no sources array', fix: 'Pass { sources: [{ file, routes, dataUrl }] }, or let the Vite plugin provide the config.' }])
  }
  const byUrl = new Map<string, FileSource>()
  const errors: ConfigError['problems'] = []
  const sources: RouteSource[] = []
  config.sources.forEach((source, index) => {
    const label = source.file || `startWorker()#/config/sources/${index}`
    const result = validateRoutes(source.routes, label)
    errors.push(...result.errors)
    // The plugin sends its own warnings; a config made by hand is checked here.
    if (config.warnings === undefined) for (const warning of result.warnings) logger.warn(formatMessage(`${warning.file}#${warning.pointer}: ${warning.message}. ${warning.fix}`))
    sources.push({ file: label, routes: source.routes, files: filesOf(source, base, byUrl) })
  })
  if (errors.length > 0) throw new ConfigError(errors)
  return sources
}


/** The one msw handler of the page: every request goes to mockyard's pipeline. */
class PipelineHandler extends HttpHandler {
  constructor(answer: (request: Request) => Promise<Response | undefined>) {
    super(/.*/, () => true, ({ request }) => answer(request))
  }
}

/**
 * Starts msw's service worker in the page with mockyard's route table and any extra handlers.
 * The table comes from `options.config`, or from the Vite plugin (`/@mockyard/config.json` under
 * Vite's `base`, fetched before the worker starts). Data files are fetched from the dev server
 * as they are needed, with msw's `bypass()`. Requests nothing answers go to the network, with a
 * console warning that says why no route took them. Vite's own requests (under its `base` too)
 * never reach the routes; page loads and static assets reach only routes under a literal path;
 * all of them pass silently otherwise. An `EventSource`'s reconnect gets the `Last-Event-ID` Chromium keeps from the worker.
 * Latency defaults to 250 ms. Every call has its own engine, sequences and request log.
 *
 * @example
 * // src/main.ts of a Vite app with `mockyard()` in vite.config.ts
 * import { startWorker } from 'mockyard/browser'
 *
 * if (import.meta.env.DEV) await startWorker()
 *
 * @example
 * // without Vite: serve msw's mockServiceWorker.js at /, and pass the routes
 * const mocks = await startWorker({
 *   config: { sources: [{ file: 'routes.json', routes: { 'v1/users': { file: 'users.json' } }, dataUrl: '/mocks/data/' }] },
 * })
 * mocks.requests({ path: '/v1/users' })
 */
export async function startWorker(options: StartWorkerOptions = {}): Promise<MockyardWorker> {
  const logger = options.logger ?? console
  // Vite's base, as Vite gives it to the page: where the plugin serves the table, and the prefix
  // of the dev server's own requests (`/app/@id/…`, `/app/src/…`).
  const basePath = viteBase()
  const configUrl = options.configUrl ?? defaultConfigUrl(basePath)
  const config = options.config ?? (await fetchConfig(configUrl))
  const base = options.config ? globalThis.location.href : new URL(configUrl, globalThis.location.href).href
  if (config.error) logger.error(config.error)
  for (const warning of config.warnings ?? []) logger.warn(warning)

  const latency = options.latency ?? config.latency ?? BROWSER_LATENCY
  // The pipeline every surface shares: use() handlers, extra handlers, then the routes, with the
  // request log (see ARCHITECTURE.md). One msw handler hands it every request of the page.
  const sources = toRouteSources(config, base, logger)
  const pipeline = createPipeline({
    sources,
    engine: { latency, pluginContext: options.pluginContext ?? config.pluginContext },
    handlers: [...(options.handlers ?? [])],
    requestLog: options.requestLog,
    // msw is in the page already: a lazy import of it would be a request this worker holds.
    getResponse,
  })
  const engine = pipeline.engine
  const strategy = options.onUnhandledRequest ?? 'warn'

  // EventSource reconnects, which reach the worker without their Last-Event-ID (feed-memory.ts).
  const feeds = feedMemory()

  const handler = new PipelineHandler(async (sent) => {
    if (isBypassed(sent)) return undefined
    // The dev server's own requests: never the routes' (docs/browser.md).
    if (isDevServerTraffic(sent, basePath)) return byHandlers(sent)
    // Page loads and the page's static assets: a route whose key starts with a literal segment
    // may answer them; otherwise they pass without a warning.
    if (isPageLoad(sent) || isStaticAsset(sent)) {
      const match = pipeline.inspect().engine.table.lookup(new URL(sent.url).pathname)
      if (match === undefined || !answersAssets(match.route.key)) return byHandlers(sent)
    }
    const request = feeds.resume(sent)
    const outcome = await pipeline.respond(pipelineRequestFromFetch(request))
    if (outcome.kind === 'handler') return outcome.response
    if (outcome.kind === 'route') {
      if (outcome.response.fault !== undefined) return networkFault(outcome.response, request, () => outcome.lifetime ?? pipeline.lifetime(), 'network error: the connection closed before the end of the body')
      return feeds.watch(request, toFetchResponse(outcome.response))
    }
    // Recorded as unanswered (status 0): it goes to the network, or fails, with the engine's
    // explanation (of a known route; for any other path, the closest routes).
    outcome.settle({ status: 0 })
    return applyUnhandled<Response | undefined>(strategy, () => withOrigin(outcome.explanation(), request), {
      fallThrough: () => undefined,
      fail(explanation) {
        logger.error(`${explanation}\nThe request fails (onUnhandledRequest: "error").`)
        return Response.error()
      },
      warn: (explanation) => logger.warn(`${explanation}\nThe request goes to the network.`),
    })
  })

  /** A request the routes leave alone: the handlers (use(), the extra ones) may still answer it. */
  async function byHandlers(request: Request): Promise<Response | undefined> {
    const outcome = await pipeline.respondByHandlers(pipelineRequestFromFetch(request))
    return outcome?.kind === 'handler' ? outcome.response : undefined
  }

  // The page's WebSockets (msw's `ws` API over the global `WebSocket`): a route's steps answer
  // them; any other socket (the dev server's own, a real back end) goes to the network unrecorded.
  const sockets = ws.link(/.*/).addEventListener('connection', ({ client, server }) => {
    const opened = pipeline.openSocket({ url: client.url.href, logHeaders: [] })
    if (opened.kind === 'unmatched') server.connect()
    else driveClient(opened, client as unknown as ClientConnection)
  })
  const worker = setupWorker(handler, sockets)

  const workerUrl = options.serviceWorker?.url ?? config.workerUrl ?? WORKER_PATH
  const quiet = options.quiet !== false
  await worker.start({
    serviceWorker: { url: workerUrl, ...(options.serviceWorker?.options ? { options: options.serviceWorker.options } : {}) },
    quiet,
    // Every request reaches the handler above; this covers the rest (WebSocket connections in msw 3).
    onUnhandledFrame: 'bypass',
    onUnhandledRequest: 'bypass',
  } as Parameters<SetupWorker['start']>[0])

  const count = engine.table.routes.length
  const files = config.sources.map((s) => s.file).join(', ')
  logger.info(
    formatMessage(
      `mocking ${countOf(count, 'route')}${files ? ` from ${files}` : ''} in this page (worker ${workerUrl}, latency ${latency} ms). ` +
        (strategy === 'warn' ? 'Requests no route answers go to the network, with a warning.' : strategy === 'bypass' ? 'Requests no route answers go to the network.' : 'Requests no route answers fail.'),
    ),
  )

  const harness = createHarness(() => pipeline)
  return {
    worker,
    engine,
    config,
    async stop() {
      // Hung requests and open streams end with the worker (docs/behaviour.md, "Faults", "Streams and Server-Sent Events").
      feeds.forget()
      pipeline.close()
      await worker.stop()
      pipeline.close()
    },
    // reset(): sequences, use() handlers, the extra handlers' state (the notifications store), the log.
    requests: harness.requests,
    waitForRequest: harness.waitForRequest,
    use: harness.use,
    reset() {
      // A reset starts every feed again: an EventSource's next request is a first connection.
      feeds.forget()
      harness.reset()
    },
    expectCalled: harness.expectCalled,
    useRoutes(routes) {
      // The page cannot read files: an object only, whose files come from the first source's data.
      if (typeof routes !== 'object' || routes === null) {
        throw new TypeError(formatMessage('useRoutes() in the browser takes a routes object (the page cannot read a routes file): useRoutes({ "v1/users": { "status": 500 } }).'))
      }
      const { errors, warnings } = validateRoutes(routes, 'useRoutes()', { override: true })
      if (errors.length > 0) throw new ConfigError(errors)
      for (const warning of warnings) logger.warn(formatMessage(`${warning.file}#${warning.pointer}: ${warning.message}. ${warning.fix}`))
      pipeline.override({ file: 'overrides', routes, files: sources[0]?.files ?? memoryFiles({}, 'overrides') })
    },
  }
}
