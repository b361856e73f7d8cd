import { methodOf, sequenceMethodOf, type Candidate, type CompiledMethod, type CompiledRoute, type ResponseSpec, type RouteMatch, type RouteTable } from './compile-routes.js'
import { addCorsHeaders, preflightHeaders } from './cors-headers.js'
import { formatMessage } from './errors.js'
import { explainUnmatched, type UnmatchedRequest } from './explain-unmatched.js'
import { matchEntry, type RequestValues } from './match-entry.js'
import { isFormBody, loadFormParser, type FormParser } from './form-parser.js'
import { graphqlPartsOf, graphqlRequestOf, loadOperationScanner, type OperationScanner } from './graphql-request.js'
import { BodyParseError, FormFieldLimitError, parseBody, parseQuery, rememberBodies, type EngineRequest } from './parse-request.js'
import { buildResponse, createFileTyping, errorResponse, unservedFile, type BuildContext, type FileTyping, type MockResponse } from './build-response.js'
import { createSequenceState, sequenceKey, type SequenceState } from './sequence-state.js'
import { takesBodyParams } from './routes-model.js'
import { isPromise, type FaultName, type Logger } from './types.js'
import { realClearTimeout, realSetTimeout } from './real-clock.js'
import { REMEMBERED_BYTES, sameBytes } from './same-bytes.js'
import { upperCaseMethod } from './method-name.js'
import { requestUrl, type RequestUrl } from './request-url.js'

export interface EngineOptions {
  /** Delay in milliseconds for responses whose route sets none. Default 0. */
  latency?: number
  /** Replaces `${context}` in text files; by default the origin of the request's own URL. */
  pluginContext?: string
  /** Add CORS headers to every answer (default true). */
  cors?: boolean
  /** Where a missing data file is reported as an error. */
  logger?: Pick<Logger, 'error'>
}

/** What the harness adds to `EngineOptions` (not part of `mockyard`'s surface). */
export interface SharedEngineOptions extends EngineOptions {
  /**
   * The sequence positions the engine advances; its own by default. The engines of one harness
   * share them, so that an override, which brings its own engine, keeps the positions of the
   * sequences it does not replace (docs/behaviour.md, "Overrides").
   */
  sequences?: SequenceState
}

/** What answered a request: the route key, the entry and the file. */
export interface MatchInfo {
  /** Absent for a preflight on a path no route has (answered by the listener and the middleware). */
  route?: string
  entry: string
  file?: string
  /** 0 when a fault sends nothing. */
  status: number
  /** The fault played instead of (or, `truncate`, on) the answer. */
  fault?: FaultName
}

export type HandleResult =
  | { matched: true; response: MockResponse; info: MatchInfo }
  | { matched: false; explanation: () => string }

export interface HandleOptions {
  /** The session whose sequence state the request advances (`x-mockyard-session`). */
  session?: string
  /**
   * Where an `OPTIONS` request is answered as a CORS preflight: `'any-path'` (the HTTP listener
   * and the middleware) or `'routes'`, only on a configured route (in process, the service
   * worker; the default). docs/behaviour.md, "CORS".
   */
  preflight?: 'any-path' | 'routes'
  /**
   * The session's lifetime (`Pipeline.lifetime`), asked for only when an answer streams (`stream`,
   * `events`): the stream ends when it aborts (reset, stop).
   */
  lifetime?: () => AbortSignal
}

/**
 * The isomorphic core: a route table in, `handle(request)` out. Knows nothing of Node, the
 * browser or msw; adapters turn its plain `MockResponse` into whatever their surface speaks.
 */
export interface Engine {
  readonly table: RouteTable
  /** Swaps in a new route table (live reload); sequence positions are kept by route key. */
  setTable(table: RouteTable): void
  /**
   * Answers a request: `{ matched: false }` when no route answers (the caller decides: fall
   * through, 404, fail the test, and can ask for the explanation). The result comes at once when
   * nothing needs a wait (the body already read, no latency, the file in memory), so a server's
   * hot path needs no promise; otherwise a promise of it (as hono's `fetch()` returns
   * `Response | Promise<Response>`).
   */
  handle(request: EngineRequest, options?: HandleOptions): HandleResult | Promise<HandleResult>
  /**
   * A response the surface built itself (its 404, 413 or 500, an msw handler's) with the CORS
   * headers the engine decides for `request`: what every answer carries (docs/behaviour.md,
   * "CORS"). The engine's own answers have them already.
   */
  finish(response: MockResponse, request: Pick<EngineRequest, 'headers'>): MockResponse
  /** Restarts every sequence (of one session, or of all when none is given). */
  reset(session?: string): void
  /**
   * How many requests each sequence of a session (default `''`) has answered, keyed
   * `route METHOD label` (`v1/jobs/42 GET get[0]`): what the dashboard shows as positions.
   */
  sequenceCounts(session?: string): ReadonlyMap<string, number>
  /** How many sessions have sequence positions in this engine. */
  readonly sequenceSessions: number
}



