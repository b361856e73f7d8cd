import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ErrorObject, ValidateFunction } from 'ajv'
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { normalizePath, unescapeSegment } from '../core/compile-routes.js'
import { toPointer } from '../core/errors.js'
import { parsePath } from '../core/parse-request.js'
import { contentTypeOf } from '../core/build-response.js'
import { METHOD_KEYS, type MethodKey } from '../core/types.js'
import { answersAlone, answersOf as modelAnswers } from '../core/routes-model.js'
import type { CheckEntry } from './problem.js'
import { DOCUMENT_LIMIT, DocumentError, documentOptions, readRegularFile } from './read-document.js'

type Path = Array<string | number>
type Json = Record<string, unknown>

const has = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const
/** The methods a route's own `file`/`url`/`status` answers (HEAD answers as GET). */
const DEFAULT_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const
const QUERY_METHODS = new Set(['get', 'head', 'delete'])

/** A loaded OpenAPI document: bundled (every `$ref` internal), with a validator factory. */
export interface OpenApiDocument {
  /** The document's path as shown in reports. */
  label: string
  /** The document's absolute path. */
  path: string
  doc: Json
  version: '3.0' | '3.1'
  /** Validates a value against the schema at a pointer of the document (compiled once). */
  validatorAt(pointer: string): ValidateFunction
  /** The pointer of a schema object of the bundled document. */
  pointerOf(object: unknown): string | undefined
  /** Where a pointer of the bundled document was written: `schemas.yaml#/User/properties/id`. */
  locate(pointer: string): string
}

/** One operation of the document, with the path requests reach it by (servers' base path included). */
export interface Operation {
  method: string
  /** The path template as written in the document, `/users/{id}`. */
  path: string
  /** Segments of base path + template, lower case; a template segment is `{}`. */
  patterns: string[][]
  operation: Json
  pathItem: Json
  name: string
  /** A path that reaches the operation (first server, templates filled): to probe msw handlers. */
  sample: string
}

/**
 * Rewrites OpenAPI 3.0's own schema keywords into draft-07, in place: `nullable: true` adds the
 * `null` type (and `null` to an `enum`); boolean `exclusiveMinimum`/`exclusiveMaximum` take their
 * bound's number.
 */
function convert30(value: unknown, seen = new Set<unknown>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return
  seen.add(value)
  if (Array.isArray(value)) {
    for (const item of value) convert30(item, seen)
    return
  }
  const object = value as Json
  if (object.nullable === true) {
    if (typeof object.type === 'string') object.type = [object.type, 'null']
    if (Array.isArray(object.enum) && !object.enum.includes(null)) object.enum = [...object.enum, null]
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (object[flag] === true && typeof object[bound] === 'number') {
      object[flag] = object[bound]
      delete object[bound]
    } else if (object[flag] === false) delete object[flag]
  }
  for (const child of Object.values(object)) convert30(child, seen)
}

/**
 * Loads an OpenAPI 3.0 or 3.1 document (JSON or YAML, `$ref`s across files), bundled into one
 * object. The JSON Schema validator is ajv with ajv-formats: the 2020-12 dialect for 3.1,
 * draft-07 for 3.0 (whose `nullable` and boolean `exclusiveMinimum` are rewritten first).
 * Throws an Error saying why when the file is not such a document.
 *
 * @example
 * const api = await loadOpenApi('mocks/openapi.yaml', (file) => path.relative(process.cwd(), file))
 */
