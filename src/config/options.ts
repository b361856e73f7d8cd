import type { RequestHandler, WebSocketHandler } from 'msw'
import { formatMessage, toPointer, type ConfigProblem } from '../core/errors.js'
import type { Logger, RoutesConfig } from '../core/types.js'
import { closestName } from './closest-name.js'
import { isUnhandledStrategy, type UnhandledRequestStrategy } from '../harness/unhandled.js'

/** A plugin: routes and data (paths resolve from the plugin module's folder) and msw handlers. */
export interface MockyardPlugin {
  /** A routes file path, several, or routes given inline. */
  routes?: string | RoutesConfig | Array<string | RoutesConfig>
  /** The plugin's data folder. */
  data?: string
  /** Extra msw handlers the plugin contributes. */
  handlers?: Array<RequestHandler | WebSocketHandler>
}

export type { UnhandledRequestStrategy }

/**
 * mockyard's options (see docs/behaviour.md, "Options"). Every option is optional;
 * the defaults depend on the surface (see the README's table).
 */
export interface MockyardOptions {
  /** Global delay in milliseconds; a route's `latency` overrides it. */
  latency?: number
  /** Maximum request body size: `50mb`-style string or bytes. Default `50mb`. */
  limit?: string | number
  /** Host the listener binds to. */
  host?: string
  /** Port the listener binds to; 0 or omitted: a random free port (`MockServer`). */
  port?: number
  /** Folder holding the data files of the local routes. */
  data?: string
  /** Routes file(s): paths, or routes objects given inline. */
  routes?: string | RoutesConfig | Array<string | RoutesConfig>
  /** Plugin module names (resolved from the config file's folder) or plugin objects. */
  plugins?: Array<string | MockyardPlugin>
  /** Returns the logger to use in place of the default one. */
  logProvider?: () => Logger
  /** Replaces `${context}` in text data files. Default: the origin of the request's URL. */
  pluginContext?: string
  /** Extra msw request handlers, tried before the route table. */
  handlers?: Array<RequestHandler | WebSocketHandler>
  /** What the test helpers do with a request nothing answers. */
  onUnhandledRequest?: UnhandledRequestStrategy
  /** Reload routes and data files when they change. */
  watch?: boolean
  /** The request log's bound. */
  requestLog?: { limit?: number }
  /** Admin endpoints of the listener. */
  admin?: { allowRemote?: boolean }
  /** How many sessions (`x-mockyard-session`) keep state at once; default 1,000. */
  sessions?: { limit?: number }
  /** An http(s) URL: requests no route or handler answers are forwarded there (listener, middleware, CLI). */
  proxy?: string
  /**
   * The path of an OpenAPI 3.0 or 3.1 document (JSON or YAML): each request a route answers, and
   * its answer, is checked against it (docs/behaviour.md, "Traffic checked against a contract").
   */
  validate?: string
  /**
   * @deprecated Carried by configs of the old Express mock server (`@availity/mock-server`, the
   * `ekko` block): accepted and ignored, without a warning (docs/migration.md). Remove it.
   */
  enabled?: unknown
  /** @deprecated Carried by configs of the old Express mock server: accepted and ignored, without a warning (docs/migration.md). Remove it. */
  user?: unknown
  /** @deprecated Carried by configs of the old Express mock server: accepted and ignored, without a warning (docs/migration.md). Remove it. */
  cache?: unknown
}

export const OPTION_NAMES = [
  'latency',
  'limit',
  'host',
  'port',
  'data',
  'routes',
  'plugins',
  'logProvider',
  'pluginContext',
  'handlers',
  'onUnhandledRequest',
  'watch',
  'requestLog',
  'admin',
  'sessions',
  'proxy',
  'validate',
] as const

/**
 * Options that configs written for `@availity/mock-server` and the `ekko` block of
 * `@availity/workflow` carry: accepted and ignored, without a warning (docs/behaviour.md, "Options").
 */
export const IGNORED_OPTION_NAMES = ['enabled', 'user', 'cache'] as const

