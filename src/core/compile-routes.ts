import { compileCondition, compilePattern, type Condition } from './compile-condition.js'
import { OPERATION_PARAM } from './graphql-request.js'
import { preview } from './redact.js'
import { toPointer } from './errors.js'
import { indexLiterals, type LiteralIndex } from './literal-index.js'
import { parsePath } from './parse-request.js'
import { answersAlone, entriesOf, isConditional, isFaultName, overlay, repeatOf, replacedMethods, ROUTE_KEYS, SCHEMA_KEY } from './routes-model.js'
import { compileSocket, type CompiledSocket } from './websocket.js'
import { METHOD_KEYS, type FaultName, type FileSource, type ParamCondition, type PatternCondition, type RoutesConfig } from './types.js'

/** A data file and the folder (or plugin) that supplied it. */
export interface FileRef {
  readonly name: string
  readonly source: FileSource
}

/** What a candidate answers with, before per-request work (file bytes, context, CORS). */
export interface ResponseSpec {
  file?: FileRef
  url?: string
  status?: number
  latency?: number
  /** A network fault instead of (`truncate`: cutting) the answer (docs/behaviour.md, "Faults"). */
  fault?: FaultName
  /** Lower-case header names. */
  headers: Record<string, string>
  /** The file body sent in timed pieces (docs/behaviour.md, "Streams and Server-Sent Events"). */
  stream?: StreamSpec
  /** Server-Sent Events: an inline list, or a JSON data file holding one. */
  events?: EventsSpec
}

/** `stream` as compiled: `by` a line or a number of bytes, `delay` ms between pieces. */
export interface StreamSpec {
  readonly by: 'line' | number
  readonly delay: number
}

/** `events` as compiled: the list as written, or the data file that holds it. */
export type EventsSpec = { readonly list: readonly unknown[] } | { readonly file: FileRef }

export interface SequenceStep extends ResponseSpec {
  repeat: number
}

export interface ParamMatcher extends Condition {
  readonly tokens: readonly string[]
}

/** One way a method can answer: the method's default, or one conditional entry. */
export interface Candidate {
  /** `default` or the entry's index in the method's array, for logs and explanations. */
  readonly label: string
  /** JSON pointer of the entry in its routes file. */
  readonly pointer: string
  readonly conditional: boolean
  readonly response: ResponseSpec
  readonly params: ParamMatcher[]
  readonly headers: Condition[]
  /** The entry's `params` and `headers` as written, for views (the dashboard); absent for the default. */
  readonly written?: { readonly params?: unknown; readonly headers?: unknown }
  readonly sequence?: SequenceStep[]
  /** The GraphQL operation the entry answers (its `operation`), if any. */
  readonly operation?: string
  /** The repeats of the sequence's items (`sequenceItemAt` picks the item a count reaches). */
  readonly repeats?: readonly number[]
}

export interface CompiledMethod {
  readonly default?: Candidate
  readonly conditionals: Candidate[]
  /** The literal conditions of `conditionals`, indexed (many entries only): see literal-index.ts. */
  readonly index?: LiteralIndex
  /** Some entry has an `operation`: GraphQL requests to this method are read as GraphQL (graphql-request.ts). */
  readonly graphql?: boolean
  /** Some entry has `headers` conditions: the choice reads the request's headers too. */
  readonly readsHeaders?: boolean
}

export interface CompiledRoute {
  /** The route key as configured (`v1/users/:id`). */
  readonly key: string
  /** Upper-case method -> its candidates. */
  readonly methods: Map<string, CompiledMethod>
  /** The keys of the route that mockyard does not know (a typo such as `fiel`), for explanations. */
  readonly unknownKeys?: readonly string[]
  /** The route's `websocket` steps, compiled on first use (docs/behaviour.md, "WebSocket"). */
  readonly websocket?: CompiledSocket
}

/** One routes file (or plugin) and where its data files live. */
export interface RouteSource {
  /** The routes file's path or name, for messages. */
  readonly file: string
  readonly routes: RoutesConfig
  readonly files: FileSource
  /**
   * A layer of overrides (`useRoutes`, `PUT /__mockyard/routes`): its routes replace what they
   * answer instead of merging into it (docs/behaviour.md, "Overrides").
   */
  readonly override?: boolean
}