export async function loadOpenApi(path: string, display: (file: string) => string, options: { regExp?: RegExpEngine } = {}): Promise<OpenApiDocument> {
  const { default: RefParser } = await import('@apidevtools/json-schema-ref-parser')
  // Every file is read through documentOptions: regular files within the limit, no network.
  const files = (await readWith(path, display, (options) => new RefParser().resolve(path, options))).values() as Record<string, unknown>
  checkRefTargets(files, path, display)
  const doc = (await readWith(path, display, (options) => new RefParser().bundle(path, options))) as Json
  const label = display(path)
  const version = typeof doc.openapi === 'string' ? doc.openapi : undefined
  if (!version || !/^3\.[01]\./.test(version)) {
    throw new Error(version ? `OpenAPI ${version} is not supported` : doc.swagger ? 'Swagger 2.0 documents are not supported' : 'the file has no "openapi" version field')
  }
  if (!isObject(doc.paths)) throw new Error('the document has no "paths"')
  const is31 = version.startsWith('3.1')
  if (!is31) convert30(doc)
  const pointers = new Map<unknown, string>()
  const walk = (value: unknown, pointer: string) => {
    if (typeof value !== 'object' || value === null || pointers.has(value)) return
    pointers.set(value, pointer)
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${pointer}/${i}`))
    else for (const [k, v] of Object.entries(value)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
  }
  walk(doc, '')
  const origins = originsOf(doc, files, path)
  const locate = (pointer: string) => {
    let best = ''
    for (const prefix of origins.keys()) if (prefix.length > best.length && (pointer === prefix || pointer.startsWith(prefix + '/'))) best = prefix
    const origin = origins.get(best)
    return origin ? `${display(origin.file)}#${origin.pointer}${pointer.slice(best.length)}` : `${label}#${pointer}`
  }
  // ajv and ajv-formats are CommonJS: their class and function are the `default` of the exports.
  const cjs = <T>(module: { default: unknown }) => ((module.default as { default?: T }).default ?? module.default) as T
  const addFormats = cjs<typeof import('ajv-formats').default>(await import('ajv-formats'))
  type AjvClass = typeof import('ajv').default
  const Ajv = is31 ? cjs<AjvClass>(await import('ajv/dist/2020.js')) : cjs<AjvClass>(await import('ajv'))
  // `regExp`: the engine of `pattern` and `patternProperties` (the validate option's is linear: traffic.ts).
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, verbose: true, logger: false, ...(options.regExp ? { code: { regExp: options.regExp } } : {}) })
  addFormats(ajv)
  const id = 'mockyard-openapi.json'
  ajv.addSchema(doc, id)
  const compiled = new Map<string, ValidateFunction>()
  return {
    label,
    path,
    doc,
    version: is31 ? '3.1' : '3.0',
    validatorAt(pointer) {
      let validate = compiled.get(pointer)
      if (!validate) {
        validate = ajv.compile({ $ref: `${id}#${pointer.split('/').map(encodeURIComponent).join('/')}` })
        compiled.set(pointer, validate)
      }
      return validate
    },
    pointerOf: (object) => pointers.get(object),
    locate,
  }
}

/** Runs the `$ref` resolver with documentOptions; a file it refused is the error, in those words. */
async function readWith<T>(root: string, display: (file: string) => string, run: (options: ReturnType<typeof documentOptions>['options']) => Promise<T>): Promise<T> {
  const { options, refusal } = documentOptions(root, display)
  try {
    return await run(options)
  } catch (error) {
    throw refusal() ?? error
  }
}

function getPointer(document: unknown, pointer: string): unknown {
  let node = document
  for (const raw of pointer.split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    node = typeof node === 'object' && node !== null ? (node as Json)[token] : undefined
  }
  return node
}

/** A place in one file of the document: the file's path and a JSON Pointer, tokens decoded. */
type Place = { file: string; pointer: string }
const placeKey = (place: Place) => `${place.file}#${place.pointer}`

/** Where a `$ref` written in `file` points (its file part resolved as the `$ref` resolver does). */
function targetOf(ref: string, file: string): Place {
  const hash = ref.indexOf('#')
  const target = hash < 0 ? ref : ref.slice(0, hash)
  const fragment = hash < 0 ? '' : ref.slice(hash + 1)
  const targetFile = target === '' ? file : /^file:/i.test(target) ? fileURLToPath(target) : isAbsolute(target) ? target : join(dirname(file), decodeURIComponent(target))
  const pointer = fragment.split('/').map((token) => {
    try {
      return decodeURIComponent(token)
    } catch {
      return token
    }
  })
  return { file: targetFile, pointer: pointer.join('/') }
}

/** The value at a JSON Pointer whose tokens are not URI-encoded. */
function valueAt(document: unknown, pointer: string): unknown {
  let node = document
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~')
    node = typeof node === 'object' && node !== null && Object.prototype.hasOwnProperty.call(node, key) ? (node as Json)[key] : undefined
  }
  return node
}

/** What a value is, in words, for a `$ref` that points to something that is not a schema. */
function kindOfValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : `a ${typeof value}`
}

/**
 * Refuses, before bundling, a document whose `$ref`s cannot make a schema (docs/behaviour.md,
 * "Hostile documents"): a `$ref` to a value that is not an object (or a boolean schema), and a
 * cycle of `$ref`s with nothing in between (`A -> B -> A`), which no validator can ever resolve
 * and which bundling and compiling would follow until the stack runs out. Recursion through a
 * schema (`children: { items: { $ref: Tree } }`) is not such a cycle and stays legal.
 */
