/**
 * The request pipeline every surface shares (node listener, middleware, in-process interception,
 * the browser's service worker): extra msw handlers, then the routes engine of the request's
 * session (with its overrides), recording each request in the log; and the reset of all that
 * state. Isomorphic: Fetch globals only, msw loaded on demand. See ARCHITECTURE.md.
 */
import type { RequestHandler } from 'msw'
import { isSocketHandler, type MockHandler } from './handler-kinds.js'
import { compileRoutes, type RouteSource, type RouteTable } from '../core/compile-routes.js'
import { createEngine, SurfaceStopping, type Engine, type EngineOptions, type HandleOptions, type HandleResult, type MatchInfo, type SharedEngineOptions } from '../core/create-engine.js'
import { replacedMethods, SCHEMA_KEY } from '../core/routes-model.js'
import { createSequenceState, sequencePrefix } from '../core/sequence-state.js'
import { formatMessage } from '../core/errors.js'
import { fromFetchRequest } from '../core/fetch-request.js'
import { createRequestLog, type LogEntry, type RequestInput, type RequestLog } from './request-log.js'
import type { EngineRequest } from '../core/parse-request.js'
import { cutBody, type MockResponse } from '../core/build-response.js'
import { createSessionBound, DEFAULT_SESSION_LIMIT } from './sessions.js'
import { openSocket, type SocketScript, type UnmatchedSocket } from './websocket.js'
import { explainUnmatched } from '../core/explain-unmatched.js'
import { upperCaseMethod } from '../core/method-name.js'
import { isPromise, type Logger } from '../core/types.js'
import type { TrafficCheck, Violation } from './traffic-check.js'

/** A request as every surface hands it over: the engine's view plus a lazy Fetch `Request`. */
export interface PipelineRequest extends EngineRequest {
  /** The headers as the request log takes them (node's flat `rawHeaders`, a `Headers`, ...). */
  readonly logHeaders: RequestInput['headers']
  /** A full Fetch `Request`, built only when msw handlers must see it. */
  toFetch(): Request | Promise<Request>
  /** Unmatched, it goes to the `proxy` target: logged with the entry `proxy` (docs/behaviour.md, "Record, import and proxy"). */
  readonly proxied?: boolean
}

/**
 * What answered a request. A handler's or a route's answer is in the request log already; an
 * unmatched request is recorded by the surface once it knows what it sends (`settle`): its 404,
 * the proxy's answer, or nothing (status 0: it fell through).
 */
export type Outcome =
  | {
      kind: 'handler'
      response: Response
      /** The headers to send: the handler's, with the CORS headers the engine decides (`set-cookie` apart). */
      headers: Record<string, string>
      record: LogEntry
    }
  | {
      kind: 'route'
      response: MockResponse
      info: MatchInfo
      record: LogEntry
      /**
       * For an answer that stays open (a `hang`): the session's lifetime taken as the answer was
       * recorded, so a reset right after `waitForRequest` resolves still ends it.
       */
      lifetime?: AbortSignal
      /** Where the exchange breaks the `validate` document (absent when it agrees or `validate` is unset). */
      violations?: Violation[]
    }
  | { kind: 'unmatched'; explanation: () => string; settle(sent: SentAnswer): LogEntry }

/** What a surface sent for a request nothing in the pipeline answered. */
export interface SentAnswer {
  /** 0 when nothing was sent (the request fell through). */
  status: number
  responseHeaders?: RequestInput['responseHeaders']
}

/** How to answer one request: its session and where preflights are answered (see `HandleOptions`). */
export interface RespondOptions extends HandleOptions {
  /** The session (`x-mockyard-session`); default `''`. */
  session?: string
}