export interface RouteMatch {
  route: CompiledRoute
  params: Record<string, string>
}

/** The compiled route table: lookup by path costs the same with 10 or 5,000 routes. */
export interface RouteTable {
  readonly routes: readonly CompiledRoute[]
  /** The merged routes as configured (file names without their folders), for admin views. */
  readonly config: RoutesConfig
  /**
   * The route of a request path. The path may carry a format suffix: `/v1/users.json` finds
   * `v1/users` when no route has the exact path (docs/behaviour.md, "Route table").
   */
  lookup(pathname: string): RouteMatch | undefined
}

/** The candidates for a method: HEAD answers as GET would, unless the route has a `head` key. */
export function methodOf(route: CompiledRoute, method: string): CompiledMethod | undefined {
  return route.methods.get(method) ?? (method === 'HEAD' ? route.methods.get('GET') : undefined)
}

/**
 * The method whose sequences a request steps: a HEAD answered by the GET candidates is a GET
 * without its body, so it steps (and is explained by) the GET's positions.
 */
export function sequenceMethodOf(route: CompiledRoute, method: string): string {
  return method === 'HEAD' && !route.methods.has('HEAD') ? 'GET' : method
}

/** Upper-case methods a route is configured for, in a stable order (HEAD only with a `head` key). */
export function methodsOf(route: CompiledRoute): string[] {
  return METHOD_ORDER.filter((method) => route.methods.has(method))
}
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

const FILE_TAG = Symbol('mockyard.file')
interface TaggedFile {
  [FILE_TAG]: true
  ref: FileRef
}

/** A route's `websocket` steps, bound to the data folder of the routes file that wrote them (an array replaces, never merges). */
const SOCKET_TAG = Symbol('mockyard.websocket')
interface TaggedSteps {
  [SOCKET_TAG]: true
  steps: unknown
  files: FileSource
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(FILE_TAG in value) && !(SOCKET_TAG in value)
}

function tag(name: string, source: RouteSource): TaggedFile {
  return { [FILE_TAG]: true, ref: { name, source: source.files } }
}

/** Copies one route of a routes file, replacing each `file` name with a reference to its own data folder. */
function tagRoute(source: RouteSource, route: Record<string, unknown>): Record<string, unknown> {
  const copyResponse = (value: Record<string, unknown>) => {
    const copy = Object.create(null) as Record<string, unknown>
    for (const field of Object.keys(value)) {
      const fieldValue = value[field]
      if ((field === 'file' || field === 'events') && typeof fieldValue === 'string') copy[field] = tag(fieldValue, source)
      else if (field === 'response' && Array.isArray(fieldValue)) copy[field] = fieldValue.map((item) => (isObject(item) ? copyResponse(item) : item))
      else copy[field] = fieldValue
    }
    return copy
  }
  const copy = copyResponse(route)
  if (route.websocket !== undefined) copy.websocket = { [SOCKET_TAG]: true, steps: route.websocket, files: source.files } satisfies TaggedSteps
  for (const method of METHOD_KEYS) {
    const value = route[method]
    if (typeof value === 'string') copy[method] = tag(value, source)
    else if (Array.isArray(value)) copy[method] = value.map((entry) => (isObject(entry) ? copyResponse(entry) : entry))
    else if (isObject(value)) copy[method] = copyResponse(value)
  }
  return copy
}

/** Deep merge, key by key: objects merge, everything else (arrays included) is replaced. */
function merge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key]
    target[key] = isObject(existing) && isObject(value) ? merge(Object.assign(Object.create(null), existing), value) : value
  }
  return target
}

