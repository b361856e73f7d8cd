/**
 * `mockyard/msw`: the engine as msw request handlers. Works with msw 2.13.5+ and msw 3.
 */
import { HttpHandler, type RequestHandler } from 'msw'
import type { RouteTable } from '../core/compile-routes.js'
import { createEngine, type Engine, type EngineOptions, type HandleResult } from '../core/create-engine.js'
import { fromFetchRequest, networkFault, toFetchResponse } from '../core/fetch-request.js'

export interface RouteHandlerOptions {
  /**
   * Only answer requests to this origin (`http://localhost:3000`) or URL prefix
   * (`http://localhost:3000/api`). By default requests to any origin are answered.
   */
  origin?: string
  /** The session a request belongs to (its sequence state). Default: none. */
  session?: (request: Request) => string | undefined
  /** Called after each request the handler answered, or could not answer. */
  onResult?: (request: Request, result: HandleResult, startedAt: number) => void
}

/** The msw handler that mockyard makes: resets its engine's sequences on msw's reset. */
export class MockyardHandler extends HttpHandler {
  readonly engine: Engine
  /** Ends the streams this handler answered with (`stream`, `events`) at msw's reset. Hung requests settle then too (docs/behaviour.md, "Faults"). */
  #lifetime = new AbortController()

  constructor(engine: Engine, options: RouteHandlerOptions = {}) {
    let lifetime = (): AbortSignal => new AbortController().signal
    const prefix = options.origin ? new URL(options.origin) : undefined
    const prefixPath = prefix ? prefix.pathname.replace(/\/+$/, '') : ''
    super(
      /.*/,
      ({ request }) => {
        const url = new URL(request.url)
        // The prefix is whole segments: `/api` takes `/api` and `/api/v1/users`, never `/apiv2/users`.
        if (prefix && (url.origin !== prefix.origin || (prefixPath !== '' && url.pathname !== prefixPath && !url.pathname.startsWith(`${prefixPath}/`)))) return false
        // Cheap pre-check so that unrelated requests never reach the resolver.
        const path = prefixPath ? url.pathname.slice(prefixPath.length) : url.pathname
        return engine.table.lookup(path) !== undefined
      },
      async ({ request }) => {
        const startedAt = Date.now()
        let engineRequest = fromFetchRequest(request)
        if (prefixPath) {
          const url = new URL(request.url)
          url.pathname = url.pathname.slice(prefixPath.length) || '/'
          engineRequest = { ...engineRequest, url: url.href }
        }
        const result = await engine.handle(engineRequest, { session: options.session?.(request), lifetime: () => lifetime() })
        options.onResult?.(request, result, startedAt)
        // Unmatched: fall through to the next handler.
        if (!result.matched) return undefined
        return result.response.fault === undefined ? toFetchResponse(result.response) : networkFault(result.response, request, () => this.#lifetime.signal, 'terminated: the connection closed before the end of the body')
      },
    )
    this.engine = engine
    lifetime = () => this.#lifetime.signal
  }

  /** msw calls this on `resetHandlers()`: sequences start over, hung requests and open streams end. */
  override reset(): void {
    super.reset()
    this.engine.reset()
    this.#lifetime.abort()
    this.#lifetime = new AbortController()
  }
}

/**
 * Turns a compiled route table into msw request handlers. Requests no route answers fall
 * through to the next handler. Latency defaults to 0 here.
 *
 * @example
 * import { setupServer } from 'msw/node'
 * import { compileRoutes, memoryFiles } from 'mockyard'
 * import { createRouteHandlers } from 'mockyard/msw'
 *
 * const table = compileRoutes([{ file: 'inline', routes: { 'v1/users': { file: 'users.json' } }, files: memoryFiles({ 'users.json': '[]' }) }])
 * const server = setupServer(...createRouteHandlers(table))
 */
export function createRouteHandlers(table: RouteTable, options: EngineOptions & RouteHandlerOptions = {}): RequestHandler[] {
  return [new MockyardHandler(createEngine(table, options), options)]
}

