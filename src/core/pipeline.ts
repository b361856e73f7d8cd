/**
 * The request pipeline every surface shares (node listener, middleware, in-process interception,
 * the browser's service worker): extra msw handlers, then the routes engine of the request's
 * session (with its overrides), recording each request in the log; and the reset of all that
 * state. Isomorphic: Fetch globals only, msw loaded on demand. See ARCHITECTURE.md.
 */
import type { RequestHandler } from 'msw'
import { compileRoutes, type RouteSource, type RouteTable } from './compile-routes.js'
import { createEngine, type Engine, type EngineOptions, type HandleResult, type MatchInfo } from './engine.js'
import { formatMessage } from './errors.js'
import { fromFetchRequest } from './fetch.js'
import { createRequestLog, type LogEntry, type RequestInput, type RequestLog } from './request-log.js'
import type { EngineRequest } from './request-data.js'
import type { MockResponse } from './respond.js'
import { createSessionBound, DEFAULT_SESSION_LIMIT } from './sessions.js'
import type { Logger } from './types.js'

/** A request as every surface hands it over: the engine's view plus a lazy Fetch `Request`. */
export interface PipelineRequest extends EngineRequest {
  /** The headers as the request log takes them (node's flat `rawHeaders`, a `Headers`, ...). */
  readonly logHeaders: RequestInput['headers']
  /** A full Fetch `Request`, built only when msw handlers must see it. */
  toFetch(): Request | Promise<Request>
  /** The body, when the adapter has read it already (`null`: none): lets `respondNow` answer without a wait. */
  readonly bodyBytes?: Uint8Array | null
  /** Unmatched, it goes to the `proxy` target: logged with the entry `proxy` (docs/behaviour.md, "Record, import and proxy"). */
  readonly proxied?: boolean
}

/** What the pipeline did with a request; `record` is its entry in the request log. */
export type Outcome =
  | { kind: 'handler'; response: Response; record: LogEntry }
  | { kind: 'route'; response: MockResponse; info: MatchInfo; record: LogEntry }
  | { kind: 'unmatched'; explanation: () => string; record: LogEntry }

export interface PipelineOptions {
  /** The loaded routes (the base table, before overrides). */
  sources: RouteSource[]
  /** Latency, `${context}` and logger of every engine the pipeline makes. */
  engine: EngineOptions
  /** Extra handlers (options, plugins), tried before the routes. Kept, and replaced in place by `setHandlers`. */
  handlers?: RequestHandler[]
  /** The request log's bound. */
  requestLog?: { limit?: number }
  /** How many sessions keep state at once (docs/behaviour.md, "Sessions"). */
  sessionLimit?: number
  /** Where the pipeline's own notes go (a dropped session, at debug). */
  logger?: Pick<Logger, 'debug'>
  /** Called when the override layers change (the node surfaces then follow the files they name). */
  onOverridesChanged?: () => void
}

export interface Pipeline {
  /** The engine over the loaded routes (the shared state; overrides have their own engines). */
  readonly engine: Engine
  readonly log: RequestLog
  /** The extra handlers (tried after `use()` handlers and before the routes). */
  readonly handlers: RequestHandler[]
  /** Answers a request: `use()` handlers, extra handlers, then the session's routes. Records it in the log. */
  respond(request: PipelineRequest, session?: string): Promise<Outcome>
  /**
   * `respond()` without a wait where none is needed (the body already read, no handlers, no
   * latency, the file in memory): the HTTP listener's hot path.
   */
  respondNow(request: PipelineRequest, session?: string): Outcome | Promise<Outcome>
  /** The handlers alone (no routes): their outcome, or `undefined` (nothing recorded) when none answers. */
  respondByHandlers(request: PipelineRequest, session?: string): Promise<Outcome | undefined>
  /** Adds handlers in front of all others until the next reset. */
  use(...handlers: RequestHandler[]): void
  /** Adds a layer of routes over the table (for one session, or `''` for everyone) until the next reset. */
  override(layer: RouteSource, session?: string): void
  /** The loaded routes changed (a reload): every engine gets the new table, sequences kept. */
  setSources(sources: RouteSource[]): void
  /** The extra handlers changed (a reloaded config file). */
  setHandlers(handlers: RequestHandler[]): void
  /** Every override layer in force (everyone's and every session's). */
  overrideLayers(): RouteSource[]
  /** What answers a session now: its engine and the override layers in force (everyone's, then its own). */
  inspect(session?: string): { engine: Engine; overrides: RouteSource[]; sessionOverrides: RouteSource[] }
  /** Sequences, overrides, `use()` handlers, handler state and the request log back to the start (of one session, or all). */
  reset(session?: string): void
}