function checkRefTargets(files: Record<string, unknown>, root: string, display: (file: string) => string): void {
  const byPath = new Map<string, unknown>()
  for (const [key, value] of Object.entries(files)) byPath.set(/^file:/i.test(key) ? fileURLToPath(key) : key, value)
  const show = (place: Place) => `${display(place.file)}#${place.pointer}`
  const problems: string[] = []
  let fix = 'Point the $ref at a schema (an object).'
  let first: Place | undefined
  const cycles = new Set<string>()
  const report = (place: Place, message: string) => {
    first ??= place
    problems.push(message)
  }
  const check = (ref: string, at: Place) => {
    const chain: Place[] = [at]
    let target = targetOf(ref, at.file)
    for (let step = 0; step < 1000; step++) {
      if (!byPath.has(target.file)) return
      const value = valueAt(byPath.get(target.file), target.pointer)
      if (value === undefined) return // the bundler names a $ref that points to nothing
      if (typeof value !== 'object' && typeof value !== 'boolean') {
        return report(at, `the $ref "${ref}" at ${show(at)} points to ${kindOfValue(value)} (${show(target)}), not a schema`)
      }
      if (Array.isArray(value) || value === null) return report(at, `the $ref "${ref}" at ${show(at)} points to ${kindOfValue(value)} (${show(target)}), not a schema`)
      const seen = chain.findIndex((place) => placeKey(place) === placeKey(target))
      if (seen >= 0) {
        const cycle = [...chain.slice(seen), target]
        const id = cycle.slice(0, -1).map(placeKey).sort().join(' ')
        if (!cycles.has(id)) {
          cycles.add(id)
          report(cycle[0]!, `the $refs ${cycle.map(show).join(' -> ')} form a cycle with no schema in between, which never resolves`)
          fix = 'Make one of them a schema; a $ref inside properties or items (a tree whose children are trees) is fine.'
        }
        return
      }
      if (!isObject(value) || typeof value.$ref !== 'string') return
      chain.push(target)
      target = targetOf(value.$ref, target.file)
    }
  }
  const walk = (value: unknown, at: Place, depth: number) => {
    if (typeof value !== 'object' || value === null || depth > 500) return
    if (isObject(value) && typeof value.$ref === 'string') check(value.$ref, at)
    for (const [key, child] of Object.entries(value)) walk(child, { file: at.file, pointer: `${at.pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` }, depth + 1)
  }
  for (const [file, value] of byPath) walk(value, { file, pointer: '' }, 0)
  if (problems.length > 0) throw new DocumentError(problems.join('; '), { place: first ?? { file: root, pointer: '' }, fix: problems.length === 1 ? fix : 'Make each $ref point to a schema.' })
}

/**
 * Where the parts of the bundled document come from: bundling copies a schema of another file
 * where it is first referenced, so its pointers there are mapped back to the file and pointer it
 * was written at. Walks the bundled tree beside the files as written, following their `$ref`s.
 */
