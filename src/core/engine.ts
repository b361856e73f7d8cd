import type { CompiledMethod, CompiledRoute, ResponseSpec, RouteMatch, RouteTable } from './compile-routes.js'
import { addCorsHeaders, preflightHeaders } from './cors.js'
import { formatMessage } from './errors.js'
import { explainUnmatched } from './explain.js'
import { matchEntry, scoreAll, type MatchResult, type RequestValues } from './match-entry.js'
import { BodyParseError, parseBodyNow, parseQuery, type EngineRequest } from './request-data.js'
import { buildResponse, errorResponse, unservedFile, type MockResponse } from './respond.js'
import { createSequenceState } from './sequence.js'
import type { Logger } from './types.js'

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

/** What answered a request: the route key, the entry and the file. */
export interface MatchInfo {
  route: string
  entry: string
  file?: string
  status: number
}

export type HandleResult =
  | { matched: true; response: MockResponse; info: MatchInfo }
  | { matched: false; explanation: () => string }

export interface HandleOptions {
  /** The session whose sequence state the request advances (`x-mockyard-session`). */
  session?: string
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
   * Answers a request, waiting out its latency. `{ matched: false }` when no route answers:
   * the caller decides (fall through, 404, fail the test) and can ask for the explanation.
   */
  handle(request: EngineRequest, options?: HandleOptions): Promise<HandleResult>
  /**
   * `handle()` for a request whose body the caller has read already (`null`: none): answers
   * without a wait when it can (no latency, the file in memory), so
   * a server's hot path needs no promise. Otherwise it returns a promise, as `handle()` does.
   */
  handleNow(request: EngineRequest, body: Uint8Array | null, options?: HandleOptions): HandleResult | Promise<HandleResult>
  /** Restarts every sequence (of one session, or of all when none is given). */
  reset(session?: string): void
  /**
   * How many requests each sequence of a session (default `''`) has answered, keyed
   * `route METHOD label` (`v1/jobs/42 GET get[0]`): what the dashboard shows as positions.
   */
  sequenceCounts(session?: string): ReadonlyMap<string, number>
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The method a request counts as: `X-HTTP-Method-Override` on a POST wins. */
export function effectiveMethod(request: EngineRequest): string {
  const method = request.method.toUpperCase()
  if (method === 'POST') {
    const override = request.headers.get('x-http-method-override')
    if (override) return override.trim().toUpperCase()
  }
  return method
}

/** The candidates for a method: HEAD answers as GET would, unless the route has a `head` key. */
export function methodOf(route: CompiledRoute, method: string): CompiledMethod | undefined {
  return route.methods.get(method) ?? (method === 'HEAD' ? route.methods.get('GET') : undefined)
}

/**
 * Creates the engine over a compiled route table.
 *
 * @example
 * const engine = createEngine(compileRoutes(sources), { latency: 0 })
 * const result = await engine.handle(new Request('http://localhost/v1/users'))
 * if (result.matched) console.log(result.response.status)
 */
export function createEngine(initialTable: RouteTable, options: EngineOptions = {}): Engine {
  let table = initialTable
  const globalLatency = options.latency ?? 0
  const cors = options.cors ?? true
  const sequences = createSequenceState()

  const finish = (response: MockResponse, request: EngineRequest): MockResponse => {
    if (cors) addCorsHeaders(response.headers, request.headers.get('origin'))
    return response
  }

  async function handle(request: EngineRequest, handleOptions: HandleOptions = {}): Promise<HandleResult> {
    return handleNow(request, BODY_METHODS.has(effectiveMethod(request)) ? await request.body() : null, handleOptions)
  }

  function handleNow(request: EngineRequest, body: Uint8Array | null, handleOptions: HandleOptions = {}): HandleResult | Promise<HandleResult> {
    const url = new URL(request.url)
    const method = effectiveMethod(request)
    const found = findRoute(table, url.pathname)
    if (!found) return unmatched(request, url, method)
    const { route } = found

    if (method === 'OPTIONS') {
      const response: MockResponse = {
        status: 204,
        headers: preflightHeaders(request.headers.get('origin'), request.headers.get('access-control-request-headers'), request.headers.get('access-control-request-private-network') === 'true'),
        body: null,
      }
      return { matched: true, response, info: { route: route.key, entry: 'preflight', status: 204 } }
    }

    const compiled = methodOf(route, method)
    if (!compiled) return unmatched(request, url, method)

    const values: RequestValues = { query: parseQuery(url.search), headers: request.headers }
    if (!BODY_METHODS.has(method)) return answer(request, url, method, route, compiled, values, handleOptions)
    let parsed: unknown
    try {
      parsed = parseBodyNow(body, request.headers.get('content-type'))
    } catch (error) {
      return badBody(error, request, url, method, route)
    }
    if (parsed instanceof Promise) {
      return parsed.then(
        (tree: unknown) => {
          values.body = tree
          return answer(request, url, method, route, compiled, values, handleOptions)
        },
        (error: unknown) => badBody(error, request, url, method, route),
      )
    }
    values.body = parsed
    return answer(request, url, method, route, compiled, values, handleOptions)
  }

  /** The 400 of a body that does not parse (anything else is rethrown). */
  function badBody(error: unknown, request: EngineRequest, url: URL, method: string, route: CompiledRoute): HandleResult {
    if (!(error instanceof BodyParseError)) throw error
    const response = errorResponse(400, 'Bad Request', `${method} ${url.pathname}: ${error.message}. Send a well-formed body or fix the content-type header`)
    return { matched: true, response: finish(response, request), info: { route: route.key, entry: 'body', status: 400 } }
  }

  /** Picks the entry, steps its sequence and builds the response (a promise only when it must wait). */
  function answer(
    request: EngineRequest,
    url: URL,
    method: string,
    route: CompiledRoute,
    compiled: CompiledMethod,
    values: RequestValues,
    handleOptions: HandleOptions,
  ): HandleResult | Promise<HandleResult> {
    const candidate = matchEntry(compiled, values)
    if (!candidate) return unmatched(request, url, method, () => ({ scores: scoreAll(compiled, values) }))

    let spec: ResponseSpec = candidate.response
    let entry = candidate.label
    if (candidate.sequence) {
      const step = sequences.next(handleOptions.session ?? '', `${route.key} ${method} ${candidate.label}`, candidate)
      spec = candidate.sequence[step]!
      entry = `${candidate.label}.response[${step}]`
    }

    const built = buildResponse(spec, {
      context: options.pluginContext ?? url.origin,
      head: method === 'HEAD',
      describe: () => `route ${route.key} (${method} ${entry})`,
    })
    const done = (response: MockResponse): HandleResult => {
      if (response.status === 404 && spec.file && (spec.status ?? 200) !== 404) {
        options.logger?.error(formatMessage(`${method} ${url.pathname}: the data file "${spec.file.name}" of route ${route.key} (${entry}) ${unservedFile(spec.file.source, spec.file.name)}.`))
      }
      return {
        matched: true,
        response: finish(response, request),
        info: { route: route.key, entry, file: spec.file?.name, status: response.status },
      }
    }
    const latency = spec.latency ?? globalLatency
    if (latency > 0) return Promise.all([built, sleep(latency)]).then(([response]) => done(response))
    return built instanceof Promise ? built.then(done) : done(built)
  }

  function unmatched(request: EngineRequest, url: URL, method: string, match?: () => MatchResult): HandleResult {
    void request
    return {
      matched: false,
      explanation: () => formatMessage(explainUnmatched(table, { method, url, match: match?.(), lookup: (path) => findRoute(table, path) })),
    }
  }

  return {
    get table() {
      return table
    },
    setTable(next) {
      table = next
    },
    handle,
    handleNow,
    reset(session) {
      sequences.reset(session)
    },
    sequenceCounts(session = '') {
      return sequences.counts(session)
    },
  }
}

/**
 * Finds the route of a request path. The path may carry a format suffix: `/v1/users.json`
 * serves `v1/users` (the exact path is tried first).
 */
export function findRoute(table: RouteTable, pathname: string): RouteMatch | undefined {
  const found = table.lookup(pathname)
  if (found) return found
  const slash = pathname.lastIndexOf('/')
  const dot = pathname.lastIndexOf('.')
  if (dot <= slash + 1) return undefined
  return table.lookup(pathname.slice(0, dot))
}