/** What the URL parser percent-encodes in a path: anything outside visible ASCII, and `"<>^\`{}`. */
const ENCODED_IN_PATHS = /[^\x21-\x7e]|["<>^`{}]/gu

/**
 * Text of a path as a request's URL carries it: what the URL parser percent-encodes in a path
 * (`café` -> `caf%C3%A9`; controls, space, `"`, `<`, `>`, `^`, `` ` ``, `{`, `}`) encoded, the
 * rest (`%XX` included) as written. A lone surrogate (JSON allows one) is U+FFFD, as there.
 */
export function encodePathText(text: string): string {
  return text.replace(ENCODED_IN_PATHS, (char) => encodeURIComponent(/^[\ud800-\udfff]$/.test(char) ? '\uFFFD' : char))
}

/**
 * Normalises a route key as a request path is: written as the URL parser writes a path
 * (`café/menu` is `caf%C3%A9/menu`, what a request for it carries), then as `normalizePath`.
 */
export function normalizeKey(key: string): string {
  return normalizePath(encodePathText(key))
}

/** Normalises a route key or request path for lookup: no leading or trailing slash, lower case. */
export function normalizePath(path: string): string {
  let start = 0
  let end = path.length
  while (start < end && path.charCodeAt(start) === 47) start++
  while (end > start && path.charCodeAt(end - 1) === 47) end--
  return path.slice(start, end).toLowerCase()
}

function headersOf(object: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const key of ['responseHeader', 'responseHeaders']) {
    const value = object[key]
    if (!isObject(value)) continue
    for (const [name, headerValue] of Object.entries(value)) {
      const lower = name.toLowerCase()
      if (lower === 'transfer-encoding' || lower === 'connection' || lower === 'keep-alive') continue
      headers[lower] = String(headerValue)
    }
  }
  return headers
}

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)

/** The `stream` of an object as compiled, when it has a usable one. */
function streamOf(object: Record<string, unknown>): ResponseSpec['stream'] {
  const stream = object.stream
  if (isObject(stream) && (stream.by === 'line' || typeof stream.by === 'number')) return { by: stream.by, delay: typeof stream.delay === 'number' ? stream.delay : 0 }
  return undefined
}

/** The response fields of one object; fields it lacks are left out (not undefined). */
function responseOf(object: Record<string, unknown>): ResponseSpec {
  const spec: ResponseSpec = { headers: headersOf(object) }
  const file = object.file as TaggedFile | undefined
  if (file && typeof file === 'object' && FILE_TAG in file) spec.file = file.ref
  if (typeof object.url === 'string') spec.url = object.url
  if (typeof object.status === 'number') spec.status = object.status
  if (typeof object.latency === 'number') spec.latency = object.latency
  if (isFaultName(object.fault)) spec.fault = object.fault
  const stream = streamOf(object)
  if (stream) spec.stream = stream
  const events = object.events as TaggedFile | unknown[] | undefined
  if (Array.isArray(events)) spec.events = { list: events }
  else if (events && typeof events === 'object' && FILE_TAG in events) spec.events = { file: events.ref }
  return spec
}


function compileParams(params: unknown): ParamMatcher[] {
  if (!isObject(params)) return []
  return Object.entries(params).map(([key, condition]) => ({
    ...compileCondition(key, condition as ParamCondition),
    tokens: parsePath(key),
  }))
}

const OPERATION_HIT = Object.freeze({ hits: 1, misses: 0 })

/**
 * An entry's `operation` as the first of its params: the request's operation equals it (a hit)
 * or the entry is out, also for a request that is not GraphQL or whose document names none.
 */
function operationCondition(operation: string): ParamMatcher {
  return {
    kind: 'param',
    key: OPERATION_PARAM,
    tokens: [],
    expected: JSON.stringify(operation),
    literal: operation,
    score: (value) => (value === operation ? OPERATION_HIT : null),
    explain: (value) => (value === undefined ? `no GraphQL operation name, expected operation "${operation}"` : `operation is ${preview(value)}, expected "${operation}"`),
  }
}

function compileHeaders(headers: unknown): Condition[] {
  if (!isObject(headers)) return []
  return Object.entries(headers).map(([name, condition]) => {
    const compiled = compileCondition(name.toLowerCase(), typeof condition === 'object' ? (condition as ParamCondition) : String(condition), 'header')
    // Header values are matched exactly (or by pattern), never as a repeated list.
    if (typeof condition === 'object' && condition !== null) {
      const regex = compilePattern(condition as PatternCondition)
      return { ...compiled, score: (v: unknown) => (v === undefined ? { hits: 0, misses: 1 } : regex.test(String(v)) ? { hits: 1, misses: 0 } : null) }
    }
    return compiled
  })
}

