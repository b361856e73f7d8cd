/**
 * Which routes the requests used: the one-line count assertion of the harness
 * (`expectCalled('GET v1/users', 2)`) and the list of routes a run never used (`reportUnused`),
 * both read from request records. Isomorphic: records and a routes object only.
 */
import { countOf } from '../core/count.js'
import { formatMessage } from '../core/errors.js'
import { answersAlone, entriesOf, isConditional, isPlainObject, walkRoutes } from '../core/routes-model.js'
import { METHOD_KEYS } from '../core/types.js'
import type { RequestRecord } from './request-log.js'

/** What `expectCalled` counts: a route key (`v1/users`) or a path (`/v1/users`), with or without a method. */
interface CallTarget {
  method: string | undefined
  name: string
}

/** `'GET v1/users'` -> method GET, name v1/users; `'v1/users'` -> any method. */
function parseTarget(target: string): CallTarget {
  const match = /^([A-Za-z]+)\s+(\S.*)$/.exec(target.trim())
  if (match && /^(get|put|post|delete|patch|head|options)$/i.test(match[1]!)) return { method: match[1]!.toUpperCase(), name: match[2]!.trim() }
  return { method: undefined, name: target.trim() }
}

/** The path of a recorded URL (records keep the URL as received). */
function pathOf(url: string): string {
  try {
    return new URL(url, 'http://mockyard.invalid').pathname
  } catch {
    return url
  }
}

/** A record as the count lists name it: `GET v1/users`, or `GET /v1/claimz (no route)`. */
function usageKey(record: RequestRecord): string {
  if (record.route) return `${record.method} ${record.route}`
  return `${record.method} ${pathOf(record.url)} (${record.entry === 'handler' ? 'a handler' : record.entry === 'proxy' ? 'proxied' : 'no route'})`
}