function originsOf(bundled: Json, files: Record<string, unknown>, root: string): Map<string, { file: string; pointer: string }> {
  const origins = new Map<string, { file: string; pointer: string }>()
  origins.set('', { file: root, pointer: '' })
  const walk = (node: unknown, at: string, original: unknown, file: string, pointer: string, depth: number) => {
    if (typeof node !== 'object' || node === null || depth > 200) return
    if (isObject(original) && typeof original.$ref === 'string' && !(isObject(node) && typeof node.$ref === 'string')) {
      const [target = '', fragment = ''] = original.$ref.split('#')
      const targetFile = target ? join(dirname(file), decodeURIComponent(target)) : file
      origins.set(at, { file: targetFile, pointer: fragment })
      walk(node, at, getPointer(files[targetFile], fragment), targetFile, fragment, depth + 1)
      return
    }
    if (typeof original !== 'object' || original === null) return
    for (const [key, child] of Object.entries(node)) {
      const token = key.replace(/~/g, '~0').replace(/\//g, '~1')
      walk(child, `${at}/${token}`, (original as Json)[key], file, `${pointer}/${token}`, depth + 1)
    }
  }
  walk(bundled, '', files[root], root, '', 0)
  return origins
}

/** What an internal `$ref` (`#/components/schemas/User`) of the document points at; a token that is not valid percent-encoding is read as written. */
export function resolveRef(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  let node: unknown = doc
  for (const raw of ref.slice(1).split('/').slice(1)) {
    let token = raw
    try {
      token = decodeURIComponent(raw)
    } catch {
      // as written
    }
    token = token.replace(/~1/g, '/').replace(/~0/g, '~')
    node = isObject(node) || Array.isArray(node) ? (node as Json)[token] : undefined
  }
  return node
}

/** Follows internal `$ref`s (`#/components/...`) of the bundled document (a few steps: a `$ref` to itself stops). */
export function deref(doc: Json, value: unknown): unknown {
  for (let i = 0; i < 50 && isObject(value) && typeof value.$ref === 'string' && value.$ref.startsWith('#'); i++) value = resolveRef(doc, value.$ref)
  return value
}

/** The path part of a server URL (`https://api.test/v1` -> `/v1`), variables at their defaults. */
export function basePathOf(server: unknown): string {
  if (!isObject(server) || typeof server.url !== 'string') return ''
  const variables = isObject(server.variables) ? server.variables : {}
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name]
    return isObject(variable) && variable.default !== undefined ? String(variable.default) : ''
  })
  try {
    return new URL(url).pathname
  } catch {
    return url.split(/[?#]/)[0] ?? ''
  }
}

function segmentsOf(path: string): string[] {
  return normalizePath(path)
    .split('/')
    .filter(Boolean)
    .map((s) => (s.includes('{') ? '{}' : s))
}

/** Every operation of the document, with its path under each server's base path. */
export function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = []
  const paths = doc.paths as Json
  const docServers = Array.isArray(doc.servers) && doc.servers.length > 0 ? doc.servers : [{ url: '/' }]
  for (const [path, rawItem] of Object.entries(paths)) {
    const pathItem = deref(doc, rawItem)
    if (!isObject(pathItem)) continue
    for (const method of OPERATION_METHODS) {
      const operation = deref(doc, pathItem[method])
      if (!isObject(operation)) continue
      const servers = [operation.servers, pathItem.servers].find((s) => Array.isArray(s) && s.length > 0) ?? docServers
      const patterns = (servers as unknown[]).map((server) => [...segmentsOf(basePathOf(server)), ...segmentsOf(path)])
      const sample = `${basePathOf((servers as unknown[])[0]).replace(/\/+$/, '')}/${path.replace(/^\/+/, '').replace(/\{[^}]*\}/g, '1')}`
      operations.push({ method, path, patterns, operation, pathItem, name: `${method.toUpperCase()} ${path}`, sample })
    }
  }
  return operations
}

/**
 * How well a route key's segments fit an operation's: `undefined` when they cannot, else a score
 * (a literal matching a literal counts most). A route literal fits a template segment (`v1/jobs/42`
 * mocks `/jobs/{id}`); a route parameter fits only a template segment; a trailing `*` fits the rest.
 * The document's last segment may carry a format suffix (`/users.json` fits `v1/users`).
 */
export function fit(route: string[], operation: string[]): number | undefined {
  const wildcard = route[route.length - 1] === '*'
  const fixed = wildcard ? route.slice(0, -1) : route
  if (wildcard ? operation.length < fixed.length : operation.length !== fixed.length) return undefined
  let score = 0
  for (let i = 0; i < fixed.length; i++) {
    // `\:name` and `\*` are the literal segments `:name` and `*` (docs/behaviour.md, "Route table").
    const r = unescapeSegment(fixed[i]!)
    const param = r === fixed[i] && r.startsWith(':')
    const o = operation[i]!
    if (o === '{}') score += param ? 2 : 1
    else if (param) return undefined
    else if (r === o || (i === operation.length - 1 && o.replace(/\.[^.]+$/, '') === r)) score += 3
    else return undefined
  }
  return score
}

/** What one candidate of a route answers: the fields that decide the body, and where they are. */
interface Answer {
  status: number
  file?: string
  url?: string
  contentType?: string
  /** Pointer tokens of the object the answer comes from. */
  path: Path
  filePath?: Path
  statusPath?: Path
  /** A `reset`, `close` or `hang` fault: nothing is sent. */
  silent?: true
  /** Pointer tokens of the answer's `events` (Server-Sent Events, `text/event-stream`). */
  eventsPath?: Path
}