const PROXIED: Partial<MatchInfo> = { entry: 'proxy' }
const HANDLER: Partial<MatchInfo> = { entry: 'handler' }

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
 * Builds the request pipeline over a loaded route table.
 *
 * @example
 * const pipeline = createPipeline({ sources, engine: { latency: 0 } })
 * const outcome = await pipeline.respond(request, sessionOf(request.headers))
 */
export function createPipeline(options: PipelineOptions): Pipeline {
  let baseSources = options.sources
  const engineOptions = options.engine
  const engine = createEngine(compileRoutes(baseSources), engineOptions)
  const log = createRequestLog(options.requestLog)
  // Replaced in place when a changed config file is reloaded.
  const handlers: RequestHandler[] = options.handlers ?? []
  let perTest: RequestHandler[] = []
  const overridesChanged = options.onOverridesChanged ?? (() => {})

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
    if (overrides.delete(session)) overridesChanged()
    for (const handler of handlers) resetHandlerSession(handler, session)
  }
  const limit = options.sessionLimit ?? DEFAULT_SESSION_LIMIT
  // docs/behaviour.md, "Sessions": at most sessions.limit sessions keep state; LRU dropped first.
  const sessions = createSessionBound(limit, (session) => {
    forgetSession(session)
    options.logger?.debug(formatMessage(`session ${JSON.stringify(session.slice(0, 80))} dropped: more than ${limit} sessions are live (sessions.limit). It starts afresh if it returns.`))
  })
  const engineFor = (session: string) => overrides.get(session)?.engine ?? overrides.get('')?.engine ?? engine
  const tableWith = (layers: RouteSource[], session: string): RouteTable =>
    compileRoutes([...baseSources, ...(session !== '' ? (overrides.get('')?.layers ?? []) : []), ...layers])

  /** The outcome of a request the engine handled, recorded in the log. */
  function outcomeOf(request: PipelineRequest, session: string, started: number, time: number, result: HandleResult, body: Uint8Array | null): Outcome {
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
    request: PipelineRequest,
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

  /** The handler step: `use()` handlers, then the extra ones; `undefined` when none answers. */
  async function byHandlers(request: PipelineRequest, session: string, started: number, time: number, bodyRead: Promise<Uint8Array | null>): Promise<Outcome | undefined> {
    const extra = perTest.length > 0 ? [...perTest, ...handlers] : handlers
    if (extra.length === 0) return undefined
    // msw is loaded only when there are handlers: it costs ~100 ms and ~30 MB at start.
    const { getResponse } = await import('msw')
    const response = await getResponse(extra, await request.toFetch())
    if (!response) return undefined
    return { kind: 'handler', response, record: record(request, session, started, time, await bodyRead, response.status, HANDLER, response.headers) }
  }

  async function respond(request: PipelineRequest, session = ''): Promise<Outcome> {
    sessions.touch(session)
    const started = performance.now()
    const time = Date.now()
    // Start reading the body before any handler can consume the request (memoised by the adapters).
    const bodyRead = request.body().catch(() => null)
    const handled = await byHandlers(request, session, started, time, bodyRead)
    if (handled) return handled
    // The one place the pipeline calls the engine (with `handleNow` below).
    const result = await engineFor(session).handle(request, { session })
    return outcomeOf(request, session, started, time, result, await bodyRead)
  }

  function respondNow(request: PipelineRequest, session = ''): Outcome | Promise<Outcome> {
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
    engine,
    log,
    handlers,
    respond,
    respondNow,
    respondByHandlers(request, session = '') {
      sessions.touch(session)
      return byHandlers(request, session, performance.now(), Date.now(), request.body().catch(() => null))
    },
    use(...next) {
      perTest = [...next, ...perTest]
    },
    override(layer, session = '') {
      sessions.touch(session)
      const layers = [...(overrides.get(session)?.layers ?? []), layer]
      overrides.set(session, { layers, engine: createEngine(tableWith(layers, session), engineOptions) })
      overridesChanged()
    },
    setSources(sources) {
      baseSources = sources
      engine.setTable(compileRoutes(baseSources))
      for (const [session, override] of overrides) override.engine.setTable(tableWith(override.layers, session))
    },
    setHandlers(next) {
      handlers.splice(0, handlers.length, ...next)
    },
    overrideLayers() {
      return [...overrides.values()].flatMap((override) => override.layers)
    },
    inspect(session = '') {
      return {
        engine: engineFor(session),
        overrides: overrides.get('')?.layers ?? [],
        sessionOverrides: session === '' ? [] : (overrides.get(session)?.layers ?? []),
      }
    },
    reset(session) {
      if (session === undefined || session === '') {
        engine.reset()
        if (overrides.size > 0) {
          overrides.clear()
          overridesChanged()
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
  }
}

/** Wraps a Fetch `Request` (from an interceptor or a service worker) for `Pipeline.respond`. */
export function pipelineRequestFromFetch(request: Request): PipelineRequest {
  return { ...fromFetchRequest(request), logHeaders: request.headers, toFetch: () => request }
}