/**
 * The reason a session's lifetime ends with when the surface stops (`Pipeline.close`), rather
 * than at a reset: open streams and hung requests end, but a latency still runs, as a request in
 * flight is answered during a graceful stop, until `hurry` aborts (the grace is over): then it
 * ends, and the request is answered at once rather than cut off.
 */
export class SurfaceStopping {
  constructor(readonly hurry: AbortSignal) {}
}

/**
 * A route's latency. It ends early when the client gives up or its connection closes (the
 * request's signal), when its session is reset, and when a stopping surface's grace is over: no
 * timer outlives the request, so a test process exits when its tests are done, not when the
 * longest latency would have.
 */
function sleep(ms: number, answering: Answering): Promise<void> {
  const signal = answering.signal ?? answering.request.left
  const lifetime = answering.lifetime()
  const over = (reason: unknown) => !(reason instanceof SurfaceStopping) || reason.hurry.aborted
  if (signal?.aborted || (lifetime?.aborted && over(lifetime.reason))) return Promise.resolve()
  return new Promise<void>((resolve) => {
    let hurry: AbortSignal | undefined
    const done = () => {
      realClearTimeout(timer)
      signal?.removeEventListener('abort', done)
      lifetime?.removeEventListener('abort', ended)
      hurry?.removeEventListener('abort', done)
      resolve()
    }
    /** The session's lifetime ended: a reset answers now; a stop, once its grace is over. */
    const ended = () => {
      const reason = lifetime!.reason
      if (over(reason)) return done()
      hurry = (reason as SurfaceStopping).hurry
      hurry.addEventListener('abort', done, { once: true })
    }
    const timer = realSetTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
    if (lifetime === undefined) return
    if (lifetime.aborted) ended()
    else lifetime.addEventListener('abort', ended, { once: true })
  })
}

/** The method a request counts as: `X-HTTP-Method-Override` on a POST wins. */
export function effectiveMethod(request: EngineRequest): string {
  const method = upperCaseMethod(request.method)
  if (method === 'POST') {
    const override = request.headers.get('x-http-method-override')
    if (override) return override.trim().toUpperCase()
  }
  return method
}

/**
 * The `Upload-Offset` of a tus upload chunk (docs/behaviour.md, "Building the response"): a PATCH
 * with `Content-Type: application/offset+octet-stream` and a `Tus-Resumable` header is answered
 * with the chunk's length, its Content-Length, as the old mock server answered it. tus clients
 * (tus-js-client, Availity's upload-core) fail without it. The body's own length, so that every
 * surface agrees (a browser's request carries no Content-Length header for the worker to read).
 */
function uploadOffsetOf(request: EngineRequest, method: string, body: Uint8Array | null): string | undefined {
  if (method !== 'PATCH' || !request.headers.get('tus-resumable')) return undefined
  const type = request.headers.get('content-type')
  if (type === null || type.split(';', 1)[0]!.trim().toLowerCase() !== 'application/offset+octet-stream') return undefined
  return String(body?.byteLength ?? 0)
}