export interface PipelineOptions {
  /** The loaded routes (the base table, before overrides). */
  sources: RouteSource[]
  /** Latency, `${context}` and logger of every engine the pipeline makes. */
  engine: EngineOptions
  /** Extra handlers (options, plugins), tried before the routes. Kept, and replaced in place by `setHandlers`. */
  handlers?: MockHandler[]
  /** The request log's bound. */
  requestLog?: { limit?: number }
  /** How many sessions keep state at once (docs/behaviour.md, "Sessions"). */
  sessionLimit?: number
  /** Where the pipeline's own notes go (a dropped session, at debug). */
  logger?: Pick<Logger, 'debug'>
  /** Called when the override layers change (the node surfaces then follow the files they name). */
  onOverridesChanged?: () => void
  /**
   * msw's `getResponse`, for a surface that has msw loaded already (the worker). Without it, msw
   * is imported with the first request that meets a handler. In a page built by a bundler that
   * import is a request of its own, which the service worker would hand to this very pipeline
   * while it waits for it.
   */
  getResponse?: (handlers: RequestHandler[], request: Request) => Promise<Response | undefined>
}

export interface Pipeline {
  /** The engine over the loaded routes (the shared state; overrides have their own engines). */
  readonly engine: Engine
  readonly log: RequestLog
  /** The extra handlers (tried after `use()` handlers and before the routes). */
  readonly handlers: MockHandler[]
  /**
   * Answers a request: `use()` handlers, extra handlers, then the session's routes; records it in
   * the log. A result at once, or a promise only where it must wait (handlers, a body still being
   * read, latency, a file not in memory): the HTTP listener's hot path has no promise.
   */
  respond(request: PipelineRequest, options?: RespondOptions): Outcome | Promise<Outcome>
  /**
   * Whether anything could answer a request to this path (no query) in a session: a handler, or a
   * route of the session's table. A request to another path goes unmatched whatever its body, so
   * the middleware hands it on without reading the body.
   */
  mayAnswer(pathname: string, session?: string): boolean
  /** The handlers alone (no routes): their outcome, or `undefined` (nothing recorded) when none answers. */
  respondByHandlers(request: PipelineRequest, session?: string): Promise<Outcome | undefined>
  /** Adds handlers in front of all others until the next reset. */
  use(...handlers: MockHandler[]): void
  /** The handlers in force, in the order they are tried: the `use()` ones (newest first), then the extra ones. */
  handlersInUse(): readonly MockHandler[]
  /** Adds a layer of routes over the table (for one session, or `''` for everyone) until the next reset. */
  override(layer: RouteSource, session?: string): void
  /** The loaded routes changed (a reload): every engine gets the new table, sequences kept. */
  setSources(sources: RouteSource[]): void
  /** The extra handlers changed (a reloaded config file). */
  setHandlers(handlers: MockHandler[]): void
  /** Every override layer in force (everyone's and every session's). */
  overrideLayers(): RouteSource[]
  /** What answers a session now: its engine and the override layers in force (everyone's, then its own). */
  inspect(session?: string): { engine: Engine; overrides: RouteSource[]; sessionOverrides: RouteSource[]; overriddenSessions: string[] }
  /** Sequences, overrides, `use()` handlers, handler state and the request log back to the start (of one session, or all). */
  reset(session?: string): void
  /** What per-session state the pipeline holds now (docs/behaviour.md, "Sessions"). */
  stats(): PipelineStats
  /**
   * A signal that aborts when what is open for a session must end: at the reset of that session
   * (or of everyone) and at `close()`. Open streams, hung requests and sockets listen to it, so a
   * reset or a stop never waits for them (docs/behaviour.md, "Reset"). After `close()`, an
   * aborted signal: what would open while the surface stops ends at once.
   */
  lifetime(session?: string): AbortSignal
  /** Ends everything open (every session's lifetime): the surface is stopping. */
  close(): void
  /**
   * After `close()`: the latencies still running end, and their requests are answered at once (a
   * stopping listener's grace is over). Open streams and hangs ended with `close()` already.
   */
  hurry(): void
  /** Checks each answered exchange against an OpenAPI document from now on (the `validate` option). */
  setTrafficCheck(check: TrafficCheck | undefined): void
  /** The checker of the `validate` option, when set. */
  readonly trafficCheck: TrafficCheck | undefined
  /**
   * A WebSocket opened on the request's path (docs/behaviour.md, "WebSocket"): the script of the
   * route's `websocket` steps in the session's table, or why none answers (the surface settles it).
   */
  openSocket(request: Pick<PipelineRequest, 'url' | 'logHeaders'>, options?: { session?: string }): SocketScript | UnmatchedSocket
}

