/**
 * The routes model: the rules of a `routes.json` file that more than one reader needs, each in
 * one place (docs/behaviour.md, "Keys allowed in a routes file" and "Selecting the entry"), and
 * the one walk over route -> method -> entry -> sequence item. The compiler, the validator,
 * `check` (dead config, OpenAPI), the dashboard and the record writer read routes through it, so
 * a new route key or a changed rule is one change here (and one in `schema/routes.json`).
 */
import { FAULT_NAMES, METHOD_KEYS, type FaultName, type MethodKey } from './types.js'

export const HEADER_KEYS = ['responseHeader', 'responseHeaders'] as const
/** The fields that shape an answer, wherever an answer is written (route, entry, sequence item). */
export const RESPONSE_KEYS = ['file', 'url', 'status', 'latency', ...HEADER_KEYS, 'fault', 'stream', 'events'] as const
/** The keys a route may hold (the others are warned about, and ignored). */
export const ROUTE_KEYS: ReadonlySet<string> = new Set<string>([...RESPONSE_KEYS, ...METHOD_KEYS, 'websocket'])
/** The keys a step of a route's `websocket` array may hold (docs/behaviour.md, "WebSocket"). */
export const SOCKET_STEP_KEYS: ReadonlySet<string> = new Set<string>(['on', 'send', 'delay', 'close', 'drop'])
/** The keys an entry of a method may hold. */
export const ENTRY_KEYS: ReadonlySet<string> = new Set<string>([...RESPONSE_KEYS, 'params', 'headers', 'response', 'operation'])
/** The keys a sequence item may hold. */
export const ITEM_KEYS: ReadonlySet<string> = new Set<string>([...RESPONSE_KEYS, 'repeat'])

/** JSON pointer tokens: `['v1/users', 'get', 2, 'response', 0]`. */
export type Path = Array<string | number>
type Json = Record<string, unknown>

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)

export function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An entry with `params`, `headers`, `response` or `operation` is chosen by scoring; any other sets the method's default. */
export function isConditional(entry: object): boolean {
  return hasOwn(entry, 'params') || hasOwn(entry, 'headers') || hasOwn(entry, 'response') || hasOwn(entry, 'operation')
}

/** The methods a GraphQL request comes with, the only ones an `operation` entry may sit under. */
export const GRAPHQL_METHODS: ReadonlySet<string> = new Set(['get', 'post'])

/** An object answers a request by itself when it names a `file`, a `url`, a `status`, a `fault` or `events`. */
export function answersAlone(object: object): boolean {
  return hasOwn(object, 'file') || hasOwn(object, 'url') || hasOwn(object, 'status') || hasOwn(object, 'fault') || hasOwn(object, 'events')
}

/**
 * An override that answers nothing itself (no `file`, `url`, `status`, `fault`, `events`, nor a
 * method key): its `latency`, headers and `stream` are laid over the loaded route's own answers
 * (docs/behaviour.md, "Overrides").
 */
export function laidOver(override: object): boolean {
  return replacedMethods(override).length === 0
}

/**
 * The methods an override of a route replaces whole (docs/behaviour.md, "Overrides"): every
 * method when it answers by itself, else those it has a key for; none when it is only laid over.
 */
export function replacedMethods(override: object): readonly MethodKey[] {
  return answersAlone(override) ? METHOD_KEYS : METHOD_KEYS.filter((method) => hasOwn(override, method))
}