/** Options only the HTTP listener reads: given to an in-process or browser surface, they are a warning. */
export const LISTENER_ONLY_OPTIONS = ['port', 'host', 'limit', 'admin', 'proxy'] as const

/**
 * The warning for options given to a surface that does not read them, or undefined when none of
 * `names` is set in `options`: `"port", "proxy" have no effect in <where>: <why>. Remove them, or <instead>.`
 */
export function noEffectWarning(options: object, names: readonly string[], where: string, why: string, instead: string): string | undefined {
  const given = names.filter((name) => (options as Record<string, unknown>)[name] !== undefined)
  if (given.length === 0) return undefined
  const one = given.length === 1
  return formatMessage(`${given.map((name) => `"${name}"`).join(', ')} ${one ? 'has' : 'have'} no effect in ${where}: ${why}. Remove ${one ? 'it' : 'them'}, or ${instead}.`)
}

/** What `validateOptions` found: errors stop the load, warnings do not. */
export interface OptionsCheck {
  /** Wrong types and values of known options. */
  errors: ConfigProblem[]
  /** Unknown options, each with the closest known name when one is close. */
  warnings: ConfigProblem[]
  /** The unknown option names (top level), ignored names excluded. */
  unknown: string[]
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }

/** Parses `50mb`-style sizes (b, kb, mb, gb; case-insensitive) or a number of bytes. */
export function parseSize(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value)
  if (!match) return undefined
  return Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]!)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const isRoutesValue = (value: unknown) => typeof value === 'string' || isPlainObject(value)

/**
 * Checks an options object, the one check every surface runs (docs/behaviour.md, "Options"):
 * wrong types and values of known options are errors; an unknown option is a warning naming it,
 * with the closest known name when one is close, and is then ignored; `enabled`, `user` and
 * `cache` are ignored silently. Each problem has the file (the config file, or `options` for an
 * object given in code), the JSON path and the fix.
 *
 * @example
 * const { errors, warnings } = validateOptions({ latancy: 0, port: 'x' }, 'options')
 * // errors: /port must be a whole number; warnings: /latancy, did you mean "latency"?
 *
 * @param extraNames names a surface accepts besides the options (the Vite plugin's `config`, `build`).
 */
