import { normalizePath, pathShape } from '../core/compile-routes.js'
import { toPointer, type ConfigProblem } from '../core/errors.js'
import { entriesOf, isConditional, isPlainObject as isObject, patternFlags, SCHEMA_KEY, walkRoutes, type Path } from '../core/routes-model.js'

const has = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)

/** JSON with sorted keys, so that two equal objects give the same text. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable(value[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** A condition as the scoring sees it: scalars by text, arrays as sets, pattern flags as applied. */
function normalCondition(condition: unknown): unknown {
  if (Array.isArray(condition)) return { set: [...new Set(condition.map((v) => String(v)))].sort() }
  if (isObject(condition) && typeof condition.pattern === 'string') {
    return { pattern: condition.pattern, flags: [...patternFlags(condition.flags)].sort().join('') }
  }
  if (isObject(condition)) return { object: condition }
  return String(condition)
}

/** The conditions of an entry in a comparable form: equal signatures score every request alike. */
function signature(entry: Record<string, unknown>): string {
  const params: Record<string, unknown> = {}
  if (isObject(entry.params)) for (const [k, v] of Object.entries(entry.params)) params[k] = normalCondition(v)
  const headers: Record<string, unknown> = {}
  if (isObject(entry.headers)) for (const [k, v] of Object.entries(entry.headers)) headers[k.toLowerCase()] = normalCondition(v)
  // A GraphQL `operation` is one more condition: entries of different operations never shadow each other.
  return stable(typeof entry.operation === 'string' ? { params, headers, operation: entry.operation } : { params, headers })
}

const EMPTY = signature({})

/**
 * Finds configuration that can never take effect in one routes file (docs/behaviour.md,
 * "Checking mocks: `mockyard check`"):
 *
 * - a conditional entry whose conditions (`params`, `headers` and `operation`, compared as the
 *   scoring compares them) equal those of a later entry of the same method: every request scores both
 *   alike and the later one wins ties;
 * - the method's own default (a plain entry, without `params`, `headers` or `response`) when an
 *   entry of the method has no conditions at all: that entry scores the same as the default
 *   (0 hits, 0 misses) and wins by coming later;
 * - a field (`file`, `url`, `status`, `latency`) of a plain entry that a later plain entry of the
 *   same method sets again (plain entries override the default field by field);
 * - a `file` next to a `url` in the same object (the redirect wins), or next to status 204 or
 *   304 (those answer with an empty body);
 * - a route whose key has the same shape as a later key (the same literal segments and a
 *   parameter at the same places, `v1/users/:id` and `v1/users/:name`): requests reach only the
 *   later one. `earlierKeys` are the keys of the routes files merged before this one.
 *
 * There is no sequence item that repeats forever (`repeat` is a count and sequences start over),
 * so no item is unreachable after another.
 *
 * @example
 * findDeadConfig({ 'v1/a': { file: 'a.json', url: 'https://x.test' } }, 'routes.json')
 * // [{ pointer: '/v1~1a/file', message: 'the file "a.json" is never served: ...', ... }]
 */
