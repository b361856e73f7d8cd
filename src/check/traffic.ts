/**
 * The `validate` option's checker (docs/behaviour.md, "Traffic checked against a contract"): each
 * exchange a route answers, checked against an OpenAPI document at run time (the operation, its
 * parameters, the request body, the status, the content type and the response body), and the
 * document's operations counted as they are answered (coverage). It reads the document the way
 * `mockyard check --openapi` does (check-openapi.ts) and is loaded only when `validate` is set
 * (contract.ts).
 */
import type { ErrorObject, ValidateFunction } from 'ajv'
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { normalizePath } from '../core/compile-routes.js'
import type { MockResponse } from '../core/build-response.js'
import type { Coverage, Exchange, TrafficCheck, Violation } from '../harness/traffic-check.js'
import { applying, basePathsOf, deref, patternIndex, describeError, fit, isJsonType, loadOpenApi, mediaMatches, operationsOf, reportedErrors, responseFor, type OpenApiDocument, type Operation } from './check-openapi.js'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** An operation with what a request needs to be checked against it, worked out once. */
interface Known {
  operation: Operation
  index: number
  /** `GET /users/{id}`. */
  name: string
  /** The operation's pointer in the bundled document (`/paths/~1users/get`). */
  pointer: string
  /** The template's segments as written (`users`, `{id}`). */
  template: string[]
  parameters: Parameter[]
}

interface Parameter {
  name: string
  in: 'query' | 'path' | 'header'
  required: boolean
  /** The parameter's schema (dereferenced) and its pointer, when it has one. */
  schema: Json | undefined
  schemaPointer: string | undefined
  /** The types the schema's values can take, through `$ref`, `allOf`, `anyOf` and `oneOf` (empty: any). */
  types: Set<string>
  /** The names of the properties an object value can have (a `form` object with `explode` spreads them over the query). */
  properties: string[]
  /** The types each property's values can take, and its items' for an array (empty: any), to read its text as the schema wants. */
  propertyTypes: Map<string, { types: Set<string>; items: Set<string> }>
  /** `style`, with OpenAPI's default for the place (`form` in the query, else `simple`), and `explode`. */
  style: string
  explode: boolean
  /** What separates an array's items in one value (`a=1,2`, `a=1|2`, `a=1 2`, `.1.2`); undefined: repeated values only. */
  separator: string | undefined
}

/** The operation a request reaches, or why none does. */
type Found = { known: Known; segments: string[]; pattern: number } | { problem: string }

/** How many request paths the operation lookup remembers (the same paths come again and again). */
const LOOKUP_LIMIT = 1000

/**
 * Headers the document cannot declare as parameters (OpenAPI: `Accept`, `Content-Type` and
 * `Authorization` are described elsewhere, and are ignored as header parameters).
 */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

/**
 * Loads the document at `path` and returns its checker. Throws an Error saying why when the file
 * is not a usable OpenAPI 3.0 or 3.1 document (a `DocumentError` for what the reader refused).
 *
 * @example
 * const check = await loadTrafficCheck('/abs/api/openapi.yaml', (file) => displayPath(file, process.cwd()))
 * check.check({ method: 'GET', url: 'http://api.test/v1/users', headers, body: null, response })
 */
export async function loadTrafficCheck(path: string, display: (file: string) => string): Promise<TrafficCheck> {
  const api = await loadOpenApi(path, display, { regExp: await linearRegExp(), reader: 'the validate option' })
  return createTrafficCheck(api)
}

/**
 * The engine of the schemas' `pattern`s at run time: RE2 (re2js), whose matching time is linear
 * in the text, so a pattern such as `^(a+)+$` against `aaaa…!` cannot hold a request, and the
 * server, for good (`mockyard check` runs patterns in a thread it can stop; a request cannot
 * wait for one). A pattern RE2 cannot read (a lookaround, a backreference) runs with
 * JavaScript's own engine.
 */