/** What a method of a route answers, by the routes model's inheritance (`answersOf`). */
function answersOf(route: Json, key: string, method: string): Answer[] {
  return modelAnswers(route, key, method as MethodKey).map(({ path, fields }) => {
    const answer: Answer = { path, status: fields.status?.value ?? 200 }
    if (fields.file) {
      answer.file = fields.file.value
      answer.filePath = fields.file.path
    }
    if (fields.url) answer.url = fields.url.value
    if (fields.status) answer.statusPath = fields.status.path
    // A fault other than `truncate` sends no answer to check (docs/behaviour.md, "Faults").
    if (fields.fault && fields.fault.value !== 'truncate') answer.silent = true
    if (fields.events) answer.eventsPath = fields.events.path
    const type = fields.headers?.['content-type']
    if (type) answer.contentType = type.value
    return answer
  })
}

/** The response object an operation declares for a status: exact, then `2XX`, then `default`. */
export function responseFor(doc: Json, operation: Json, status: number): { key: string; response: Json } | undefined {
  const responses = isObject(operation.responses) ? operation.responses : {}
  for (const key of [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default']) {
    const response = deref(doc, responses[key])
    if (isObject(response)) return { key, response }
  }
  return undefined
}

export function mediaMatches(declared: string, actual: string): boolean {
  const [type, subtype] = declared.split(';')[0]!.trim().toLowerCase().split('/')
  const [actualType, actualSubtype] = actual.split(';')[0]!.trim().toLowerCase().split('/')
  return (type === '*' || type === actualType) && (subtype === '*' || subtype === actualSubtype)
}

export const isJsonType = (type: string) => /^application\/(.+\+)?json\b/i.test(type.split(';')[0]!.trim())

/** The names of the query parameters an operation declares (path item's included). */
function queryParameters(doc: Json, operation: Operation, where = 'query'): string[] {
  const names: string[] = []
  for (const list of [operation.pathItem.parameters, operation.operation.parameters]) {
    if (!Array.isArray(list)) continue
    for (const raw of list) {
      const parameter = deref(doc, raw)
      if (isObject(parameter) && parameter.in === where && typeof parameter.name === 'string') names.push(parameter.name)
    }
  }
  return [...new Set(names)]
}

/** Whether a body path (`a.b[2].c`) can exist in a value of a schema. */
function schemaHasPath(doc: Json, schema: unknown, tokens: string[], depth = 0): boolean {
  schema = deref(doc, schema)
  if (tokens.length === 0 || depth > 20) return true
  if (schema === true || !isObject(schema)) return schema !== false
  const branches = ['allOf', 'anyOf', 'oneOf'].flatMap((k) => (Array.isArray(schema[k]) ? (schema[k] as unknown[]) : []))
  if (branches.length > 0) {
    const own: Json = { ...schema, allOf: undefined, anyOf: undefined, oneOf: undefined }
    const hasOwnShape = isObject(own.properties) || own.items !== undefined || own.prefixItems !== undefined
    return branches.some((b) => schemaHasPath(doc, b, tokens, depth + 1)) || (hasOwnShape && schemaHasPath(doc, own, tokens, depth + 1))
  }
  const [token, ...rest] = tokens as [string, ...string[]]
  if (schema.items !== undefined || Array.isArray(schema.prefixItems) || schema.type === 'array') {
    if (!/^\d+$/.test(token)) return false
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems[Number(token)] : undefined
    return schemaHasPath(doc, prefix ?? schema.items ?? true, rest, depth + 1)
  }
  const properties = isObject(schema.properties) ? schema.properties : undefined
  if (properties && has(properties, token)) return schemaHasPath(doc, properties[token], rest, depth + 1)
  const extra = schema.additionalProperties
  if (extra !== undefined && extra !== false) return schemaHasPath(doc, extra === true ? true : extra, rest, depth + 1)
  // Declared properties and no additionalProperties: the API documents its fields.
  return !properties && schema.type !== 'string' && schema.type !== 'number' && schema.type !== 'integer' && schema.type !== 'boolean'
}

/** Whether a body param key can be met: as a path, then as a literal name (the engine's order). */
function bodyHasKey(doc: Json, operation: Json, key: string): boolean | undefined {
  const body = deref(doc, operation.requestBody)
  if (!isObject(body) || !isObject(body.content)) return undefined
  const schemas = Object.values(body.content).map((media) => (isObject(media) ? media.schema : undefined))
  return schemas.some((schema) => schema === undefined || schemaHasPath(doc, schema, parsePath(key)) || schemaHasPath(doc, schema, [key]))
}

export function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  let detail = ''
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    detail = ` ("${String(params.additionalProperty ?? params.unevaluatedProperty)}")`
  } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    detail = ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
  } else if (error.keyword === 'const') {
    detail = ` (${JSON.stringify(params.allowedValue)})`
  }
  let message = error.message ?? error.keyword
  // ajv writes a type list as "must be string,null".
  if (error.keyword === 'type' && Array.isArray(params.type)) message = `must be ${params.type.slice(0, -1).join(', ')} or ${params.type.at(-1)}`
  return `${message}${detail}`
}

