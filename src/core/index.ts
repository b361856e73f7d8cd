/**
 * mockyard's isomorphic core: config types and validation, the route table, the matching and
 * sequencing engine. Fetch globals and URL only: it runs unchanged in Node and in the browser.
 *
 * Its modules, each named after its main export, in the order a request meets them:
 *   validate-routes    routes.json -> every problem, with its file and JSON pointer
 *   compile-routes     routes files -> the route table: lookup by path (format suffix included)
 *   compile-condition  one `params`/`headers` condition: `score()` and `explain()`
 *   parse-request      what conditions read: the query, JSON, form and multipart bodies
 *   match-entry        the one scoring loop: picks the entry (and collects reasons on demand)
 *   sequence-state     `response` sequences, per session
 *   build-response     the answer of an entry: file, redirect, `${context}`
 *   cors-headers       the CORS headers and the preflight's
 *   explain-unmatched  why no route answered a request
 *   create-engine      `handle(request)`: all of the above; a result, or a promise when it must wait
 *   fetch-request      Fetch `Request`/`Response` <-> the engine's request and response
 *   request-log        the bounded log of the requests answered
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
} from './types.js'
export { METHOD_KEYS } from './types.js'
export { ConfigError, formatMessage, toPointer, type ConfigProblem } from './errors.js'
export { validateRoutes, isInsideFolder, type RoutesValidation } from './validate-routes.js'
export {
  compileRoutes,
  methodOf,
  normalizePath,
  type Candidate,
  type CompiledMethod,
  type CompiledRoute,
  type FileRef,
  type ResponseSpec,
  type RouteMatch,
  type RouteSource,
  type RouteTable,
} from './compile-routes.js'
export { compileCondition, compilePattern, type Condition, type Score } from './compile-condition.js'
export { matchEntry, scoreCandidate, type RequestValues } from './match-entry.js'
export { parseBody, parseQuery, parsePath, lookupPath, BodyParseError, type EngineRequest } from './parse-request.js'
export { buildResponse, contentTypeOf, errorResponse, type MockResponse } from './build-response.js'
export { addCorsHeaders, preflightHeaders, ALLOWED_METHODS } from './cors-headers.js'
export { createEngine, effectiveMethod, type Engine, type EngineOptions, type HandleResult, type HandleOptions, type MatchInfo } from './create-engine.js'
export { explainUnmatched } from './explain-unmatched.js'
export { memoryFiles } from './memory-files.js'
export { fromFetchRequest, toFetchResponse } from './fetch-request.js'
export { createRequestLog, redactHeaders, bodyText, matchesFilter, type RequestLog, type RequestRecord, type RequestFilter } from './request-log.js'
