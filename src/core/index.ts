/**
 * `mockyard`: the isomorphic core, for adapters of your own. Validate a routes object, compile it
 * into a route table, answer Fetch `Request`s with an engine. Fetch globals and URL only: it runs
 * unchanged in Node and in the browser. What the README documents, nothing more: the matching
 * internals stay behind the engine.
 *
 * Its modules, each named after its main export, in the order a request meets them:
 *   validate-routes    routes.json -> every problem, with its file and JSON pointer
 *   compile-routes     routes files -> the route table: lookup by path (format suffix included)
 *   compile-condition  one `params`/`headers` condition: `score()` and `explain()`
 *   parse-request      what conditions read: the query, JSON, form and multipart bodies
 *   graphql-request    GraphQL requests: their operation and what their params read (graphql-operation: the scanner)
 *   match-entry        the one scoring loop: picks the entry (and collects reasons on demand)
 *   sequence-state     `response` sequences, per session
 *   build-response     the answer of an entry: file, redirect, `${context}`
 *   cors-headers       the CORS headers and the preflight's
 *   explain-unmatched  why no route answered a request
 *   websocket          a route's `websocket` steps: the messages sent on open, the reply a message gets
 *   create-engine      `handle(request)`: all of the above; a result, or a promise when it must wait
 *   fetch-request      Fetch `Request`/`Response` <-> the engine's request and response
 *   request-log        the bounded log of the requests answered (its store: log-slots)
 */
export type {
  FileSource,
  HeaderMap,
  Logger,
  MethodConfig,
  MethodKey,
  ParamCondition,
  PatternCondition,
  RouteConfig,
  RouteEntryConfig,
  RoutesConfig,
  SequenceItemConfig,
  WebSocketStepConfig,
} from './types.js'
export { ConfigError, type ConfigProblem } from './errors.js'
export { validateRoutes, type RoutesValidation } from './validate-routes.js'
export { compileRoutes, type RouteSource, type RouteTable } from './compile-routes.js'
export { createEngine, type Engine, type EngineOptions, type HandleOptions, type HandleResult, type MatchInfo } from './create-engine.js'
export { memoryFiles } from './memory-files.js'
export { fromFetchRequest, toFetchResponse } from './fetch-request.js'
export type { EngineRequest } from './parse-request.js'
export type { MockResponse } from './build-response.js'