function compileMethod(routeKey: string, route: Record<string, unknown>, method: string): CompiledMethod | undefined {
  const value = route[method]
  const routeSpec = responseOf(route)
  let defaultSpec: ResponseSpec | undefined = answersAlone(route) ? routeSpec : undefined
  if (value && typeof value === 'object' && FILE_TAG in value) {
    defaultSpec = overlay(routeSpec, { headers: {}, file: (value as TaggedFile).ref })
  }
  const conditionals: Candidate[] = []
  for (const { entry, path, index } of entriesOf(value, [routeKey, method])) {
    // A method's file name is tagged (an object): never an entry.
    if (!isObject(entry)) continue
    const pointer = toPointer(path)
    const label = index === undefined ? method : `${method}[${index}]`
    if (!isConditional(entry)) {
      defaultSpec = overlay(defaultSpec ?? routeSpec, responseOf(entry))
      continue
    }
    const own = responseOf(entry)
    const response: ResponseSpec = { ...own }
    if (own.latency === undefined && routeSpec.latency !== undefined) response.latency = routeSpec.latency
    let sequence: SequenceStep[] | undefined
    if (Array.isArray(entry.response)) {
      sequence = entry.response.filter(isObject).map((item) => {
        const spec = overlay(response, responseOf(item))
        return { ...spec, repeat: repeatOf(item) }
      })
    }
    const operation = typeof entry.operation === 'string' ? entry.operation : undefined
    const params = compileParams(entry.params)
    if (operation !== undefined) params.unshift(operationCondition(operation))
    conditionals.push({
      label,
      pointer,
      conditional: true,
      response,
      params,
      operation,
      headers: compileHeaders(entry.headers),
      written: { params: entry.params, headers: entry.headers },
      sequence,
      repeats: sequence?.map((step) => step.repeat),
    })
  }
  if (!defaultSpec && conditionals.length === 0) return undefined
  return {
    default: defaultSpec && {
      label: 'default',
      pointer: toPointer(method in route ? [routeKey, method] : [routeKey]),
      conditional: false,
      response: defaultSpec,
      params: [],
      headers: [],
    },
    conditionals,
    index: indexLiterals(conditionals),
    graphql: conditionals.some((candidate) => candidate.operation !== undefined),
    readsHeaders: conditionals.some((candidate) => candidate.headers.length > 0),
  }
}

/**
 * The path a route key answers, written so that keys of one path have one shape: normalised,
 * escaped segments unescaped, every parameter the same (`v1/users/:id` and `v1/users/:userId`
 * are both `v1/users/\0`; a NUL never stands in a normalised key, which encodes it).
 */
export function pathShape(key: string): string {
  return normalizeKey(key)
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? '\0' : unescapeSegment(segment)))
    .join('/')
}

/**
 * Where a route was written, to decide between keys of one path (`pathShape`): the later routes
 * source wins (local routes over plugins, an override over what it overrides); within one
 * source, the key written first wins, as it did in the old server (Express tries routes in the
 * order they were registered). The load warns about two such keys in one file (validate-routes.ts).
 */
interface Rank {
  readonly source: number
  readonly position: number
}

function outranks(rank: Rank, other: Rank | undefined): boolean {
  return other === undefined || rank.source > other.source || (rank.source === other.source && rank.position < other.position)
}

interface Ranked {
  route: CompiledRoute
  rank: Rank
}

interface TrieNode {
  literal: Map<string, TrieNode>
  param?: { name: string; node: TrieNode }
  wildcard?: Ranked
  route?: Ranked
}

const newNode = (): TrieNode => ({ literal: new Map() })

function insert(root: TrieNode, route: CompiledRoute, rank: Rank): void {
  const segments = normalizeKey(route.key).split('/').filter(Boolean)
  let node = root
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (segment === '*' && i === segments.length - 1) {
      if (outranks(rank, node.wildcard?.rank)) node.wildcard = { route, rank }
      return
    }
    if (segment.startsWith(':')) {
      node.param ??= { name: route.key.split('/').filter(Boolean)[i]!.slice(1), node: newNode() }
      node = node.param.node
    } else {
      const literal = unescapeSegment(segment)
      let next = node.literal.get(literal)
      if (!next) node.literal.set(literal, (next = newNode()))
      node = next
    }
  }
  if (outranks(rank, node.route?.rank)) node.route = { route, rank }
}