async function linearRegExp(): Promise<RegExpEngine> {
  const { RE2JS } = await import('re2js')
  const engine = (pattern: string, flags: string) => {
    try {
      const compiled = RE2JS.compile(pattern)
      // ajv keys compiled patterns by their text.
      return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/re2` }
    } catch {
      return new RegExp(pattern, flags)
    }
  }
  // ajv names the engine in code it generates for standalone use (never here).
  return Object.assign(engine, { code: 'mockyardLinearRegExp' })
}

/** The checker over a loaded document. */
export function createTrafficCheck(api: OpenApiDocument): TrafficCheck {
  const { doc } = api
  /** Each template segment's reader of a path parameter, compiled on first use. */
  const segmentReaders = new Map<string, SegmentReader>()
  const segmentReader = (template: string, name: string): SegmentReader => {
    const key = `${template}\0${name}`
    let reader = segmentReaders.get(key)
    if (reader === undefined) segmentReaders.set(key, (reader = compileSegmentReader(template, name)))
    return reader
  }
  const known: Known[] = operationsOf(doc).map((operation, index) => ({
    operation,
    index,
    name: operation.name,
    pointer: api.pointerOf(operation.operation) ?? `/paths/${operation.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${operation.method}`,
    template: operation.path.split('/').filter(Boolean),
    parameters: parametersOf(api, operation),
  }))
  const byOperation = new Map(known.map((entry) => [entry.operation, entry]))
  const candidates = patternIndex(known.map((entry) => entry.operation))
  const answered = new Array<number>(known.length).fill(0)
  const lookups = new Map<string, Found>()
  /** Per data file's bytes (the engine serves the same cached bytes each time) and schema: its violations. */
  const checkedBodies = new WeakMap<Uint8Array, Map<string, Violation[]>>()
  const where = (pointer: string) => api.locate(pointer)

  /** The operation a method and path reach: the best fit of the document's paths (as `mockyard check` fits a route). */
  function find(method: string, pathname: string): Found {
    const key = `${method} ${pathname}`
    let found = lookups.get(key)
    if (found !== undefined) return found
    const segments = normalizePath(pathname).split('/').filter(Boolean)
    const atPath = new Set<string>()
    const fitting = candidates(segments).sort((a, b) => byOperation.get(a.operation)!.index - byOperation.get(b.operation)!.index || a.pattern - b.pattern)
    const bestFor = (method: string) => {
      let best: { known: Known; score: number; pattern: number } | undefined
      for (const { operation, pattern: index } of fitting) {
        const score = fit(segments, operation.patterns[index]!)
        if (score === undefined) continue
        atPath.add(operation.method.toUpperCase())
        if (operation.method === method && (!best || score > best.score)) best = { known: byOperation.get(operation)!, score, pattern: index }
      }
      return best
    }
    // HEAD is answered as GET where the document has no HEAD of its own.
    const best = bestFor(method.toLowerCase()) ?? (method === 'HEAD' ? bestFor('get') : undefined)
    if (best) found = { known: best.known, segments: pathname.split('/').filter(Boolean), pattern: best.pattern }
    else if (atPath.size > 0) found = { problem: `${method} ${pathname} is not an operation of ${api.label} (the path has ${[...atPath].join(', ')})` }
    else found = { problem: `no path of ${api.label} matches ${method} ${pathname}${baseHint(doc)}` }
    if (lookups.size >= LOOKUP_LIMIT) lookups.clear()
    lookups.set(key, found)
    return found
  }

  /** Validates a value against the schema at a pointer; each error as a violation. */
  function validate(value: unknown, schemaPointer: string, side: Violation['where'], prefix: string, describe: (error: ErrorObject) => string): Violation[] {
    const validator: ValidateFunction = api.validatorAt(schemaPointer)
    if (validator(value)) return []
    return reportedErrors(api, validator.errors, side, schemaPointer).map((error) => {
      const parent = api.pointerOf(error.parentSchema)
      return {
        where: side,
        pointer: `${prefix}${error.instancePath}`,
        message: describe(error),
        schema: where(parent !== undefined ? `${parent}/${error.keyword}` : error.schemaPath.replace(/^#/, schemaPointer)),
      }
    })
  }

  function checkParameters(known: Known, segments: string[], pattern: number, url: URL, headers: Exchange['headers']): Violation[] {
    const violations: Violation[] = []
    const base = known.operation.patterns[pattern]!.length - known.template.length
    for (const parameter of known.parameters) {
      let raw: string | string[] | undefined
      /** An object spread over the query (`filter[role]=admin`, `lat=1&lng=2`): its properties' texts, as sent. */
      let spread: Map<string, string[]> | undefined
      if (parameter.in === 'path') {
        const at = known.template.findIndex((segment) => templateNames(segment).includes(parameter.name))
        const segment = at >= 0 ? segments[base + at] : undefined
        const value = segment === undefined ? undefined : segmentReader(known.template[at]!, parameter.name)(segment)
        raw = value === undefined ? undefined : decodeSegment(value)
      } else if (parameter.in === 'query') {
        const values = url.searchParams.getAll(parameter.name)
        raw = values.length === 0 ? undefined : values
        if (raw === undefined && parameter.types.has('object')) spread = objectInQuery(parameter, url.searchParams)
      } else {
        raw = headers.get(parameter.name) ?? undefined
      }
      const pointer = `/${parameter.in}/${parameter.name.replace(/~/g, '~0').replace(/\//g, '~1')}`
      const what = `the ${parameter.in === 'header' ? 'header' : `${parameter.in} parameter`} "${parameter.name}"`
      if (raw === undefined && spread === undefined) {
        if (parameter.required) violations.push({ where: 'request', pointer, message: `${what} is required by ${known.name}, and the request has none`, schema: where(`${known.pointer}/parameters`) })
        continue
      }
      if (parameter.schema === undefined || parameter.schemaPointer === undefined) continue
      // Each way the text can be read as a value of the schema, best guess first: the request is
      // valid when one of them is (a false violation would fail a user's test); else the errors of the first.
      let first: Violation[] | undefined
      for (const value of raw !== undefined ? readings(doc, parameter, raw) : objectReadings(parameter, spread!)) {
        const found = validate(value, parameter.schemaPointer, 'request', pointer, (error) => `${what} ${describeError(error)} (${known.name})`)
        if (found.length === 0) {
          first = undefined
          break
        }
        first ??= found
      }
      if (first) violations.push(...first)
    }
    return violations
  }

  function checkRequestBody(known: Known, exchange: Exchange): Violation[] {
    const requestBody = deref(doc, known.operation.operation.requestBody)
    if (!isObject(requestBody)) return []
    const bodyPointer = api.pointerOf(requestBody) ?? `${known.pointer}/requestBody`
    const body = exchange.body
    if (body === null || body.byteLength === 0) {
      return requestBody.required === true ? [{ where: 'request', pointer: '', message: `${known.name} requires a request body, and the request has none`, schema: where(`${bodyPointer}/required`) }] : []
    }
    const content = isObject(requestBody.content) ? requestBody.content : {}
    const types = Object.keys(content)
    if (types.length === 0) return []
    const type = exchange.headers.get('content-type') ?? ''
    const media = types.find((declared) => mediaMatches(declared, type))
    if (media === undefined) {
      const sent = type === '' ? 'without a content type' : `as ${type.split(';')[0]}`
      return [{ where: 'request', pointer: '', message: `the request body is sent ${sent}, which ${known.name} does not accept (it declares ${types.join(', ')})`, schema: where(`${bodyPointer}/content`) }]
    }
    const mediaObject = deref(doc, content[media])
    if (!isJsonType(type) || !isObject(mediaObject) || mediaObject.schema === undefined) return []
    const value = parseJson(body)
    if (value === NOT_JSON) return [{ where: 'request', pointer: '', message: `the request body is not valid JSON, and ${known.name} takes ${media}`, schema: where(`${bodyPointer}/content`) }]
    const schemaPointer = `${api.pointerOf(content[media]) ?? api.pointerOf(mediaObject)}/schema`
    return validate(value, schemaPointer, 'request', '', (error) => `${describeError(error)} (request body of ${known.name})`)
  }

  function checkResponse(known: Known, response: MockResponse): Violation[] {
    const status = response.status
    // A fault (a dropped connection) sends no status: nothing to check.
    if (typeof status !== 'number' || status === 0) return []
    const responses = isObject(known.operation.operation.responses) ? known.operation.operation.responses : {}
    const found = responseFor(doc, known.operation.operation, status)
    if (!found) {
      const statuses = Object.keys(responses).join(', ')
      return [{ where: 'response', pointer: '', message: `${known.name} declares no response for status ${status} (it declares ${statuses || 'none'})`, schema: where(`${known.pointer}/responses`) }]
    }
    const responsePointer = api.pointerOf(found.response) ?? `${known.pointer}/responses/${found.key}`
    const plain = isPlainBody(response)
    const bodyLength = plain ? (response.body === null ? 0 : typeof response.body === 'string' ? response.body.length : response.body.byteLength) : -1
    // A plain empty body has no content type to agree with (a 204, a HEAD, an empty file).
    if (bodyLength === 0) return []
    const content = isObject(found.response.content) ? found.response.content : {}
    const types = Object.keys(content)
    const type = response.headers['content-type'] ?? ''
    if (types.length === 0) {
      return [{ where: 'response', pointer: '', message: `${known.name} declares no body for status ${status} (response ${found.key}), but the answer has one${type ? ` (${type.split(';')[0]})` : ''}`, schema: where(responsePointer) }]
    }
    const media = types.find((declared) => mediaMatches(declared, type))
    if (media === undefined) {
      const sent = type === '' ? 'without a content type' : `as ${type.split(';')[0]}`
      return [{ where: 'response', pointer: '', message: `the answer is sent ${sent}, which ${known.name} does not declare for status ${status} (it declares ${types.join(', ')})`, schema: where(`${responsePointer}/content`) }]
    }
    // Streams, events and faults: the status and the content type only.
    if (!plain) return []
    const mediaObject = deref(doc, content[media])
    if (!isJsonType(type) || !isObject(mediaObject) || mediaObject.schema === undefined) return []
    const schemaPointer = `${api.pointerOf(content[media]) ?? api.pointerOf(mediaObject)}/schema`
    const body = response.body!
    // A data file's bytes are the engine's cached ones: checked once per schema and operation
    // (the messages name the operation and its response: two operations may share one schema).
    const checkKey = `${schemaPointer} ${known.name} ${found.key}`
    const cached = typeof body === 'string' ? undefined : checkedBodies.get(body)?.get(checkKey)
    if (cached !== undefined) return cached
    const value = parseJson(body)
    const violations =
      value === NOT_JSON
        ? [{ where: 'response' as const, pointer: '', message: `the answer's body is not valid JSON, and ${known.name} answers ${media} for status ${status}`, schema: where(`${responsePointer}/content`) }]
        : validate(value, schemaPointer, 'response', '', (error) => `${describeError(error)} (response ${found.key} of ${known.name})`)
    if (typeof body !== 'string') {
      let bySchema = checkedBodies.get(body)
      if (bySchema === undefined) checkedBodies.set(body, (bySchema = new Map()))
      bySchema.set(checkKey, violations)
    }
    return violations
  }

  return {
    document: api.label,
    check(exchange) {
      const url = new URL(exchange.url)
      const found = find(exchange.method, url.pathname)
      if ('problem' in found) return [{ where: 'request', pointer: '', message: found.problem, schema: where('/paths') }]
      answered[found.known.index]!++
      return [...checkParameters(found.known, found.segments, found.pattern, url, exchange.headers), ...checkRequestBody(found.known, exchange), ...checkResponse(found.known, exchange.response)]
    },
    count(method, url) {
      const found = find(method, new URL(url).pathname)
      if (!('problem' in found)) answered[found.known.index]!++
    },
    coverage(): Coverage {
      const operations = known.map((entry) => {
        const operationId = entry.operation.operation.operationId
        return { method: entry.operation.method.toUpperCase(), path: entry.operation.path, ...(typeof operationId === 'string' ? { operationId } : {}), answered: answered[entry.index]! }
      })
      const count = operations.filter((operation) => operation.answered > 0).length
      const never = operations.filter((operation) => operation.answered === 0)
      const lines = [`${api.label}: ${count} of ${operations.length} operations answered${never.length > 0 ? '; never answered:' : ''}`]
      for (const operation of never) lines.push(`  ${operation.method} ${operation.path}${operation.operationId ? ` (${operation.operationId})` : ''}`)
      return { document: api.label, operations, answered: count, total: operations.length, text: lines.join('\n') }
    },
  }
}

/** The parameters of an operation (the path item's, replaced by the operation's of the same name and place). */
function parametersOf(api: OpenApiDocument, operation: Operation): Parameter[] {
  const byKey = new Map<string, Parameter>()
  for (const list of [operation.pathItem.parameters, operation.operation.parameters]) {
    if (!Array.isArray(list)) continue
    for (const raw of list) {
      const parameter = deref(api.doc, raw)
      if (!isObject(parameter) || typeof parameter.name !== 'string') continue
      const place = parameter.in
      if (place !== 'query' && place !== 'path' && place !== 'header') continue
      if (place === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue
      const schema = deref(api.doc, parameter.schema)
      const schemaPointer = parameter.schema === undefined ? undefined : api.pointerOf(parameter.schema)
      const style = typeof parameter.style === 'string' ? parameter.style : place === 'query' ? 'form' : 'simple'
      // OpenAPI: `explode` defaults to true for `form`, to false for every other style.
      const explode = typeof parameter.explode === 'boolean' ? parameter.explode : style === 'form'
      const shape = isObject(schema) ? shapeOf(api.doc, schema) : { types: new Set<string>(), properties: [] }
      byKey.set(`${place} ${parameter.name}`, {
        name: parameter.name,
        in: place,
        required: place === 'path' || parameter.required === true,
        schema: isObject(schema) ? schema : undefined,
        schemaPointer,
        types: shape.types,
        properties: shape.properties,
        propertyTypes: isObject(schema) && shape.types.has('object') ? propertyTypesOf(api.doc, schema) : new Map(),
        style,
        explode,
        separator: separatorOf(style, explode),
      })
    }
  }
  return [...byKey.values()]
}

/** What separates an array's items in one value of a style (OpenAPI's "Style Values"). */
function separatorOf(style: string, explode: boolean): string | undefined {
  switch (style) {
    case 'form':
      return explode ? undefined : ','
    case 'pipeDelimited':
      return explode ? undefined : '|'
    case 'spaceDelimited':
      return explode ? undefined : ' '
    case 'label':
      return explode ? '.' : ','
    case 'matrix':
      // With explode, each item has its own `;name=` (unstyled splits them).
      return explode ? undefined : ','
    case 'deepObject':
      return undefined
    default:
      return ','
  }
}

/**
 * The types a schema's values can take and the properties an object of it can have, through
 * `$ref`s and `allOf`/`anyOf`/`oneOf` branches (`anyOf: [integer, object]`, `allOf: [$ref: Page]`);
 * without `type`, what its keywords imply (`properties`, `items`, `enum` values). No types: any.
 */
function shapeOf(doc: Json, schema: Json): { types: Set<string>; properties: string[] } {
  const types = new Set<string>()
  const properties = new Set<string>()
  for (const value of applying(doc, [schema])) {
    if (typeof value.type === 'string') types.add(value.type)
    else if (Array.isArray(value.type)) {
      for (const type of value.type) if (typeof type === 'string') types.add(type)
    } else {
      if (isObject(value.properties)) types.add('object')
      if (value.items !== undefined) types.add('array')
      for (const item of [...(Array.isArray(value.enum) ? value.enum : []), ...(value.const !== undefined ? [value.const] : [])]) {
        types.add(item === null ? 'null' : Array.isArray(item) ? 'array' : typeof item)
      }
    }
    if (isObject(value.properties)) for (const name of Object.keys(value.properties)) properties.add(name)
  }
  // An integer is read from its text as a number is.
  if (types.has('integer')) types.add('number')
  return { types, properties: [...properties] }
}

/**
 * An object parameter as its style spreads it over the query, by property, or undefined when it is
 * not there: `deepObject` as `filter[role]=admin`; `form` with `explode` (the default) as its
 * properties, `lat=1&lng=2`. A schema that names no property could be any of the query's names,
 * and a deeper `filter[a][b]` has no agreed reading: present, with no property read (nothing to
 * validate, rather than a violation reported wrongly).
 */
function objectInQuery(parameter: Parameter, query: URLSearchParams): Map<string, string[]> | undefined {
  const found = new Map<string, string[]>()
  const add = (name: string, value: string) => {
    const values = found.get(name)
    if (values) values.push(value)
    else found.set(name, [value])
  }
  if (parameter.style === 'deepObject') {
    const prefix = `${parameter.name}[`
    let present = false
    let readable = true
    for (const [key, value] of query) {
      if (!key.startsWith(prefix)) continue
      present = true
      const inner = key.slice(prefix.length, -1)
      if (!key.endsWith(']') || inner.includes('[') || inner.includes(']')) readable = false
      else add(inner, value)
    }
    return !present ? undefined : readable ? found : new Map()
  }
  if (parameter.style === 'form' && parameter.explode) {
    if (parameter.properties.length === 0) return new Map()
    for (const name of parameter.properties) for (const value of query.getAll(name)) add(name, value)
    return found.size > 0 ? found : undefined
  }
  return undefined
}

/**
 * The values an object spread over the query can stand for: each property read as its schema's
 * types want (`lat=1` a number, `open=true` a boolean, repeated values an array), then every
 * property as its text. None when its properties could not be read (`objectInQuery`).
 */
function objectReadings(parameter: Parameter, spread: Map<string, string[]>): unknown[] {
  if (spread.size === 0) return []
  const guessed: Record<string, unknown> = {}
  const texts: Record<string, unknown> = {}
  for (const [name, values] of spread) {
    const { types, items } = parameter.propertyTypes.get(name) ?? { types: new Set<string>(), items: new Set<string>() }
    const many = values.length > 1 || (types.has('array') && ![...types].some((type) => type !== 'array'))
    guessed[name] = many ? values.map((value) => scalars(value, types.has('array') ? items : types)[0]) : scalars(values[0]!, types)[0]
    texts[name] = many ? values : values[0]
  }
  return JSON.stringify(guessed) === JSON.stringify(texts) ? [guessed] : [guessed, texts]
}

/** The types of each property an object schema names (and of its items, for an array), through `$ref`s and its branches. */
function propertyTypesOf(doc: Json, schema: Json): Map<string, { types: Set<string>; items: Set<string> }> {
  const byName = new Map<string, { types: Set<string>; items: Set<string> }>()
  for (const value of applying(doc, [schema])) {
    if (!isObject(value.properties)) continue
    for (const [name, raw] of Object.entries(value.properties)) {
      const property = deref(doc, raw)
      if (!isObject(property)) continue
      const shape = byName.get(name) ?? { types: new Set<string>(), items: new Set<string>() }
      for (const type of shapeOf(doc, property).types) shape.types.add(type)
      const items = firstItems(doc, property)
      if (items) for (const type of shapeOf(doc, items).types) shape.items.add(type)
      byName.set(name, shape)
    }
  }
  return byName
}

/**
 * The values a parameter's text can stand for, by its schema's types, best guess first: a number
 * or a boolean from its text (text that is neither stays text, and fails the schema), an array
 * from repeated values or from one value split by its style (`,`, `|`, a space, `.` for a label
 * with explode), the text itself last. Path parameters in `label` (`.red`) and `matrix`
 * (`;id=5`) style lose their prefix first. None for a schema of objects only: an object's
 * forms on the wire (`a=k,v`, `k=v` spread) are not read, and not validated rather than
 * reported wrongly.
 */
function readings(doc: Json, parameter: Parameter, raw: string | string[]): unknown[] {
  let values = Array.isArray(raw) ? raw : [raw]
  if (parameter.in === 'path' && values.length === 1) values = unstyled(parameter, values[0]!)
  const { types } = parameter
  const out: unknown[] = []
  const arrays = () => {
    let items = values
    if (parameter.separator !== undefined && items.length === 1) items = items[0] === '' ? [] : items[0]!.split(parameter.separator)
    const itemSchema = parameter.schema ? firstItems(doc, parameter.schema) : undefined
    const itemTypes = itemSchema ? shapeOf(doc, itemSchema).types : new Set<string>()
    const guessed = items.map((item) => scalars(item, itemTypes)[0])
    out.push(guessed)
    if (guessed.some((item, i) => item !== items[i])) out.push(items)
  }
  const scalarTypes = types.size === 0 || [...types].some((type) => type !== 'array' && type !== 'object')
  // Repeated values, or a schema of arrays only: the array first.
  if (types.has('array') && (values.length > 1 || !scalarTypes)) arrays()
  if (scalarTypes) out.push(...scalars(values[values.length - 1]!, types))
  if (types.has('array') && values.length === 1 && scalarTypes) arrays()
  return out
}

/** A text as each scalar its types allow, a number or a boolean first, the text itself last. */
function scalars(text: string, types: Set<string>): unknown[] {
  const out: unknown[] = []
  if (types.has('number') && text.trim() !== '' && Number.isFinite(Number(text))) out.push(Number(text))
  if (types.has('boolean') && (text === 'true' || text === 'false')) out.push(text === 'true')
  if (types.has('null') && text === '') out.push(null)
  out.push(text)
  return out
}

/** The `items` schema of the first array a schema allows (through `$ref`s and its branches). */
function firstItems(doc: Json, schema: Json, depth = 0): Json | undefined {
  if (depth > 20) return undefined
  const items = deref(doc, schema.items)
  if (isObject(items)) return items
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    if (!Array.isArray(schema[key])) continue
    for (const raw of schema[key] as unknown[]) {
      const branch = deref(doc, raw)
      const found = isObject(branch) ? firstItems(doc, branch, depth + 1) : undefined
      if (found) return found
    }
  }
  return undefined
}

/**
 * A path parameter's text without the prefix of its style, an exploded array split: `label`
 * `.red` is `red`; `matrix` `;id=5` is `5` (`;id=1;id=2`, with explode, two items). Text without
 * the prefix is read as it is.
 */
function unstyled(parameter: Parameter, text: string): string[] {
  if (parameter.style === 'label') return [text.startsWith('.') ? text.slice(1) : text]
  if (parameter.style !== 'matrix') return [text]
  const prefix = `;${parameter.name}`
  if (text === prefix) return ['']
  if (!text.startsWith(`${prefix}=`)) return [text]
  const rest = text.slice(prefix.length + 1)
  return parameter.explode ? rest.split(`${prefix}=`) : [rest]
}

/**
 * The names of the templates of a path segment, without RFC 6570's operator and explode mark,
 * which documents write for `label` and `matrix` parameters: `{;coords}`, `{.color}`, `{id*}`.
 */
function templateNames(segment: string): string[] {
  return [...segment.matchAll(/\{([^{}]*)\}/g)].map((match) => templateName(match[1]!))
}

const templateName = (inner: string) => inner.replace(/^[+#./;?&]/, '').replace(/\*$/, '')

/** A path parameter's value in a request's segment (`segmentReader`). */
type SegmentReader = (segment: string) => string | undefined
const WHOLE_SEGMENT: SegmentReader = (segment) => segment

/**
 * Reads path parameter `name` from a request's segment, by the template's segment: the whole
 * segment for `{name}`, the part the literals leave for `{name}.json` or `v{major}.{minor}`.
 */
function compileSegmentReader(template: string, name: string): SegmentReader {
  if (template === `{${name}}`) return WHOLE_SEGMENT
  let index = 0
  let wanted = -1
  const source = template.replace(/\{([^}]*)\}|[^{]+/g, (part, parameter: string | undefined) => {
    if (parameter === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    if (templateName(parameter) === name) wanted = index
    index++
    return '(.+?)'
  })
  const pattern = new RegExp(`^${source}$`)
  const parameters = index
  return (segment) => {
    // Two parameters in one segment cost the regex quadratic time: a long segment is taken whole.
    if (parameters > 1 && segment.length > 256) return segment
    const match = pattern.exec(segment)
    return match === null || wanted < 0 ? undefined : match[wanted + 1]
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** Whether an answer is a plain body (bytes, text or none): a stream, `events` or a fault is not. */
function isPlainBody(response: MockResponse): response is MockResponse & { body: Uint8Array | string | null } {
  const loose = response as unknown as Record<string, unknown>
  if (loose.stream !== undefined || loose.events !== undefined || loose.fault !== undefined) return false
  const body = response.body
  if (body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) return false
  return !/^text\/event-stream\b/i.test(response.headers['content-type'] ?? '')
}

const NOT_JSON = Symbol('not JSON')
const decoder = new TextDecoder()

function parseJson(body: Uint8Array | string): unknown {
  let text = typeof body === 'string' ? body : decoder.decode(body)
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  try {
    return JSON.parse(text)
  } catch {
    return NOT_JSON
  }
}

/** The servers' base paths, for a request no path matches. */
function baseHint(doc: Json): string {
  if (!Array.isArray(doc.servers) || doc.servers.length === 0) return ''
  return ` (the servers' base path: ${[...new Set((doc.servers as unknown[]).flatMap(basePathsOf))].join(', ')})`
}