/** Whether a route key is a path a request can have: no query, fragment or whitespace. */
export function isRoutePath(key: string): boolean {
  return /^\/?[^?#\s]*$/.test(key)
}

/** Whether a value is a fault name (`reset`, `close`, `hang`, `truncate`). */
export function isFaultName(value: unknown): value is FaultName {
  return typeof value === 'string' && (FAULT_NAMES as readonly string[]).includes(value)
}

/**
 * The flags a pattern condition's RegExp is built with: absent or empty means `i`; the stateful
 * `g` and `y` are dropped so that one RegExp serves every request.
 */
export function patternFlags(flags: unknown): string {
  return typeof flags !== 'string' || flags === '' ? 'i' : flags.replace(/[gy]/g, '')
}

const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH'])

/** Whether a method (upper case) takes params from the request body as well as the query. */
export function takesBodyParams(method: string): boolean {
  return BODY_METHODS.has(method)
}

/**
 * The item a sequence serves after `count` requests: items in order, each `repeat` times in a
 * row, starting over after the last. `repeats` are the items' repeats (each at least 1).
 */
export function sequenceItemAt(count: number, repeats: readonly number[]): number {
  let cycle = 0
  for (const repeat of repeats) cycle += repeat
  if (cycle === 0) return 0
  let position = count % cycle
  for (let i = 0; i < repeats.length; i++) {
    position -= repeats[i]!
    if (position < 0) return i
  }
  return repeats.length - 1
}

/** A sequence item's `repeat`: a positive number, else once. */
export function repeatOf(item: Json): number {
  return typeof item.repeat === 'number' && item.repeat > 0 ? item.repeat : 1
}

/**
 * Field-by-field inheritance of answers: `over`'s fields win (fields it lacks or leaves
 * undefined are inherited), `headers` merge by name, a more specific `file` replaces an
 * inherited `url` (`url` wins over `file` only in the same object), and a more specific `file`,
 * `url` or `status` replaces an inherited `fault` (a fault stays with the object that names it).
 */
export function overlay<T extends { file?: unknown; url?: unknown; status?: unknown; fault?: unknown; events?: unknown; headers?: Record<string, unknown> }>(base: T, over: T): T {
  const result = { ...base }
  for (const key of Object.keys(over) as Array<keyof T>) if (over[key] !== undefined) result[key] = over[key]
  if (base.headers !== undefined || over.headers !== undefined) result.headers = { ...base.headers, ...over.headers }
  // `file`, `events` and `url` fill one slot, the body's source: the more specific one wins.
  if (over.file !== undefined && over.url === undefined) delete result.url
  if (over.fault === undefined && (over.file !== undefined || over.url !== undefined || over.status !== undefined || over.events !== undefined)) delete result.fault
  if (over.file !== undefined && over.events === undefined) delete result.events
  if (over.events !== undefined && over.url === undefined) delete result.url
  if (over.events !== undefined && over.file === undefined) delete result.file
  return result
}

/** What the walk visits; every callback is optional. Values are handed over as written. */
export interface RoutesVisitor {
  /** Every route key but the editors' `$schema` string; the walk goes on into objects only. */
  route?(key: string, route: unknown, path: Path): void
  /** Every method key a route object holds (`get` ... `head`), in `METHOD_KEYS` order. */
  method?(method: MethodKey, value: unknown, path: Path, route: Json): void
  /** Each entry of a method key that holds an object or an array (`index` only in an array). */
  entry?(entry: unknown, path: Path, method: MethodKey, index: number | undefined): void
  /** Each item of an entry's `response` array. */
  item?(item: unknown, path: Path, entry: Json): void
}

/**
 * The one walk over a routes file: route -> method -> entry -> sequence item, with the JSON
 * pointer tokens of each. An entry of an array is at `[key, method, index]`, a single entry
 * object at `[key, method]`.
 */
export function walkRoutes(routes: unknown, visitor: RoutesVisitor): void {
  if (!isPlainObject(routes)) return
  for (const key of Object.keys(routes)) {
    const route = routes[key]
    if (key === SCHEMA_KEY && typeof route === 'string') continue
    const path: Path = [key]
    visitor.route?.(key, route, path)
    if (!isPlainObject(route)) continue
    for (const method of METHOD_KEYS) {
      if (!hasOwn(route, method)) continue
      const value = route[method]
      const methodPath = [key, method]
      visitor.method?.(method, value, methodPath, route)
      if (!visitor.entry && !visitor.item) continue
      for (const { entry, path: entryPath, index } of entriesOf(value, methodPath)) {
        visitor.entry?.(entry, entryPath, method, index)
        if (visitor.item && isPlainObject(entry) && Array.isArray(entry.response)) {
          entry.response.forEach((item, n) => visitor.item!(item, [...entryPath, 'response', n], entry))
        }
      }
    }
  }
}

/** The entries of a method key's value with their pointer tokens: none for a file name. */
export function entriesOf(value: unknown, methodPath: Path): Array<{ entry: unknown; path: Path; index: number | undefined }> {
  if (Array.isArray(value)) return value.map((entry, index) => ({ entry, path: [...methodPath, index], index }))
  if (isPlainObject(value)) return [{ entry: value, path: methodPath, index: undefined }]
  return []
}

/** The top-level key a routes file may carry for editors (`"$schema": "..."`); never a route. */
export const SCHEMA_KEY = '$schema'

/** A field's value and the pointer tokens of where it is written. */
export interface Sourced<T> {
  readonly value: T
  readonly path: Path
}

/** An answer's fields, each with where it was inherited from; header names lower case. */
export interface SourcedFields {
  file?: Sourced<string>
  url?: Sourced<string>
  status?: Sourced<number>
  latency?: Sourced<number>
  fault?: Sourced<FaultName>
  headers?: Record<string, Sourced<string>>
  /** `stream` as written (`{ by, delay }`). */
  stream?: Sourced<unknown>
  /** `events`: an inline array, or the name of a JSON data file holding one. */
  events?: Sourced<unknown>
}

/** One answer a method can give, as written: its default, a conditional entry, or a sequence item. */
export interface ModelAnswer {
  /** `default`, or the entry's label (`get`, `get[2]`), with `.response[n]` for an item. */
  readonly label: string
  /** Pointer tokens of the object the answer comes from (for a default: the last one laid over it). */
  readonly path: Path
  readonly fields: SourcedFields
}

function sourcedFields(object: Json, path: Path): SourcedFields {
  const fields: SourcedFields = {}
  if (typeof object.file === 'string') fields.file = { value: object.file, path: [...path, 'file'] }
  if (typeof object.url === 'string') fields.url = { value: object.url, path: [...path, 'url'] }
  if (typeof object.status === 'number') fields.status = { value: object.status, path: [...path, 'status'] }
  if (typeof object.latency === 'number') fields.latency = { value: object.latency, path: [...path, 'latency'] }
  if (isFaultName(object.fault)) fields.fault = { value: object.fault, path: [...path, 'fault'] }
  if (object.stream !== undefined) fields.stream = { value: object.stream, path: [...path, 'stream'] }
  if (object.events !== undefined) fields.events = { value: object.events, path: [...path, 'events'] }
  for (const key of HEADER_KEYS) {
    const headers = object[key]
    if (!isPlainObject(headers)) continue
    fields.headers ??= {}
    for (const [name, value] of Object.entries(headers)) fields.headers[name.toLowerCase()] = { value: String(value), path: [...path, key, name] }
  }
  return fields
}

/**
 * Every answer one method of a route can give, with inheritance applied as the engine applies
 * it: the default (the route's fields, then a method file name, then each plain entry laid over
 * it, field by field), then each conditional entry (its own fields, and the route's `latency`),
 * or each of its sequence items laid over the entry.
 */
export function answersOf(route: Json, key: string, method: MethodKey): ModelAnswer[] {
  const value = route[method]
  const routeFields = sourcedFields(route, [key])
  let defaults: ModelAnswer | undefined = answersAlone(route) ? { label: 'default', path: [key], fields: routeFields } : undefined
  if (typeof value === 'string') {
    defaults = { label: 'default', path: [key, method], fields: overlay(routeFields, { file: { value, path: [key, method] } }) }
  }
  const conditional: ModelAnswer[] = []
  for (const { entry, path, index } of entriesOf(value, [key, method])) {
    if (!isPlainObject(entry)) continue
    const own = sourcedFields(entry, path)
    if (!isConditional(entry)) {
      defaults = { label: 'default', path, fields: overlay(defaults?.fields ?? routeFields, own) }
      continue
    }
    const label = index === undefined ? method : `${method}[${index}]`
    const fields: SourcedFields = own.latency === undefined && routeFields.latency ? { ...own, latency: routeFields.latency } : own
    if (Array.isArray(entry.response)) {
      entry.response.forEach((item, n) => {
        const itemPath = [...path, 'response', n]
        if (isPlainObject(item)) conditional.push({ label: `${label}.response[${n}]`, path: itemPath, fields: overlay(fields, sourcedFields(item, itemPath)) })
      })
    } else conditional.push({ label, path, fields })
  }
  return defaults ? [defaults, ...conditional] : conditional
}

/**
 * The data files a route's `websocket` steps send (`{ "file": name }` as a step's `send`, or as
 * an item of its array), with their pointer tokens; `path` is the steps' own (`[key, 'websocket']`).
 * A name is as written (the validator says when it is not a string).
 */
export function socketFilesOf(steps: unknown, path: Path): Array<{ name: unknown; path: Path }> {
  const found: Array<{ name: unknown; path: Path }> = []
  const fileOf = (data: unknown, at: Path) => {
    if (isPlainObject(data) && Object.keys(data).length === 1 && 'file' in data) found.push({ name: data.file, path: [...at, 'file'] })
  }
  if (!Array.isArray(steps)) return found
  steps.forEach((step, index) => {
    if (!isPlainObject(step)) return
    const sendPath = [...path, index, 'send']
    if (Array.isArray(step.send)) step.send.forEach((item, n) => fileOf(item, [...sendPath, n]))
    else fileOf(step.send, sendPath)
  })
  return found
}