/**
 * A key segment that starts with a backslash is literal: `\:name` (JSON `"files/\\:name"`) is
 * the path segment `:name`, `\*` the segment `*`. Request paths never hold a backslash (the URL parser turns it into a
 * slash), so the escape cannot shadow a real path; `record` writes recorded paths this way.
 */
export function unescapeSegment(segment: string): string {
  return segment.startsWith('\\') ? segment.slice(1) : segment
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function find(node: TrieNode, segments: string[], index: number, params: Record<string, string>): CompiledRoute | undefined {
  if (index === segments.length) return (node.route ?? node.wildcard)?.route
  const segment = segments[index]!
  const literal = node.literal.get(segment)
  if (literal) {
    const found = find(literal, segments, index + 1, params)
    if (found) return found
  }
  if (node.param) {
    const found = find(node.param.node, segments, index + 1, params)
    if (found) {
      params[node.param.name] = safeDecode(segment)
      return found
    }
  }
  return node.wildcard?.route
}

/** One routes file's value for a route key: merged with the other files' only when first used. */
interface Contribution {
  source: RouteSource
  route: Record<string, unknown>
}

/** Latency, response headers and a `stream` an override lays over every answer of a route it does not replace. */
interface ResponseLayer {
  latency?: number
  stream?: ResponseSpec['stream']
  headers: Record<string, string>
}

/** Where one method of a route is compiled from: a route object, and the layers laid over its answers. */
interface MethodSource {
  route: Record<string, unknown>
  layers: readonly ResponseLayer[]
}

/**
 * A route after its routes files and overrides: the routes files merged (`view`, also what admin
 * views show), and, once an override touched it, where each method now comes from.
 */
interface ResolvedRoute {
  view: Record<string, unknown>
  methods?: Map<string, MethodSource>
}

const LAYER_KEYS = new Set(['latency', 'stream', 'responseHeader', 'responseHeaders'])

/**
 * Applies one override to a route (docs/behaviour.md, "Overrides"): it replaces, never merges.
 * A route-level `file`/`url`/`status`/`fault` replaces every method; method keys replace those methods
 * whole (default, entries, sequences: nothing of the route's own is inherited); an override of
 * only `latency`, response headers or `stream` is laid over the route's own answers.
 */
function applyOverride(resolved: ResolvedRoute, override: Record<string, unknown>): void {
  const methods = resolved.methods ?? new Map(METHOD_KEYS.map((method) => [method, { route: resolved.view, layers: [] }] as [string, MethodSource]))
  resolved.methods = methods
  // `websocket` steps are replaced whole, like a method; an override without them keeps the route's.
  const websocket = hasOwn(override, 'websocket') ? override.websocket : resolved.view.websocket
  // A route-level `file`, `url`, `status` or `fault` answers every method.
  if (answersAlone(override)) {
    for (const method of METHOD_KEYS) methods.set(method, { route: override, layers: [] })
    resolved.view = websocket === undefined ? override : Object.assign(Object.create(null), override, { websocket })
    return
  }
  if (hasOwn(override, 'websocket')) resolved.view = Object.assign(Object.create(null), resolved.view, { websocket })
  const replaced = replacedMethods(override)
  if (replaced.length > 0) {
    const view = Object.assign(Object.create(null), resolved.view) as Record<string, unknown>
    for (const method of replaced) {
      methods.set(method, { route: override, layers: [] })
      view[method] = override[method]
    }
    resolved.view = view
    return
  }
  // What is left is laid over the route's answers (`laidOver`), when it holds anything to lay.
  if (!Object.keys(override).some((key) => LAYER_KEYS.has(key))) return
  const layer: ResponseLayer = { headers: headersOf(override) }
  if (typeof override.latency === 'number') layer.latency = override.latency
  const stream = streamOf(override)
  if (stream) layer.stream = stream
  for (const [method, source] of methods) methods.set(method, { route: source.route, layers: [...source.layers, layer] })
  const view = Object.assign(Object.create(null), resolved.view) as Record<string, unknown>
  for (const key of LAYER_KEYS) if (hasOwn(override, key)) view[key] = key !== 'stream' && isObject(view[key]) && isObject(override[key]) ? { ...view[key], ...override[key] } : override[key]
  resolved.view = view
}

/** Lays latency, headers and `stream` over one answer: the layer's latency and stream win, headers merge by name. */
function layered(spec: ResponseSpec, layers: readonly ResponseLayer[]): ResponseSpec {
  let result = spec
  for (const layer of layers) {
    result = { ...result, headers: { ...result.headers, ...layer.headers } }
    if (layer.latency !== undefined) result.latency = layer.latency
    if (layer.stream !== undefined) result.stream = layer.stream
  }
  return result
}

function layeredMethod(compiled: CompiledMethod, layers: readonly ResponseLayer[]): CompiledMethod {
  if (layers.length === 0) return compiled
  const candidate = (c: Candidate): Candidate => ({
    ...c,
    response: layered(c.response, layers),
    sequence: c.sequence?.map((step) => ({ ...layered(step, layers), repeat: step.repeat })),
  })
  // Layers change answers, never conditions: the index and the GraphQL reading still hold.
  return { ...compiled, default: compiled.default && candidate(compiled.default), conditionals: compiled.conditionals.map(candidate) }
}

/** A route whose methods are compiled on first use: loading costs the same for 10 or 5,000 routes. */
class LazyRoute implements CompiledRoute {
  #methods: Map<string, CompiledMethod> | undefined
  #websocket: CompiledSocket | null | undefined
  constructor(
    readonly key: string,
    private readonly resolved: () => ResolvedRoute,
  ) {}

  get methods(): Map<string, CompiledMethod> {
    return (this.#methods ??= compileMethods(this.key, this.resolved()))
  }

  get websocket(): CompiledSocket | undefined {
    if (this.#websocket === undefined) {
      const tagged = this.resolved().view.websocket as TaggedSteps | undefined
      this.#websocket = tagged && SOCKET_TAG in tagged ? compileSocket(tagged.steps, tagged.files, [this.key, 'websocket']) : null
    }
    return this.#websocket ?? undefined
  }

  get unknownKeys(): string[] {
    const resolved = this.resolved()
    const routes = new Set([resolved.view, ...[...(resolved.methods?.values() ?? [])].map((source) => source.route)])
    return [...new Set([...routes].flatMap((route) => Object.keys(route).filter((key) => !ROUTE_KEYS.has(key))))]
  }
}

function compileMethods(key: string, resolved: ResolvedRoute): Map<string, CompiledMethod> {
  const methods = new Map<string, CompiledMethod>()
  for (const method of METHOD_KEYS) {
    const source = resolved.methods?.get(method) ?? { route: resolved.view, layers: [] }
    // HEAD answers as GET would unless the route has a head key of its own (see the engine).
    if (method === 'head' && !hasOwn(source.route, 'head')) continue
    const compiled = compileMethod(key, source.route, method)
    if (compiled) methods.set(method.toUpperCase(), layeredMethod(compiled, source.layers))
  }
  return methods
}

/**
 * Merges routes files in order (later files replace earlier keys deeply; arrays are replaced;
 * every `file` stays bound to the data folder of the file that named it), applies the override
 * layers after them (which replace what they answer, `applyOverride`) and compiles the
 * result into a route table. Loading only indexes the route keys; a route's entries, matchers
 * and regular expressions are built the first time a request reaches it, once.
 *
 * @example
 * const table = compileRoutes([{ file: 'routes.json', routes, files: memoryFiles({ 'users.json': '[]' }) }])
 * table.lookup('/v1/users')?.route.key // 'v1/users'
 */
export function compileRoutes(sources: readonly RouteSource[]): RouteTable {
  // Route key as written last -> every file's value for it, in merge order. Keys that differ
  // only by slashes or case are the same route; the last spelling names it.
  const byKey = new Map<string, Contribution[]>()
  const keyOf = new Map<string, string>()
  /** Per normalised key: the last source that wrote it, and where it stands in that source (`Rank`). */
  const rankOf = new Map<string, Rank>()
  for (const [sourceIndex, source] of sources.entries()) {
    const routes = source.routes as Record<string, unknown>
    for (const [position, key] of Object.keys(routes).entries()) {
      const route = routes[key]
      if (!isObject(route) || key === SCHEMA_KEY) continue
      const normal = normalizeKey(key)
      if (rankOf.get(normal)?.source !== sourceIndex) rankOf.set(normal, { source: sourceIndex, position })
      const existingKey = keyOf.get(normal)
      let contributions = existingKey === undefined ? undefined : byKey.get(existingKey)
      // A new spelling takes over the route (and moves it last, as a re-added key would).
      if (existingKey !== undefined && existingKey !== key) byKey.delete(existingKey)
      contributions ??= []
      if (existingKey !== key) byKey.set(key, contributions)
      keyOf.set(normal, key)
      contributions.push({ source, route })
    }
  }
  const resolvedRoutes = new Map<string, ResolvedRoute>()
  const resolvedRoute = (key: string): ResolvedRoute => {
    let resolved = resolvedRoutes.get(key)
    if (!resolved) {
      for (const { source, route } of byKey.get(key)!) {
        const copy = tagRoute(source, route)
        if (!resolved) resolved = { view: copy }
        else if (source.override) applyOverride(resolved, copy)
        // The copy is ours: merging into it in place is safe (merge copies what it descends into).
        else resolved.view = merge(resolved.view, copy)
      }
      resolvedRoutes.set(key, resolved!)
    }
    return resolved!
  }

  const routes: CompiledRoute[] = []
  const root = newNode()
  /** Routes without parameters or `*`, by normalised path: one Map lookup per request. */
  const literal = new Map<string, RouteMatch>()
  const literalRanks = new Map<string, Rank>()
  const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>
  for (const key of byKey.keys()) {
    const compiled = new LazyRoute(key, () => resolvedRoute(key))
    routes.push(compiled)
    const normal = normalizeKey(key)
    const rank = rankOf.get(normal)!
    // Literal routes are found in the Map first, so only routes with parameters need the trie.
    if (/(^|\/)[:*]/.test(normal)) insert(root, compiled, rank)
    else {
      const path = normal.split('/').filter(Boolean).map(unescapeSegment).join('/')
      if (outranks(rank, literalRanks.get(path))) {
        literal.set(path, { route: compiled, params: NO_PARAMS })
        literalRanks.set(path, rank)
      }
    }
  }
  let config: RoutesConfig | undefined
  return {
    routes,
    /** The merged routes as configured, built on first use (admin views only). */
    get config() {
      if (!config) {
        const merged = Object.create(null) as Record<string, unknown>
        for (const key of byKey.keys()) merged[key] = resolvedRoute(key).view
        config = JSON.parse(
          JSON.stringify(merged, (_key, value) =>
            value && typeof value === 'object' && FILE_TAG in value ? (value as TaggedFile).ref.name : value && typeof value === 'object' && SOCKET_TAG in value ? (value as TaggedSteps).steps : value,
          ),
        ) as RoutesConfig
      }
      return config!
    },
    lookup(pathname) {
      const found = lookupExact(pathname)
      if (found) return found
      // The suffix of the last segment, also before a trailing slash (`/v1/users.json/`), as the old server's Express read it.
      let end = pathname.length
      while (end > 0 && pathname.charCodeAt(end - 1) === 47) end--
      const slash = pathname.lastIndexOf('/', end - 1)
      const dot = pathname.lastIndexOf('.', end - 1)
      if (dot <= slash + 1) return undefined
      return lookupExact(pathname.slice(0, dot))
    },
  }

  function lookupExact(pathname: string): RouteMatch | undefined {
    const normal = normalizePath(pathname)
    const hit = literal.get(normal)
    if (hit) return hit
    const segments = normal.split('/').filter(Boolean)
    if (segments.length > 0 && literal.size > 0) {
      const again = literal.get(segments.join('/'))
      if (again) return again
    }
    const params: Record<string, string> = {}
    const route = find(root, segments, 0, params)
    return route ? { route, params } : undefined
  }
}