/** One request being answered: what `buildResponse` reads (a `BuildContext`) and what the answer reports. */
class Answering implements BuildContext {
  readonly head: boolean
  readonly #takeLifetime: (() => AbortSignal) | undefined
  #lifetime: AbortSignal | undefined
  constructor(
    readonly request: EngineRequest,
    readonly url: RequestUrl,
    readonly method: string,
    readonly route: CompiledRoute,
    readonly entry: string,
    readonly spec: ResponseSpec,
    handleOptions: HandleOptions,
    readonly pluginContext: string | undefined,
    readonly typing: FileTyping,
    /** The `Upload-Offset` of a tus upload chunk (`uploadOffsetOf`), when the request is one. */
    readonly uploadOffset: string | undefined,
  ) {
    this.head = method === 'HEAD'
    this.#takeLifetime = handleOptions.lifetime
  }
  /**
   * The session's lifetime, taken once, by the latency or the stream, whichever asks first: a
   * reset during the latency ends the stream it leads to, which never outlives it into the
   * session's next lifetime.
   */
  lifetime(): AbortSignal | undefined {
    return (this.#lifetime ??= this.#takeLifetime?.())
  }
  /** The client's signal, where the surface has one: read only when a latency or a stream needs it. */
  get signal(): AbortSignal | undefined {
    return this.request.signal
  }
  /** A `truncate` fault cuts a streamed body too (build-response.ts). */
  get truncate(): boolean {
    return this.spec.fault === 'truncate'
  }
  /** Called only for a file or event that holds `${context}`: the origin is worked out then. */
  context(): string {
    return this.pluginContext ?? this.url.origin
  }
  describe(): string {
    return `route ${this.route.key} (${this.method} ${this.entry})`
  }
  lastEventId(): string | null {
    return this.request.headers.get('last-event-id')
  }
}

/**
 * The last answer that depended on nothing but the request's URL, method, body, `Content-Type`
 * and `Origin`, with what it was made from (decision 0034, "The same answer again"): the same
 * request again, over the same table and the same data file contents, gets the same answer
 * without choosing or building it again.
 */
interface RememberedAnswer {
  readonly href: string
  readonly table: RouteTable
  /** The effective method (`X-HTTP-Method-Override` applied). */
  readonly method: string
  /**
   * For a method whose body is read (`takesBodyParams`): the body, and its content type. The bytes
   * given are kept as they are (`EngineRequest.body`: they do not change once handed over), so
   * that a surface that hands the same body again as the same object is answered at once.
   */
  readonly bytes: Uint8Array | null
  readonly contentType: string | null
  readonly origin: string | null
  /** The data file the answer was built from, and the cached contents it had then (a change of the file is a new object). */
  readonly file: ResponseSpec['file']
  readonly fileBytes: Uint8Array | undefined
  readonly status: number
  /** The answer's headers (CORS included): copied for each request, as surfaces add to them (`content-length`). */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | string | null
  readonly info: MatchInfo
}

/**
 * Creates the engine over a compiled route table.
 *
 * @example
 * const engine = createEngine(compileRoutes(sources), { latency: 0 })
 * const result = await engine.handle(fromFetchRequest(new Request('http://localhost/v1/users')))
 * if (result.matched) console.log(result.response.status)
 */
export function createEngine(initialTable: RouteTable, options: EngineOptions = {}): Engine {
  let table = initialTable
  const globalLatency = options.latency ?? 0
  const cors = options.cors ?? true
  const sequences = (options as SharedEngineOptions).sequences ?? createSequenceState()
  /** The form parser, loaded by this engine's first form body (form-parser.ts). */
  let forms: FormParser | undefined
  /** The GraphQL document scanner, loaded by this engine's first GraphQL request (graphql-request.ts). */
  let scanOperation: OperationScanner | undefined
  /** The trees of the short JSON bodies this engine has seen twice (parse-request.ts). */
  const bodies = rememberBodies()
  /** Content types and `${context}` checks of the files this engine serves. */
  const typing = createFileTyping()

  const finish = (response: MockResponse, request: Pick<EngineRequest, 'headers'>): MockResponse => {
    if (cors) addCorsHeaders(response.headers, request.headers.get('origin'))
    return response
  }

  /**
   * The last request's URL, its route and its query as read: clients send the same URL again and
   * again (polling, retries, a test run many times, a load test), and nothing that reads them
   * changes them, so the same URL again, over the same table, reads them from here (bench/README.md,
   * "The same URL again").
   */
  let lastHref: string | undefined
  let lastUrl: RequestUrl | undefined
  let lastTable: RouteTable | undefined
  let lastFound: RouteMatch | undefined
  let lastSearch: string | undefined
  let lastQuery: ReadonlyMap<string, string | string[]> | undefined

  /**
   * The last choice among a method's entries, and what it was made from: the same method, the
   * same query map and the same body tree again (both are shared by requests that sent the same
   * text, and never changed) make the same choice, unless the entries read headers or GraphQL.
   */
  let lastMethod: CompiledMethod | undefined
  let lastChoiceQuery: RequestValues['query'] | undefined
  let lastChoiceBody: unknown
  let lastChoice: Candidate | undefined

  function choose(compiled: CompiledMethod, values: RequestValues): Candidate | undefined {
    if (compiled === lastMethod && values.query === lastChoiceQuery && values.body === lastChoiceBody) return lastChoice
    const candidate = matchEntry(compiled, values)
    // Only a body that cannot change is remembered: none, a primitive, or a remembered (frozen) tree.
    const body = values.body
    if (compiled.readsHeaders || compiled.graphql || (typeof body === 'object' && body !== null && !Object.isFrozen(body))) {
      lastMethod = undefined
    } else {
      lastMethod = compiled
      lastChoiceQuery = values.query
      lastChoiceBody = body
      lastChoice = candidate
    }
    return candidate
  }

  /** The last answer that can be given again (`RememberedAnswer`), or none. */
  let remembered: RememberedAnswer | undefined

  /**
   * The remembered answer `last`, when this request (of its URL, table and method: the caller
   * checked) is the one it was made for again: the same `Origin`, and for a method whose body is
   * read the same body and content type; and its data file still has the contents it was built from.
   */
  function sameAnswerAgain(request: EngineRequest, last: RememberedAnswer, method: string, body: Uint8Array | null): HandleResult | undefined {
    if (takesBodyParams(method) && (!sameBytes(body, last.bytes) || request.headers.get('content-type') !== last.contentType)) return undefined
    if ((cors && request.headers.get('origin') !== last.origin) || (last.file !== undefined && last.file.source.readCached?.(last.file.name) !== last.fileBytes)) return undefined
    return { matched: true, response: { status: last.status, headers: { ...last.headers }, body: last.body }, info: last.info }
  }

  function queryOf(search: string): ReadonlyMap<string, string | string[]> {
    if (search === lastSearch) return lastQuery!
    lastQuery = parseQuery(search)
    lastSearch = search
    return lastQuery
  }

  function handle(request: EngineRequest, handleOptions: HandleOptions = {}): HandleResult | Promise<HandleResult> {
    const method = effectiveMethod(request)
    const readsBody = takesBodyParams(method)
    let body: ReturnType<EngineRequest['body']> | undefined
    const last = remembered
    if (last !== undefined && request.url === last.href && table === last.table && method === last.method) {
      // Maybe the same request again, answered before anything else is looked at. The same URL
      // over the same table finds the same route, which reads the body: it is read once, here.
      body = readsBody ? request.body() : null
      if (!isPromise(body)) {
        const again = sameAnswerAgain(request, last, method, body)
        if (again !== undefined) return again
      }
    }
    const href = request.url
    let url: RequestUrl
    let found: RouteMatch | undefined
    if (href === lastHref && table === lastTable) {
      url = lastUrl!
      found = lastFound
    } else {
      // Remembered only once read: a URL that does not parse throws, and is not remembered.
      url = requestUrl(href)
      found = table.lookup(url.pathname)
      lastHref = href
      lastUrl = url
      lastTable = table
      lastFound = found
    }
    if (method === 'OPTIONS' && (found || handleOptions.preflight === 'any-path')) return preflight(request, found?.route)
    if (!found) return unmatched(url, method)
    const { route } = found
    const compiled = methodOf(route, method)
    if (!compiled) return route.methods.size === 0 && route.websocket ? upgradeRequired(request, url, method, route) : unmatched(url, method)

    const values: RequestValues = { query: queryOf(url.search), headers: request.headers }
    if (!readsBody) return answer(request, url, method, route, compiled, values, handleOptions)
    if (body === undefined) body = request.body()
    if (isPromise(body)) return body.then((bytes) => answerWithBody(request, url, method, route, compiled, values, handleOptions, bytes))
    return answerWithBody(request, url, method, route, compiled, values, handleOptions, body)
  }

  /** `answer()` with the body's params, or the 400 of a body that does not parse. */
  function answerWithBody(
    request: EngineRequest,
    url: RequestUrl,
    method: string,
    route: CompiledRoute,
    compiled: CompiledMethod,
    values: RequestValues,
    handleOptions: HandleOptions,
    body: Uint8Array | null,
  ): HandleResult | Promise<HandleResult> {
    const contentType = request.headers.get('content-type')
    // The form parser loads with the first form body (form-parser.ts): that one request waits for it.
    if (forms === undefined && body !== null && isFormBody(contentType)) {
      return loadFormParser().then((loaded) => {
        forms = loaded
        return answerWithBody(request, url, method, route, compiled, values, handleOptions, body)
      })
    }
    try {
      values.body = parseBody(body, contentType, forms, bodies)
    } catch (error) {
      return badBody(error, request, url, method, route)
    }
    return answer(request, url, method, route, compiled, values, handleOptions, uploadOffsetOf(request, method, body), body)
  }

  /** The `204` of a CORS preflight (docs/behaviour.md, "CORS"). */
  function preflight(request: EngineRequest, route: CompiledRoute | undefined): HandleResult {
    const headers = request.headers
    const response: MockResponse = {
      status: 204,
      headers: preflightHeaders(headers.get('access-control-request-headers'), headers.get('access-control-request-private-network') === 'true'),
      body: null,
    }
    return { matched: true, response: finish(response, request), info: { route: route?.key, entry: 'preflight', status: 204 } }
  }

  /** The `426` of a plain request to a route that has `websocket` steps and no body (docs/behaviour.md, "WebSocket"). */
  function upgradeRequired(request: EngineRequest, url: RequestUrl, method: string, route: CompiledRoute): HandleResult {
    const response = errorResponse(426, 'Upgrade Required', `${method} ${url.pathname}: route ${route.key} answers WebSocket connections only. Open it with new WebSocket('${url.href.replace(/^http/, 'ws')}'), or give the route a body for plain requests`)
    response.headers.upgrade = 'websocket'
    return { matched: true, response: finish(response, request), info: { route: route.key, entry: 'websocket', status: 426 } }
  }

  /** The 400 of a body that does not parse, the 413 of a form over the field limit (anything else is rethrown). */
  function badBody(error: unknown, request: EngineRequest, url: RequestUrl, method: string, route: CompiledRoute): HandleResult {
    if (!(error instanceof BodyParseError)) throw error
    const response =
      error instanceof FormFieldLimitError
        ? errorResponse(413, 'Payload Too Large', `${method} ${url.pathname}: ${error.message}. Send at most ${error.limit} fields`, { limit: error.limit })
        : errorResponse(400, 'Bad Request', `${method} ${url.pathname}: ${error.message}. Send a well-formed body or fix the content-type header`)
    return { matched: true, response: finish(response, request), info: { route: route.key, entry: 'body', status: response.status } }
  }

  /** Picks the entry, steps its sequence and builds the response (a promise only when it must wait). */
  function answer(
    request: EngineRequest,
    url: RequestUrl,
    method: string,
    route: CompiledRoute,
    compiled: CompiledMethod,
    values: RequestValues,
    handleOptions: HandleOptions,
    uploadOffset?: string,
    /** The body as read, for a method whose body is read: remembered with the answer (`remember`). */
    bytes?: Uint8Array | null,
  ): HandleResult | Promise<HandleResult> {
    // A method with `operation` entries reads GraphQL requests as GraphQL (docs/behaviour.md, "GraphQL").
    if (compiled.graphql && values.graphql === undefined) {
      const parts = graphqlPartsOf(method, values.query, values.body)
      if (parts !== undefined) {
        if (scanOperation === undefined) {
          return loadOperationScanner().then((loaded) => {
            scanOperation = loaded
            return answer(request, url, method, route, compiled, values, handleOptions, uploadOffset, bytes)
          })
        }
        values.graphql = graphqlRequestOf(parts, scanOperation)
        values.body = parts.view
      }
    }
    const candidate = choose(compiled, values)
    if (!candidate) return unmatched(url, method, values, sequencesSeen(route, method, compiled, handleOptions.session ?? ''))

    let spec: ResponseSpec = candidate.response
    let entry = candidate.label
    if (candidate.sequence) {
      const step = sequences.next(handleOptions.session ?? '', sequenceKey(route.key, sequenceMethodOf(route, method), candidate.label), candidate)
      spec = candidate.sequence[step]!
      entry = `${candidate.label}.response[${step}]`
    }

    // One object carries what building needs and what the answer reports (no closures per request).
    const answering = new Answering(request, url, method, route, entry, spec, handleOptions, options.pluginContext, typing, uploadOffset)
    const latency = spec.latency ?? globalLatency
    // A streamed body starts its schedule when built: after the latency, so the first piece comes with the headers.
    if (latency > 0 && (spec.stream || spec.events)) return sleep(latency, answering).then(() => buildResponse(spec, answering)).then((response) => done(answering, response))
    const built = buildResponse(spec, answering)
    if (latency > 0) return Promise.all([built, sleep(latency, answering)]).then(([response]) => done(answering, response))
    if (isPromise(built)) return built.then((response) => done(answering, response))
    const result = done(answering, built)
    // Only an answer that no state, time or header besides `Origin` went into is given again. A
    // PATCH may be a tus upload chunk, whose `Upload-Offset` depends on its headers (`uploadOffsetOf`).
    if (!candidate.sequence && !compiled.readsHeaders && !compiled.graphql && method !== 'PATCH' && spec.stream === undefined && spec.events === undefined && spec.fault === undefined) {
      remember(request, request.url, method, spec, result, bytes ?? null)
    }
    return result
  }

  /** Keeps an answer to give again (`sameAnswerAgain`); a body over `REMEMBERED_BYTES` is not kept, nor is its answer. */
  function remember(request: EngineRequest, href: string, method: string, spec: ResponseSpec, result: Extract<HandleResult, { matched: true }>, bytes: Uint8Array | null): void {
    const readsBody = takesBodyParams(method)
    if (readsBody && bytes !== null && bytes.byteLength > REMEMBERED_BYTES) {
      remembered = undefined
      return
    }
    const { response, info } = result
    remembered = {
      href,
      table,
      method,
      bytes: readsBody ? bytes : null,
      contentType: readsBody ? request.headers.get('content-type') : null,
      origin: cors ? request.headers.get('origin') : null,
      file: spec.file,
      fileBytes: spec.file?.source.readCached?.(spec.file.name),
      status: response.status,
      headers: { ...response.headers },
      body: response.body as Uint8Array | string | null,
      info,
    }
  }

  /** The result of an answer built: the CORS headers, the match info, a missing data file logged. */
  function done(answering: Answering, response: MockResponse): Extract<HandleResult, { matched: true }> {
    const { spec, method, url, route, entry, request } = answering
    if (response.status === 404 && spec.file && (spec.status ?? 200) !== 404) {
      options.logger?.error(formatMessage(`${method} ${url.pathname}: the data file "${spec.file.name}" of route ${route.key} (${entry}) ${unservedFile(spec.file.source, spec.file.name)}.`))
    }
    // A `truncate` cuts whatever was built (docs/behaviour.md, "Faults").
    if (spec.fault === 'truncate') response.fault = 'truncate'
    // Set before the CORS headers, which expose it; an `upload-offset` of the route's own wins.
    if (answering.uploadOffset !== undefined && response.status !== 0 && !('upload-offset' in response.headers)) response.headers['upload-offset'] = answering.uploadOffset
    const info: MatchInfo = { route: route.key, entry, file: spec.file?.name, status: response.status }
    if (response.fault !== undefined) info.fault = response.fault
    return { matched: true, response: finish(response, request), info }
  }

  /**
   * Where the sequences of a method stand for a session, copied when its request goes unmatched:
   * the explanation is written later, after other requests may have moved them.
   */
  function sequencesSeen(route: CompiledRoute, method: string, compiled: CompiledMethod, session: string): Pick<UnmatchedRequest, 'session' | 'seen'> {
    const counts = sequences.counts(session)
    const seen = new Map<string, number>()
    for (const candidate of compiled.conditionals) {
      const key = sequenceKey(route.key, sequenceMethodOf(route, method), candidate.label)
      if (candidate.sequence && counts.has(key)) seen.set(key, counts.get(key)!)
    }
    return { session, seen }
  }

  /** No route answers: the explanation is written only when asked for (with the table of the moment). */
  function unmatched(url: RequestUrl, method: string, values?: RequestValues, sequencesState?: Pick<UnmatchedRequest, 'session' | 'seen'>): HandleResult {
    const current = table
    return { matched: false, explanation: () => formatMessage(explainUnmatched(current, { method, url, values, ...sequencesState })) }
  }

  return {
    get table() {
      return table
    },
    setTable(next) {
      table = next
    },
    handle,
    finish,
    reset(session) {
      sequences.reset(session)
    },
    sequenceCounts(session = '') {
      return sequences.counts(session)
    },
    get sequenceSessions() {
      return sequences.sessions
    },
  }
}