/**
 * What per-session state costs: a session without overrides answers from the shared engine
 * (`engines` stays 1) and keeps only its sequence positions.
 */
export interface PipelineStats {
  /** Sessions counted against `sessions.limit`. */
  sessions: number
  /** Engines, each with its compiled route table: the shared one, plus one per override layer set (everyone's, and each session's). */
  engines: number
  /** Sessions with sequence positions kept, over every engine. */
  sequenceSessions: number
}

const PROXIED: Partial<MatchInfo> = { entry: 'proxy' }
const HANDLER: Partial<MatchInfo> = { entry: 'handler' }

/** Resets one session's state of a handler that keeps per-session state (`resetSession`). */
function resetHandlerSession(handler: MockHandler, session: string): void {
  const reset = (handler as unknown as { resetSession?: (session: string) => void }).resetSession
  if (typeof reset === 'function') reset.call(handler, session)
}

function resetHandler(handler: MockHandler): void {
  // msw 3: public reset(); msw 2.15: protected, the same method at run time.
  const reset = (handler as unknown as { reset?: () => void }).reset
  if (typeof reset === 'function') reset.call(handler)
}

/**
 * Builds the request pipeline over a loaded route table.
 *
 * @example
 * const pipeline = createPipeline({ sources, engine: { latency: 0 } })
 * const outcome = await pipeline.respond(request, { session: sessionOf(request.headers) })
 */