export function findDeadConfig(
  routes: unknown,
  file: string,
  earlierKeys: ReadonlyArray<{ key: string; file: string }> = [],
): Array<ConfigProblem & { kind: 'unreachable' | 'ignored' }> {
  const found: Array<ConfigProblem & { kind: 'unreachable' | 'ignored' }> = []
  if (!isObject(routes)) return found
  const report = (kind: 'unreachable' | 'ignored', path: Path, message: string, fix: string, where = file) =>
    found.push({ kind, file: where, pointer: toPointer(path), message, fix })

  const ignoredFile = (object: Record<string, unknown>, path: Path) => {
    ignoredStreaming(object, path)
    if (typeof object.file !== 'string') return
    if (typeof object.url === 'string') {
      report('ignored', [...path, 'file'], `the file "${object.file}" is never served: "url" is set too and the redirect wins`, 'Remove "file", or remove "url" to serve the file.')
    } else if (object.status === 204 || object.status === 304) {
      report('ignored', [...path, 'file'], `the file "${object.file}" is never served: status ${object.status} answers with an empty body`, `Remove "file", or use a status that has a body, such as 200.`)
    } else if (object.fault === 'reset' || object.fault === 'close' || object.fault === 'hang') {
      report('ignored', [...path, 'file'], `the file "${object.file}" is never served: the fault "${object.fault}" sends no answer`, 'Remove "file", or use "fault": "truncate" to send half of it.')
    }
  }

  /** `events` and `stream` that never take effect beside what wins over them in the same object. */
  const ignoredStreaming = (object: Record<string, unknown>, path: Path) => {
    if (object.events !== undefined && typeof object.url === 'string') {
      report('ignored', [...path, 'events'], 'the events are never sent: "url" is set too and the redirect wins', 'Remove "events", or remove "url" to send the events.')
    } else if (object.events !== undefined && (object.status === 204 || object.status === 304)) {
      report('ignored', [...path, 'events'], `the events are never sent: status ${object.status} answers with an empty body`, 'Remove "events", or remove the status.')
    }
    if (object.stream !== undefined && object.events !== undefined) {
      report('ignored', [...path, 'stream'], '"stream" is never used: "events" is set too, and events are sent on their own schedule', 'Remove "stream", or give each event its "delay".')
    }
  }

  const keys = Object.keys(routes).filter((k) => k !== SCHEMA_KEY && isObject(routes[k]))
  const all = [...earlierKeys, ...keys.map((key) => ({ key, file }))]
  // Each key's shape once, and the keys of each shape in order: comparing every pair of keys
  // took quadratic time (GitHub's document has thousands of routes).
  // The path a key answers, parameters alike (the rule the route table and the load warning use).
  const shapes = all.map(({ key }) => pathShape(key))
  const byShape = new Map<string, number[]>()
  shapes.forEach((shape, index) => {
    const list = byShape.get(shape)
    if (list) list.push(index)
    else byShape.set(shape, [index])
  })
  all.forEach(({ key, file: where }, index) => {
    if (!key.includes(':')) return
    const normal = normalizePath(key)
    const laterIndex = byShape.get(shapes[index]!)!.find((other) => other > index && all[other]!.file !== where && normalizePath(all[other]!.key) !== normal)
    const later = laterIndex === undefined ? undefined : all[laterIndex]
    if (later && (where === file || later.file === file)) {
      report('unreachable', [key], `the route "${key}" is never reached: the later route "${later.key}"${later.file === where ? '' : ` of ${later.file}`} has the same shape and takes its requests`, 'Remove one of the two routes, or give them different literal segments.', where)
    }
  })

  walkRoutes(routes, {
    route(_key, route, path) {
      if (isObject(route)) ignoredFile(route, path)
    },
    method(method, value, methodPath) {
      const label = (index: number | undefined) => (index === undefined ? method : `${method}[${index}]`)
      const entries = entriesOf(value, methodPath).filter((e): e is { entry: Record<string, unknown>; path: Path; index: number | undefined } => isObject(e.entry))
      // Empty objects set nothing (and stand for values the loader refused).
      const plain = entries.filter((e) => !isConditional(e.entry) && Object.keys(e.entry).length > 0)
      const conditional = entries.filter((e) => isConditional(e.entry))
      for (const { entry, path } of entries) {
        ignoredFile(entry, path)
        if (Array.isArray(entry.response)) entry.response.forEach((item, n) => isObject(item) && ignoredFile(item, [...path, 'response', n]))
      }
      const signatures = conditional.map((e) => signature(e.entry))
      conditional.forEach(({ path, index }, n) => {
        const twin = signatures.findIndex((s, m) => m > n && s === signatures[n])
        if (twin >= 0) {
          const other = label(conditional[twin]!.index)
          report('unreachable', path, `${label(index)} is never chosen: ${other} has the same conditions and wins ties by coming later`, `Remove one of them, or make their params${conditional[n]!.entry.operation === undefined ? '' : ', operation'} or headers differ.`)
        }
      })
      const open = conditional.find((_, n) => signatures[n] === EMPTY)
      if (open) {
        for (const { path, index } of plain) {
          report('unreachable', path, `${label(index)} sets the default answer of ${method.toUpperCase()}, which is never chosen: ${label(open.index)} has no conditions and wins ties by coming later`, `Remove ${label(index)}, or give ${label(open.index)} params or headers.`)
        }
      }
      plain.forEach(({ entry, path, index }, n) => {
        for (const field of ['file', 'url', 'status', 'latency']) {
          if (!has(entry, field)) continue
          const later = plain.slice(n + 1).find((p) => has(p.entry, field))
          if (later) {
            report('unreachable', [...path, field], `"${field}" of ${label(index)} is never used: ${label(later.index)}, a later entry without conditions, sets it again`, `Remove one of them, or give ${label(index)} params or headers.`)
          }
        }
      })
    },
  })
  return found
}