/** A routes file to check against the document: its parsed routes, label and data folder. */
export interface RoutesToCheck {
  /** The routes file as reported (its path, or the label of an inline object). */
  file: string
  routes: Json
  data: string
}

/** A validation of a data file, announced before it runs: the caller may stop one that runs too long. */
export interface ValidationStep {
  /** Names the validation across runs on the same files (to skip it on the next run). */
  id: string
  /** The data file, its schema's location and the routes entry that serves it. */
  file: string
  schema: string
  source: string
  operation: string
}

/** An operation nothing in the routes mocks: the `not-mocked` entry, unless msw handlers answer `sample`. */
export interface Unmocked {
  method: string
  sample: string
  entry: CheckEntry
}

/** What checkOpenApi finds: the problems, the operations and which of them the routes mock. */
export interface OpenApiResult {
  entries: CheckEntry[]
  operations: number
  mocked: number
  unmocked: Unmocked[]
}

/**
 * Checks routes against an OpenAPI document (docs/behaviour.md, "Checking mocks: `mockyard
 * check`"): each route and method against an operation, each JSON data file against the
 * response schema of its operation and status, each file's content type against the declared
 * ones, each `params` key against the declared query parameters and request body; and lists the
 * operations no route mocks (the caller asks the config's msw handlers about them). Each
 * validation of a data file is announced to `steps.before` first, and the ones in `steps.skip`
 * are not run: a schema `pattern` can take exponential time, and only the caller, in another
 * thread, can stop it (openapi-worker.ts).
 *
 * @example
 * const api = await loadOpenApi('mocks/openapi.yaml', (file) => file)
 * const { entries, unmocked } = await checkOpenApi(api, [{ file: 'mocks/routes.json', routes, data: 'mocks/data' }])
 */