export function validateOptions(options: unknown, file: string, extraNames: readonly string[] = []): OptionsCheck {
  const problems: ConfigProblem[] = []
  const warnings: ConfigProblem[] = []
  const unknown: string[] = []
  const problem = (key: string | Array<string | number>, message: string, fix: string) =>
    problems.push({ file, pointer: toPointer(Array.isArray(key) ? key : [key]), message, fix })
  const warnUnknown = (path: string[], names: readonly string[]) => {
    const name = path.join('.')
    const close = closestName(path[path.length - 1]!, names)
    warnings.push({
      file,
      pointer: toPointer(path),
      message: `unknown option "${name}", ignored`,
      fix: close ? `Did you mean "${[...path.slice(0, -1), close].join('.')}"?` : `Remove it, or use one of ${names.join(', ')}.`,
    })
  }
  if (!isPlainObject(options)) {
    problem([], 'the options must be an object', 'Export an object such as { routes: "routes.json", data: "data" }.')
    return { errors: problems, warnings, unknown }
  }
  const names = [...OPTION_NAMES, ...extraNames]
  const known = new Set<string>([...names, ...IGNORED_OPTION_NAMES])
  for (const key of Object.keys(options)) {
    if (known.has(key)) continue
    unknown.push(key)
    warnUnknown([key], names)
  }
  const o = options as Record<string, unknown>
  const wholeNumber = (key: string, max = Number.MAX_SAFE_INTEGER) => {
    const v = o[key]
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)) {
      problem(key, `${key} must be a whole number from 0 to ${max}, got ${JSON.stringify(v)}`, `Set ${key} to a number such as ${key === 'port' ? 9999 : 250}.`)
    }
  }
  const string = (key: string) => {
    const v = o[key]
    if (v !== undefined && (typeof v !== 'string' || v === '')) problem(key, `${key} must be a non-empty string, got ${JSON.stringify(v)}`, `Set ${key} to a string.`)
  }
  wholeNumber('latency')
  wholeNumber('port', 65535)
  string('host')
  string('data')
  string('pluginContext')
  string('validate')
  if (o.limit !== undefined && (!(typeof o.limit === 'string' || typeof o.limit === 'number') || parseSize(o.limit) === undefined)) {
    problem('limit', `limit must be a size such as "50mb" or a number of bytes, got ${JSON.stringify(o.limit)}`, 'Set limit to "50mb", "100kb" or a number of bytes.')
  }
  if (o.routes !== undefined) {
    const list = Array.isArray(o.routes) ? o.routes : [o.routes]
    list.forEach((value, index) => {
      if (!isRoutesValue(value)) problem(Array.isArray(o.routes) ? ['routes', index] : ['routes'], 'routes must be a file path or a routes object', 'Set routes to "routes.json", an array of paths, or an object of routes.')
    })
  }
  if (o.plugins !== undefined) {
    if (!Array.isArray(o.plugins)) problem('plugins', 'plugins must be an array', 'Set plugins to an array of module names, such as ["@my/mocks"].')
    else
      o.plugins.forEach((plugin, index) => {
        if (typeof plugin !== 'string' && !isPlainObject(plugin)) problem(['plugins', index], 'a plugin must be a module name or an object', 'Name the plugin module as a string, or give { routes, data }.')
      })
  }
  if (o.logProvider !== undefined && typeof o.logProvider !== 'function') {
    problem('logProvider', 'logProvider must be a function returning a logger', 'Set logProvider to () => console, or to a function returning your logger.')
  }
  if (o.handlers !== undefined && !Array.isArray(o.handlers)) {
    problem('handlers', 'handlers must be an array of msw request handlers', 'Set handlers to [http.get(...), ...].')
  }
  if (o.onUnhandledRequest !== undefined && !isUnhandledStrategy(o.onUnhandledRequest)) {
    problem('onUnhandledRequest', `onUnhandledRequest must be "error", "warn" or "bypass", got ${JSON.stringify(o.onUnhandledRequest)}`, 'Pick one of "error", "warn" and "bypass".')
  }
  if (o.proxy !== undefined && (typeof o.proxy !== 'string' || !/^https?:\/\/[^/]/i.test(o.proxy) || !URL.canParse(o.proxy))) {
    problem('proxy', `proxy must be an http or https URL, got ${JSON.stringify(o.proxy)}`, 'Set proxy to the back end\'s base URL, such as "http://localhost:8080".')
  }
  if (o.watch !== undefined && typeof o.watch !== 'boolean') problem('watch', 'watch must be true or false', 'Set watch to true or false.')
  for (const [key, inner] of [
    ['requestLog', 'limit'],
    ['admin', 'allowRemote'],
    ['sessions', 'limit'],
  ] as const) {
    const v = o[key]
    if (v === undefined) continue
    if (!isPlainObject(v)) {
      problem(key, `${key} must be an object`, `Set ${key} to { ${inner}: ... }.`)
      continue
    }
    for (const k of Object.keys(v)) if (k !== inner) warnUnknown([key, k], [inner])
    const value = v[inner]
    if (inner === 'limit' && value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 1)) {
      problem([key, inner], `${key}.limit must be a whole number of at least 1`, `Set ${key}.limit to a number such as 1000.`)
    }
    if (inner === 'allowRemote' && value !== undefined && typeof value !== 'boolean') {
      problem([key, inner], 'admin.allowRemote must be true or false', 'Set admin.allowRemote to true or false.')
    }
  }
  return { errors: problems, warnings, unknown }
}

/**
 * A copy of the options without the unknown and ignored names (what the surfaces then use).
 *
 * @example
 * knownOptions({ latency: 0, user: null, latancy: 5 }) // { latency: 0 }
 */
export function knownOptions<T extends object>(options: T, extraNames: readonly string[] = []): T {
  const known = new Set<string>([...OPTION_NAMES, ...extraNames])
  return Object.fromEntries(Object.entries(options).filter(([key]) => known.has(key))) as T
}
