/**
 * mockyard's isomorphic core: config types and validation, the route table, the matching and
 * sequencing engine. Fetch globals and URL only: it runs unchanged in Node and in the browser.
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
export { compileCondition, compilePattern, type Condition, type Score } from './conditions.js'
export { matchEntry, scoreAll, scoreCandidate, type MatchResult, type RequestValues } from './match-entry.js'
export { parseBody, parseQuery, parsePath, lookupPath, BodyParseError, type EngineRequest } from './request-data.js'
export { buildResponse, contentTypeOf, errorResponse, type MockResponse } from './respond.js'
export { addCorsHeaders, preflightHeaders, ALLOWED_METHODS } from './cors.js'
export { createEngine, effectiveMethod, findRoute, type Engine, type EngineOptions, type HandleResult, type HandleOptions, type MatchInfo } from './engine.js'
export { explainUnmatched } from './explain.js'
export { memoryFiles } from './memory-files.js'
export { fromFetchRequest, toFetchResponse } from './fetch.js'
export { createRequestLog, redactHeaders, bodyText, matchesFilter, type RequestLog, type RequestRecord, type RequestFilter } from './request-log.js'
export { sessionOf, SESSION_HEADER } from './session.js'