export async function checkOpenApi(
  api: OpenApiDocument,
  sources: readonly RoutesToCheck[],
  steps: { before?: (step: ValidationStep) => void; after?: (step: ValidationStep) => void; skip?: ReadonlySet<string> } = {},
): Promise<OpenApiResult> {
  const { doc } = api
  const operations = operationsOf(doc)
  const mocked = new Set<Operation>()
  const entries: CheckEntry[] = []
  const seen = new Set<string>()
  const error = (entry: Omit<CheckEntry, 'severity'>) => {
    const id = JSON.stringify([entry.file, entry.pointer, entry.message, entry.schema])
    if (seen.has(id)) return
    seen.add(id)
    entries.push({ severity: 'error', ...entry })
  }
  const baseHint = Array.isArray(doc.servers) && doc.servers.length > 0 ? ` (the servers' base path: ${(doc.servers as unknown[]).map(basePathOf).join(', ')})` : ''

  for (const source of sources) {
    const ref = (path: Path) => `${source.file}#${toPointer(path)}`
    for (const [key, rawRoute] of Object.entries(source.routes)) {
      if (!isObject(rawRoute)) continue
      const route = rawRoute
      // OpenAPI describes no WebSocket: a route that answers only upgrades is not checked.
      if (has(route, 'websocket') && !METHOD_KEYS.some((m) => has(route, m)) && !has(route, 'file') && !has(route, 'url') && !has(route, 'status')) continue
      const segments = normalizePath(key).split('/').filter(Boolean)
      // The best-fitting path of the document; its operations are the route's.
      let best: { score: number; path: string } | undefined
      for (const operation of operations) {
        for (const pattern of operation.patterns) {
          const score = fit(segments, pattern)
          if (score !== undefined && (!best || score > best.score)) best = { score, path: operation.path }
        }
      }
      if (!best) {
        // A document without the base path the routes carry (no `servers`, or another one):
        // name the prefix that would make the route fit, which is usually the whole fix.
        let prefixHint = ''
        let fix = 'Add the path to the OpenAPI document if the API has it, or remove or fix the route.'
        for (let drop = 1; drop < segments.length && prefixHint === ''; drop++) {
          const rest = segments.slice(drop)
          // A literal segment must agree: a template alone (`/{id}`) fits anything.
          const fits = operations.find((operation) => {
            const pattern = segmentsOf(operation.path)
            return pattern.some((segment) => segment !== '{}') && fit(rest, pattern) !== undefined
          })
          if (!fits) continue
          const base = '/' + segments.slice(0, drop).join('/')
          prefixHint = `; it would match ${fits.path} under the base path ${base}`
          fix = `Add a server with that base path to the document (servers: [{ url: "${base}" }]) if the API is served there, or fix the route.`
        }
        error({ kind: 'no-operation', file: source.file, pointer: toPointer([key]), message: `no path of ${api.label} matches the route "${key}"${baseHint}${prefixHint}`, fix })
        continue
      }
      const atPath = operations.filter((o) => o.path === best.path)
      const byMethod = new Map(atPath.map((o) => [o.method, o]))
      const explicit = METHOD_KEYS.filter((m) => has(route, m))
      const byDefault = answersAlone(route) ? DEFAULT_METHODS.filter((m) => !has(route, m)) : []
      const pairs: Array<{ method: string; operation: Operation }> = []
      const declared = atPath.map((o) => o.method.toUpperCase()).join(', ')
      for (const method of explicit) {
        const operation = byMethod.get(method) ?? (method === 'head' ? byMethod.get('get') : undefined)
        if (operation) pairs.push({ method, operation })
        else {
          error({ kind: 'no-operation', file: source.file, pointer: toPointer([key, method]), message: `${method.toUpperCase()} ${best.path} is not an operation of ${api.label} (it has ${declared})`, fix: `Add the operation to the document if the API has it, or remove "${method}" from the route.` })
        }
      }
      const documented = byDefault.filter((m) => byMethod.has(m))
      if (byDefault.length > 0 && documented.length === 0 && explicit.length === 0) {
        error({ kind: 'no-operation', file: source.file, pointer: toPointer([key]), message: `${best.path} of ${api.label} has none of the methods the route answers (it has ${declared})`, fix: 'Add the operations to the document, or give the route method keys for the methods the API has.' })
      }
      for (const method of documented) pairs.push({ method, operation: byMethod.get(method)! })

      for (const { method, operation } of pairs) {
        mocked.add(operation)
        const name = `${operation.method.toUpperCase()} ${operation.path}`
        // Statuses, content types and bodies.
        for (const answer of answersOf(route, key, method)) {
          if (answer.url || answer.silent) continue
          const at = answer.statusPath ?? answer.filePath ?? answer.path
          const found = responseFor(doc, operation.operation, answer.status)
          if (!found) {
            const statuses = Object.keys(isObject(operation.operation.responses) ? operation.operation.responses : {}).join(', ')
            error({ kind: 'status', file: source.file, pointer: toPointer(at), message: `${name} declares no response for status ${answer.status} (it declares ${statuses || 'none'})`, fix: 'Declare the status in the document if the API answers it, or change the status in the routes file.' })
            continue
          }
          if (answer.status === 204 || answer.status === 304) continue
          if (answer.eventsPath) {
            // Events are sent as text/event-stream: the operation must declare that response.
            const types = Object.keys(isObject(found.response.content) ? found.response.content : {})
            if (!types.some((t) => mediaMatches(t, 'text/event-stream'))) {
              error({
                kind: 'content-type',
                file: source.file,
                pointer: toPointer(answer.eventsPath),
                message: `the events are sent as text/event-stream, which ${name} does not declare for status ${answer.status} (it declares ${types.join(', ') || 'no body'})`,
                fix: 'Declare a text/event-stream response in the document if the API streams events, or answer with a file of a declared type.',
              })
            }
            continue
          }
          if (!answer.file) continue
          const type = answer.contentType ?? (await contentTypeOf(answer.file))
          const content = isObject(found.response.content) ? found.response.content : {}
          const types = Object.keys(content)
          const media = types.find((t) => mediaMatches(t, type))
          if (!media) {
            error({
              kind: 'content-type',
              file: source.file,
              pointer: toPointer(answer.filePath ?? at),
              message: types.length === 0 ? `${name} declares no body for status ${answer.status}, but the data file "${answer.file}" is served` : `the data file "${answer.file}" is served as ${type.split(';')[0]}, which ${name} does not declare for status ${answer.status} (it declares ${types.join(', ')})`,
              fix: types.length === 0 ? 'Remove the file, or declare the response content in the document.' : 'Serve a file of a declared type (the extension decides it, or a Content-Type responseHeader), or declare the type in the document.',
            })
            continue
          }
          const mediaObject = deref(doc, content[media])
          if (!isJsonType(type) || !isObject(mediaObject) || mediaObject.schema === undefined) continue
          const dataPath = join(source.data, answer.file)
          if (!existsSync(dataPath)) continue
          let value: unknown
          try {
            // Regular files within the limit only: a pipe would block this thread for good.
            const text = readRegularFile(dataPath, DOCUMENT_LIMIT, answer.file).toString('utf8')
            value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
          } catch {
            continue // reported as invalid JSON by the loader's checks
          }
          const pointer = `${api.pointerOf(content[media]) ?? api.pointerOf(mediaObject)}/schema`
          const step: ValidationStep = { id: JSON.stringify([dataPath, pointer]), file: dataPath, schema: api.locate(pointer), source: ref(answer.filePath ?? at), operation: name }
          if (steps.skip?.has(step.id)) continue
          steps.before?.(step)
          const validate = api.validatorAt(pointer)
          const valid = validate(value)
          steps.after?.(step)
          if (valid) continue
          for (const problem of validate.errors ?? []) {
            const parent = api.pointerOf(problem.parentSchema)
            const schemaAt = api.locate(parent !== undefined ? `${parent}/${problem.keyword}` : problem.schemaPath.replace(/^#/, pointer))
            error({
              kind: 'schema',
              file: dataPath,
              pointer: problem.instancePath,
              message: `${describeError(problem)} (schema ${schemaAt}, response ${found.key} of ${name})`,
              fix: 'Update the data file to what the API answers now, or the document if it is wrong.',
              schema: schemaAt,
              source: ref(answer.filePath ?? at),
            })
          }
        }
        // Conditions on params the API does not have.
        const value = route[method]
        const list = Array.isArray(value) ? value : isObject(value) ? [value] : []
        list.forEach((entry, index) => {
          if (!isObject(entry) || !isObject(entry.params)) return
          const path: Path = Array.isArray(value) ? [key, method, index] : [key, method]
          const query = queryParameters(doc, operation)
          const inQuery = (param: string) => query.some((q) => param === q || param === `${q}[]` || param.startsWith(`${q}[`) || param.startsWith(`${q}.`))
          const inPath = queryParameters(doc, operation, 'path')
          for (const param of Object.keys(entry.params)) {
            if (inQuery(param)) continue
            if (inPath.includes(param) && (QUERY_METHODS.has(method) || !bodyHasKey(doc, operation.operation, param))) {
              // params read the query and the body, never the path (docs/behaviour.md, "Checking mocks").
              error({ kind: 'unknown-param', file: source.file, pointer: toPointer([...path, 'params', param]), message: `"${param}" is a path parameter of ${name}, and params conditions read the ${QUERY_METHODS.has(method) ? 'query string' : 'request body and query string'}, never the path, so this condition is never met`, fix: `Give the value its own route instead (a key with the value in place of :${param}), or remove the condition.` })
            } else if (QUERY_METHODS.has(method)) {
              error({ kind: 'unknown-param', file: source.file, pointer: toPointer([...path, 'params', param]), message: `${name} has no query parameter "${param}" (${query.length > 0 ? `it declares ${query.join(', ')}` : 'it declares none'}), so this condition is never met`, fix: 'Use a declared parameter, or declare it in the document if the API has it.' })
            } else if (!bodyHasKey(doc, operation.operation, param)) {
              const hasBody = isObject(deref(doc, operation.operation.requestBody))
              error({ kind: 'unknown-param', file: source.file, pointer: toPointer([...path, 'params', param]), message: `${name} has no ${hasBody ? 'request body field' : 'request body, and no query parameter,'} "${param}"${hasBody ? ' nor query parameter of that name' : ''}, so this condition is never met`, fix: 'Use a field of the request body schema, or declare it in the document if the API has it.' })
            }
          }
        })
      }
    }
  }
  const unmocked: Unmocked[] = []
  for (const operation of operations) {
    if (mocked.has(operation)) continue
    const id = typeof operation.operation.operationId === 'string' ? ` (${operation.operation.operationId})` : ''
    unmocked.push({
      method: operation.method.toUpperCase(),
      sample: operation.sample,
      entry: {
        severity: 'info',
        kind: 'not-mocked',
        file: api.path,
        pointer: toPointer(['paths', operation.path, operation.method]),
        message: `${operation.name}${id} is not mocked`,
        fix: 'Add a route for it if your tests need it.',
        operation: operation.name,
      },
    })
  }
  return { entries, operations: operations.length, mocked: mocked.size, unmocked }
}