export function createPipeline(options: PipelineOptions): Pipeline {
  let baseSources = options.sources
  // One set of sequence positions for every engine: an override keeps what it does not replace.
  const sequences = createSequenceState()
  const engineOptions: SharedEngineOptions = { ...options.engine, sequences }
  const engine = createEngine(compileRoutes(baseSources), engineOptions)
  const log = createRequestLog(options.requestLog)
  // Replaced in place when a changed config file is reloaded.
  const handlers: MockHandler[] = options.handlers ?? []
  let perTest: MockHandler[] = []
  const overridesChanged = options.onOverridesChanged ?? (() => {})
  // The `validate` option's checker: undefined (one test per request) unless it is set.
  let trafficCheck: TrafficCheck | undefined

  /**
   * Route overrides: '' for everyone, else per session; each has its own engine. A session's
   * table is the loaded routes, then everyone's overrides, then the session's own.
   */
  interface Override {
    layers: RouteSource[]
    engine: Engine
  }
  const overrides = new Map<string, Override>()
  /** One controller per session with something open; aborted and dropped at its reset. */
  const lifetimes = new Map<string, AbortController>()
  const endLifetime = (session: string) => {
    lifetimes.get(session)?.abort()
    lifetimes.delete(session)
  }
  /** Set by `close()`: what opens later (a hang after its latency, a stream whose latency was still running) ends at once. */
  let closed: SurfaceStopping | undefined
  /** Aborted by `hurry()`: the latencies still running during a stop end, and their requests are answered. */
  const hurried = new AbortController()
  function lifetime(session = ''): AbortSignal {
    if (closed) return AbortSignal.abort(closed)
    let controller = lifetimes.get(session)
    if (controller === undefined) {
      controller = new AbortController()
      lifetimes.set(session, controller)
    }
    return controller.signal
  }
  const endLifetimes = (reason?: unknown) => {
    for (const controller of lifetimes.values()) controller.abort(reason)
    lifetimes.clear()
  }
  /** Forgets what one session changed: sequences, overrides, handler stores (not the shared state). */
  const forgetSession = (session: string) => {
    sequences.reset(session)
    // The files its overrides named are no longer followed.
    if (overrides.delete(session)) overridesChanged()
    for (const handler of handlers) resetHandlerSession(handler, session)
  }
  /**
   * A request that started before its session's reset (one still waiting on its latency when the
   * test ended) is answered, but recorded in no later test's log: the reset cleared the log.
   */
  const startedBeforeReset = (session: string, started: number) => log.clearedAfter(session, started)
  const limit = options.sessionLimit ?? DEFAULT_SESSION_LIMIT
  // docs/behaviour.md, "Sessions": at most sessions.limit sessions keep state; LRU dropped first.
  const sessions = createSessionBound(limit, (session) => {
    // What it holds open (sockets, streams, hung requests) ends with its state, as at its reset.
    endLifetime(session)
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
      const info = request.proxied ? PROXIED : undefined
      return {
        kind: 'unmatched',
        explanation,
        settle: (sent) => record(request, session, started, time, body, sent.status, info, sent.responseHeaders, explanation),
      }
    }
    const { info, response } = result
    // A preflight is the engine's own answer, and so are the 400 of a body that does not parse, the
    // 413 of a form over the field limit and the 426 of a WebSocket-only route: the document does
    // not describe mockyard's answers, so of those only the request is checked.
    const violations = trafficCheck === undefined || info.entry === 'preflight' ? undefined : checkTraffic(trafficCheck, request, body, response, info.entry === 'body' || info.entry === 'websocket')
    if (response.body instanceof ReadableStream) {
      // A stream is recorded when it starts (so waitForRequest resolves), its end noted when it ends.
      const entry = record(request, session, started, time, body, info.status, info, response.headers, undefined, undefined, violations, 'open')
      void response.ended?.then(() => log.streamEnded(entry.id))
      return violations === undefined ? { kind: 'route', response, info, record: entry } : { kind: 'route', response, info, record: entry, violations }
    }
    // Taken before the record is written (and its waiters told): a reset after that ends the hang.
    // A request that started before a reset (its latency cut short by it) hangs no further.
    const open = response.fault !== 'hang' ? undefined : startedBeforeReset(session, started) ? AbortSignal.abort() : lifetime(session)
    // A fault that sends nothing (`reset`, `close`, `hang`) records no response headers or body.
    const sent = info.fault === undefined || info.fault === 'truncate'
    const sentBody = !sent ? undefined : info.fault === 'truncate' ? (cutBody(response.body)?.half ?? response.body) : response.body
    const outcome: Outcome = { kind: 'route', response, info, record: record(request, session, started, time, body, info.status, info, sent ? response.headers : undefined, undefined, sentBody, violations) }
    if (open) outcome.lifetime = open
    if (violations !== undefined) outcome.violations = violations
    return outcome
  }

  /** The violations of one exchange, or undefined when it agrees; a checker that fails is a violation too, never a failed request. */
  function checkTraffic(check: TrafficCheck, request: PipelineRequest, body: Uint8Array | null, response: MockResponse, requestOnly: boolean): Violation[] | undefined {
    let violations: Violation[]
    try {
      violations = check.check({ method: upperCaseMethod(request.method), url: request.url, headers: request.headers, body, response })
      if (requestOnly) violations = violations.filter((violation) => violation.where === 'request')
    } catch (error) {
      violations = [{ where: 'response', pointer: '', message: `the check against the document failed: ${(error as Error)?.message ?? String(error)}`, schema: '' }]
    }
    return violations.length > 0 ? violations : undefined
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
    responseBody?: RequestInput['responseBody'],
    violations?: Violation[],
    stream?: RequestInput['stream'],
  ): LogEntry {
    if (startedBeforeReset(session, started)) return { id: -1, durationMs: Math.round((performance.now() - started) * 100) / 100 }
    return log.add({
      time,
      method: upperCaseMethod(request.method),
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
      fault: info?.fault,
      responseHeaders,
      explanation,
      responseBody,
      violations,
      stream,
    })
  }

  /** The handler step: `use()` handlers, then the extra ones; `undefined` when none answers. */
  async function byHandlers(request: PipelineRequest, session: string, started: number, time: number, bodyRead: Promise<Uint8Array | null>): Promise<Outcome | undefined> {
    // msw's WebSocket handlers answer sockets (in process: node/intercept-instance.ts), never a request.
    const extra = (perTest.length > 0 ? [...perTest, ...handlers] : handlers).filter((handler): handler is RequestHandler => !isSocketHandler(handler))
    if (extra.length === 0) return undefined
    // A method a Fetch `Request` cannot carry (`TRACE`, `TRACK`) reaches no msw handler: the routes answer it.
    let fetchRequest: Request
    try {
      fetchRequest = await request.toFetch()
    } catch {
      return undefined
    }
    // msw is loaded only when there are handlers (bench/README.md, "msw loaded only for handlers").
    const getResponse = options.getResponse ?? (await import('msw')).getResponse
    const response = await getResponse(extra, fetchRequest)
    if (!response) return undefined
    const own: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') own[name] = value
    })
    const { headers } = engine.finish({ status: response.status, headers: own, body: null }, request)
    trafficCheck?.count(upperCaseMethod(request.method), request.url)
    return { kind: 'handler', response, headers, record: record(request, session, started, time, await bodyRead, response.status, HANDLER, response.headers) }
  }

  /** The shared session's lifetime, asked for only when a body streams (one function, not one per request). */
  const sharedLifetime = () => lifetime('')
  /** The engine's options for a request of the shared session: one object per way of answering preflights, not one per request. */
  const sharedHandleOptions = {
    'any-path': Object.freeze({ session: '', preflight: 'any-path', lifetime: sharedLifetime }),
    routes: Object.freeze({ session: '', preflight: 'routes', lifetime: sharedLifetime }),
    default: Object.freeze({ session: '', lifetime: sharedLifetime }),
  } satisfies Record<string, HandleOptions>
  const sharedOptions = (preflight: HandleOptions['preflight']): HandleOptions => sharedHandleOptions[preflight ?? 'default']

  function respond(request: PipelineRequest, respondOptions: RespondOptions = {}): Outcome | Promise<Outcome> {
    const session = respondOptions.session ?? ''
    sessions.touch(session)
    const started = performance.now()
    const time = Date.now()
    const handleOptions: HandleOptions = session === '' ? sharedOptions(respondOptions.preflight) : { session, preflight: respondOptions.preflight, lifetime: () => lifetime(session) }
    if (perTest.length > 0 || handlers.length > 0) return respondWithHandlers(request, handleOptions, started, time)
    const body = request.body()
    if (isPromise(body)) return body.then((bytes) => fromEngine(request, handleOptions, started, time, bytes))
    return fromEngine(request, handleOptions, started, time, body)
  }

  /** The routes' answer (a promise only when the engine must wait): the one place the pipeline calls the engine. */
  function fromEngine(request: PipelineRequest, handleOptions: HandleOptions, started: number, time: number, body: Uint8Array | null): Outcome | Promise<Outcome> {
    const session = handleOptions.session!
    const result = engineFor(session).handle(request, handleOptions)
    if (isPromise(result)) return result.then((settled) => outcomeOf(request, session, started, time, settled, body))
    return outcomeOf(request, session, started, time, result, body)
  }

  async function respondWithHandlers(request: PipelineRequest, handleOptions: HandleOptions, started: number, time: number): Promise<Outcome> {
    // Start reading the body before any handler can consume the request (adapters read it once).
    const bodyRead = Promise.resolve(request.body()).catch(() => null)
    const handled = await byHandlers(request, handleOptions.session!, started, time, bodyRead)
    return handled ?? fromEngine(request, handleOptions, started, time, await bodyRead)
  }

  return {
    engine,
    log,
    handlers,
    respond,
    mayAnswer(pathname, session = '') {
      return perTest.length > 0 || handlers.length > 0 || engineFor(session).table.lookup(pathname) !== undefined
    },
    respondByHandlers(request, session = '') {
      sessions.touch(session)
      return byHandlers(request, session, performance.now(), Date.now(), Promise.resolve(request.body()).catch(() => null))
    },
    use(...next) {
      perTest = [...next, ...perTest]
    },
    handlersInUse: () => (perTest.length > 0 ? [...perTest, ...handlers] : handlers),
    override(layer, session = '') {
      sessions.touch(session)
      // Marked as an override: it replaces what it answers instead of merging (compileRoutes).
      // A copy: the caller's object may change after it was validated (compilation reads it later).
      const own = overrides.get(session)
      const layers = [...(own?.layers ?? []), { ...layer, routes: copyRoutes(layer.routes), override: true }]
      const table = tableWith(layers, session)
      if (own) {
        own.layers = layers
        own.engine.setTable(table)
      } else {
        overrides.set(session, { layers, engine: createEngine(table, engineOptions) })
      }
      // Everyone's overrides lie under each session's own: those sessions' tables are built again.
      if (session === '') for (const [name, theirs] of overrides) if (name !== '') theirs.engine.setTable(tableWith(theirs.layers, name))
      // Replaced entries start their sequences afresh (for everyone, or for the session); the others go on.
      const replaced = replacedSequences(layer.routes)
      if (replaced.length > 0) sequences.forget(replaced, session === '' ? undefined : session)
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
        // The sessions with overrides of their own (the dashboard's "all sessions" names them).
        overriddenSessions: [...overrides.keys()].filter((name) => name !== ''),
      }
    },
    stats() {
      return { sessions: sessions.size, engines: 1 + overrides.size, sequenceSessions: sequences.sessions }
    },
    lifetime,
    close() {
      closed ??= new SurfaceStopping(hurried.signal)
      endLifetimes(closed)
    },
    hurry() {
      hurried.abort()
    },
    setTrafficCheck(check) {
      trafficCheck = check
    },
    get trafficCheck() {
      return trafficCheck
    },
    openSocket(request, socketOptions = {}) {
      const session = socketOptions.session ?? ''
      sessions.touch(session)
      const table = engineFor(session).table
      return openSocket({
        table,
        session,
        url: request.url,
        headers: request.logHeaders,
        add: (input) => log.add(input),
        lifetime: lifetime(session),
        explainPath: () => formatMessage(explainUnmatched(table, { method: 'GET', url: new URL(request.url), websocket: true })),
        logError: engineOptions.logger ? (message) => engineOptions.logger!.error(message) : undefined,
      })
    },
    reset(session) {
      if (session === undefined || session === '') {
        endLifetimes()
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
        endLifetime(session)
        forgetSession(session)
        sessions.forget(session)
        log.clear(session)
      }
    },
  }
}

