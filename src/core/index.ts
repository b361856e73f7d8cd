/**
 * `mockyard`: the isomorphic core, for adapters of your own. Validate a routes object, compile it
 * into a route table, answer Fetch `Request`s with an engine. Fetch globals and URL only: it runs
 * unchanged in Node and in the browser. What the README documents, nothing more: the matching
 * internals stay behind the engine.
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
export { ConfigError, type ConfigProblem } from './errors.js'
export { validateRoutes, type RoutesValidation } from './validate-routes.js'
export { compileRoutes, type RouteSource, type RouteTable } from './compile-routes.js'
export { createEngine, type Engine, type EngineOptions, type HandleOptions, type HandleResult, type MatchInfo } from './engine.js'
export { memoryFiles } from './memory-files.js'
export { fromFetchRequest, toFetchResponse } from './fetch.js'
export type { EngineRequest } from './request-data.js'
export type { MockResponse } from './respond.js'