/** How many requests each route (or unanswered path) had, in order of first use. */
export function callCounts(records: readonly RequestRecord[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const record of records) {
    const key = usageKey(record)
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return counts
}

const times = (n: number) => `${n} ${n === 1 ? 'time' : 'times'}`

/**
 * Throws, with an explanation, unless the records hold `count` requests for `target` (at least
 * one when `count` is left out). `target` is a route key or a path, optionally after a method:
 * `'GET v1/users'`, `'v1/users'`, `'POST /v1/payments'`. `scope` words when the records were
 * made (`in this test`, `since the last reset`).
 *
 * @example
 * expectCalledIn(log.list(), 'GET v1/users', 2, 'in this test')
 */
export function expectCalledIn(records: readonly RequestRecord[], target: string, count: number | undefined, scope: string, log?: { limit: number; dropped: number }): void {
  if (typeof target !== 'string' || target.trim() === '') throw new TypeError(formatMessage(`expectCalled() takes a route key, optionally after a method ('GET v1/users'), not ${JSON.stringify(target)}.`))
  if (count !== undefined && !(Number.isInteger(count) && count >= 0)) throw new TypeError(formatMessage(`expectCalled('${target}', ${String(count)}): the count must be a whole number, 0 or more.`))
  const { method, name } = parseTarget(target)
  const matching = records.filter((record) => (method === undefined || record.method === method) && (record.route === name || pathOf(record.url) === name))
  const actual = matching.length
  if (count === undefined ? actual > 0 : actual === count) return
  const wanted = `${method ? `${method} ` : ''}${name}`
  const expected = count === undefined ? 'to be called' : `to be called ${times(count)}`
  const lines = [`expected ${wanted} ${expected} ${scope}; it was called ${times(actual)}.`]
  const counts = callCounts(records)
  if (counts.size === 0) lines.push(`No request was made ${scope}.`)
  else {
    lines.push(`Requests ${scope}, per route:`)
    for (const [key, n] of counts) lines.push(`  ${key}: ${n}`)
  }
  // The log is bounded: what was dropped may be what was looked for.
  if (log && log.dropped > 0) {
    lines.push(`The request log keeps the latest ${countOf(log.limit, 'record')} (requestLog.limit), all sessions together, and ${countOf(log.dropped, 'older record')} ${log.dropped === 1 ? 'was' : 'were'} dropped since it was last reset: the requests looked for may be among them. Raise requestLog.limit.`)
  }
  throw new Error(formatMessage(lines.join('\n')))
}

/** The method keys a route has (`get`, `post`...). */
function methodKeysOf(route: unknown): string[] {
  return isPlainObject(route) ? METHOD_KEYS.filter((method) => Object.hasOwn(route, method)) : []
}

/**
 * The route and method keys of a routes object, as `reportUnused` lists them: `GET v1/users` for
 * each method key a route has, `v1/users (any method)` for a route that answers without one, and
 * `v1/users (other methods)` for the route's own answer (its `file`, `url`, `status`...) beside
 * method keys: it answers the methods that have no key.
 */
export function routeKeysOf(routes: unknown): string[] {
  const keys: string[] = []
  walkRoutes(routes, {
    route(key, route) {
      const methods = methodKeysOf(route)
      for (const method of methods) keys.push(`${method.toUpperCase()} ${key}`)
      if (methods.length === 0) keys.push(`${key} (any method)`)
      else if (isPlainObject(route) && answersAlone(route)) keys.push(`${key} (other methods)`)
    },
  })
  return keys
}

/**
 * Whether a request got the route's own answer (its `file`, `url`, `status`...) rather than one of
 * a method key's: its method has no key (a HEAD is the `get` key's when there is one), or its key
 * holds conditional entries only, none of which matched (`default` answered).
 */
function gotRouteAnswer(route: unknown, method: string, entry: string): boolean {
  const keys = methodKeysOf(route)
  const key = keys.includes(method) ? method : method === 'head' && keys.includes('get') ? 'get' : undefined
  if (key === undefined) return true
  const value = (route as Record<string, unknown>)[key]
  const ownDefault = typeof value === 'string' || entriesOf(value, []).some(({ entry: written }) => isPlainObject(written) && !isConditional(written))
  return entry === 'default' && !ownDefault
}

/** Collects which route and method keys requests used, across resets, for `reportUnused`. */
export class RouteUsage {
  private readonly used = new Set<string>()
  private readonly usedRoutes = new Set<string>()
  // Per route, each method and entry that answered (`get default`), CORS preflights aside: what
  // its `(other methods)` key is read from.
  private readonly answers = new Map<string, Set<string>>()

  /** Notes the routes the records used (call before the log is reset). */
  add(records: readonly RequestRecord[]): void {
    for (const record of records) {
      if (!record.route) continue
      this.usedRoutes.add(record.route)
      this.used.add(`${record.method} ${record.route}`)
      // A route's `get` answers HEAD requests too.
      if (record.method === 'HEAD') this.used.add(`GET ${record.route}`)
      if (record.entry === 'preflight') continue
      const answers = this.answers.get(record.route) ?? new Set<string>()
      answers.add(`${record.method.toLowerCase()} ${record.entry ?? ''}`)
      this.answers.set(record.route, answers)
    }
  }

  /** The keys of `routes` (routeKeysOf) no recorded request used. */
  unused(routes: unknown): string[] {
    return routeKeysOf(routes).filter((key) => {
      const anyMethod = /^(.*) \(any method\)$/.exec(key)
      if (anyMethod) return !this.usedRoutes.has(anyMethod[1]!)
      const otherMethods = /^(.*) \(other methods\)$/.exec(key)
      if (otherMethods) {
        const route = (routes as Record<string, unknown>)[otherMethods[1]!]
        return ![...(this.answers.get(otherMethods[1]!) ?? [])].some((answer) => {
          const [method, entry] = answer.split(' ') as [string, string]
          return gotRouteAnswer(route, method, entry)
        })
      }
      return !this.used.has(key)
    })
  }
}

/** The warning `reportUnused` prints; `undefined` when every route was used. */
export function unusedRoutesWarning(unused: readonly string[], where: string): string | undefined {
  if (unused.length === 0) return undefined
  const count = unused.length === 1 ? '1 route was' : `${unused.length} routes were`
  return formatMessage(`${count} not used by any test ${where} (reportUnused):\n${unused.map((key) => `  - ${key}`).join('\n')}\nRemove them if no test needs them, or add a test that uses them.`)
}