/**
 * The sequences an override replaces, as `SequenceState.forget` prefixes: those of every method
 * its routes replace whole (a route's GET ones also answer HEAD), none for what it only lays over.
 */
function replacedSequences(routes: RouteSource['routes']): string[] {
  const prefixes: string[] = []
  for (const [key, route] of Object.entries(routes)) {
    if (key === SCHEMA_KEY || typeof route !== 'object' || route === null || Array.isArray(route)) continue
    for (const method of replacedMethods(route)) {
      prefixes.push(sequencePrefix(key, method.toUpperCase()))
      if (method === 'get') prefixes.push(sequencePrefix(key, 'HEAD'))
    }
  }
  return prefixes
}

/** A copy of override routes, taken when they are given: plain JSON values, as validated. */
function copyRoutes(routes: RouteSource['routes']): RouteSource['routes'] {
  try {
    return structuredClone(routes)
  } catch (cause) {
    throw new TypeError(formatMessage(`the routes of an override hold a value that is not plain data (${(cause as Error).message}). Give useRoutes() JSON values only: strings, numbers, booleans, arrays and objects.`), { cause })
  }
}

/** Wraps a Fetch `Request` (from an interceptor or a service worker) for `Pipeline.respond`. */
export function pipelineRequestFromFetch(request: Request): PipelineRequest {
  return { ...fromFetchRequest(request), logHeaders: request.headers, toFetch: () => request }
}
