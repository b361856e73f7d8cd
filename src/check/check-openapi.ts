import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ErrorObject, ValidateFunction } from 'ajv'
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { encodePathText, normalizePath, unescapeSegment } from '../core/compile-routes.js'
import { toPointer } from '../core/errors.js'
import { parsePath } from '../core/parse-request.js'
import { contentTypeOf, isRedirectStatus } from '../core/build-response.js'
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
 * The `anyOf`s convertKeywords writes for 3.0's `nullable` without `type`, and their `null`
 * branches: a value that fails such a schema is reported by the errors of its own branch only
 * (not also "must be null" and "must match a schema in anyOf").
 */
const NULLABLE_REWRITES = new WeakSet<object>()

/** Keywords whose values are data (examples, defaults, enumerations): converted nowhere inside. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'enum', 'const'])
/**
 * Keys whose values map names to schemas and other objects of the document: a name there (a
 * property `nullable`, a `default` response, a schema named `example`) is no keyword.
 */
const NAME_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'schemas', 'responses', 'parameters', 'headers', 'requestBodies', 'callbacks', 'pathItems', 'content', 'encoding'])

/**
 * Rewrites OpenAPI's own schema keywords into JSON Schema, in place, and returns the objects
 * whose content moved (below). `nullable`, a keyword of 3.0 only, is always removed (ajv would
 * refuse it without `type`, and it means nothing in 3.1). In 3.0: `nullable: true` adds the `null`
 * type (and `null` to an `enum`), or, without `type` (`{ nullable: true, allOf: [...] }`), moves the
 * schema's keywords into `{ anyOf: [<them>, { type: 'null' }] }`; boolean
 * `exclusiveMinimum`/`exclusiveMaximum` take their bound's number. Examples, defaults and
 * enumerations are data and stay as written.
 */
function convertKeywords(value: unknown, is30: boolean, moved: Json[] = [], seen = new Set<unknown>(), names = false): Json[] {
  if (typeof value !== 'object' || value === null || seen.has(value)) return moved
  seen.add(value)
  if (Array.isArray(value)) {
    for (const item of value) convertKeywords(item, is30, moved, seen)
    return moved
  }
  let object = value as Json
  if (names) {
    for (const child of Object.values(object)) convertKeywords(child, is30, moved, seen)
    return moved
  }
  if (typeof object.nullable === 'boolean') {
    const nullable = object.nullable
    delete object.nullable
    if (nullable && is30) {
      if (typeof object.type === 'string') object.type = [object.type, 'null']
      else if (Array.isArray(object.type) && !object.type.includes('null')) object.type = [...object.type, 'null']
      if (Array.isArray(object.enum) && !object.enum.includes(null)) object.enum = [...object.enum, null]
      if (object.type === undefined) {
        const rest: Json = { ...object }
        for (const key of Object.keys(object)) delete object[key]
        const nullBranch = { type: 'null' }
        object.anyOf = [rest, nullBranch]
        NULLABLE_REWRITES.add(object)
        NULLABLE_REWRITES.add(nullBranch)
        moved.push(object)
        object = rest
      }
    }
  }
  if (is30) {
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (object[flag] === true && typeof object[bound] === 'number') {
        object[flag] = object[bound]
        delete object[bound]
      } else if (object[flag] === false) delete object[flag]
    }
  }
  for (const [key, child] of Object.entries(object)) {
    if (DATA_KEYWORDS.has(key) || key.startsWith('x-')) continue
    convertKeywords(child, is30, moved, seen, NAME_MAPS.has(key))
  }
  return moved
}

/**
 * The pointer a schema had as written, from its pointer after convertKeywords moved the content
 * of `moved` (their pointers, longest first): `<p>/anyOf/0/...` is `<p>/...`, the `null` branch
 * `<p>/anyOf/1` is `<p>/nullable`.
 */
function unmovedPointer(pointer: string, moved: readonly string[]): string {
  for (const at of moved) {
    if (pointer === `${at}/anyOf`) pointer = at
    else if (pointer === `${at}/anyOf/0` || pointer.startsWith(`${at}/anyOf/0/`)) pointer = at + pointer.slice(at.length + '/anyOf/0'.length)
    else if (pointer === `${at}/anyOf/1` || pointer.startsWith(`${at}/anyOf/1/`)) pointer = `${at}/nullable`
  }
  return pointer
}

/**
 * Loads an OpenAPI 3.0 or 3.1 document (JSON or YAML, `$ref`s across files), bundled into one
 * object whose `$ref`s are all internal (`#/...`). The JSON Schema validator is ajv with
 * ajv-formats: the 2020-12 dialect for 3.1, draft-07 for 3.0 (whose `nullable` and boolean
 * `exclusiveMinimum` are rewritten first: convertKeywords). `reader` names the command in a
 * refusal (`mockyard check` by default). Throws an Error saying why when the file is not such a
 * document.
 *
 * @example
 * const api = await loadOpenApi('mocks/openapi.yaml', (file) => path.relative(process.cwd(), file))
 */
export async function loadOpenApi(path: string, display: (file: string) => string, options: { regExp?: RegExpEngine; reader?: string } = {}): Promise<OpenApiDocument> {
  const { default: RefParser } = await import('@apidevtools/json-schema-ref-parser')
  // Every file is read through documentOptions: regular files within the limit, no network.
  const reader = options.reader ?? 'mockyard check'
  const files = (await readWith(path, display, (options) => new RefParser().resolve(path, options), reader)).values() as Record<string, unknown>
  checkRefTargets(files, path, display)
  const doc = (await readWith(path, display, (options) => new RefParser().bundle(path, options), reader)) as Json
  const label = display(path)
  if (typeof doc.openapi === 'number') {
    // YAML reads `openapi: 3.0` as the number 3.
    throw new DocumentError(`its "openapi" field is the number ${doc.openapi}, not a version string (YAML reads an unquoted 3.0 as a number)`, { place: { file: path, pointer: '/openapi' }, fix: 'Write the version in quotes, with its patch number: openapi: "3.0.3" (or "3.1.0").' })
  }
  const version = typeof doc.openapi === 'string' ? doc.openapi : undefined
  if (!version || !/^3\.[01](\.|$)/.test(version)) {
    if (version) throw new DocumentError(`OpenAPI ${version} is not supported`, { place: { file: path, pointer: '/openapi' }, fix: 'Give an OpenAPI 3.0 or 3.1 document; convert a Swagger 2.0 one with swagger2openapi.' })
    throw new DocumentError(doc.swagger ? 'Swagger 2.0 documents are not supported' : 'the file has no "openapi" version field', { fix: doc.swagger ? 'Convert it to OpenAPI 3 (swagger2openapi does), then use that.' : 'Give an OpenAPI 3.0 or 3.1 document (JSON or YAML), which starts with openapi: "3.0.3" or "3.1.0".' })
  }
  const is31 = version.startsWith('3.1')
  // 3.1 makes `paths` optional (a document of webhooks or components only): no operations.
  if (doc.paths !== undefined && !isObject(doc.paths)) throw new DocumentError('its "paths" is not an object', { place: { file: path, pointer: '/paths' }, fix: 'Write paths as an object of path templates (paths: { /users: { get: ... } }).' })
  if (!isObject(doc.paths) && !is31) throw new DocumentError('the document has no "paths", which OpenAPI 3.0 requires', { fix: 'Add the paths the API has (paths: {} for none).' })
  // Where each part of the bundle was written, taken before any keyword is rewritten.
  const origins = originsOf(doc, files, path)
  const written = (pointer: string) => {
    let best = ''
    for (const prefix of origins.keys()) if (prefix.length > best.length && (pointer === prefix || pointer.startsWith(prefix + '/'))) best = prefix
    const origin = origins.get(best)
    return origin ? { file: origin.file, pointer: `${origin.pointer}${pointer.slice(best.length)}` } : { file: path, pointer }
  }
  internalizeRefs(doc, path, written, display)
  const parents = breakPolymorphicCycles(doc)
  const movedObjects = convertKeywords(doc, !is31)
  const pointers = new Map<unknown, string>()
  const walk = (value: unknown, pointer: string) => {
    if (typeof value !== 'object' || value === null || pointers.has(value)) return
    pointers.set(value, pointer)
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${pointer}/${i}`))
    else for (const [k, v] of Object.entries(value)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
  }
  walk(doc, '')
  // A parent copied by breakPolymorphicCycles is reported where it is written.
  for (const [copy, parent] of parents) {
    const at = pointers.get(parent)
    if (at !== undefined) pointers.set(copy, at)
  }
  const moved = movedObjects.map((object) => pointers.get(object)!).sort((a, b) => b.length - a.length)
  const locate = (pointer: string) => {
    const place = written(unmovedPointer(pointer, moved))
    return `${place.file === path ? label : display(place.file)}#${place.pointer}`
  }
  const endless = endlessCycle(doc, pointers)
  if (endless) {
    throw new DocumentError(`the schemas ${endless.map(locate).join(' -> ')} apply each other to the same value without end (through $ref, allOf, anyOf, oneOf, not, if, then or else), so no value can be validated against them`, {
      place: written(unmovedPointer(endless[0]!, moved)),
      fix: 'Break the cycle: a part that extends a schema should $ref a base schema without the oneOf or anyOf that lists the part.',
    })
  }
  // ajv and ajv-formats are CommonJS: their class and function are the `default` of the exports.
  const cjs = <T>(module: { default: unknown }) => ((module.default as { default?: T }).default ?? module.default) as T
  const addFormats = cjs<typeof import('ajv-formats').default>(await import('ajv-formats'))
  type AjvClass = typeof import('ajv').default
  const Ajv = is31 ? cjs<AjvClass>(await import('ajv/dist/2020.js')) : cjs<AjvClass>(await import('ajv'))
  // `regExp`: the engine of `pattern` and `patternProperties` (the validate option's is linear: traffic.ts).
  // `multipleOfPrecision`: 19.99 is a multiple of 0.01 (19.99 / 0.01 is 1998.9999999999998 in
  // floating point, which ajv's exact test refuses); 19.995 is still not.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, verbose: true, logger: false, multipleOfPrecision: 9, ...(options.regExp ? { code: { regExp: options.regExp } } : {}) })
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
async function readWith<T>(root: string, display: (file: string) => string, run: (options: ReturnType<typeof documentOptions>['options']) => Promise<T>, reader: string): Promise<T> {
  const { options, refusal } = documentOptions(root, display, reader)
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

/** Whether a pointer names something inside a schema with an `$id` that holds the place `at` (pointers not URI-encoded). */
function withinResource(document: unknown, at: string, pointer: string): boolean {
  const tokens = at.split('/')
  for (let length = tokens.length; length >= 1; length--) {
    const node = valueAt(document, tokens.slice(0, length).join('/'))
    if (isObject(node) && typeof node.$id === 'string' && valueAt(node, pointer) !== undefined) return true
  }
  return false
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
      if (value === undefined) {
        // In 3.1, `#/...` inside a schema with an `$id` is relative to that schema (JSON Schema 2020-12).
        if (step === 0 && target.file === at.file && withinResource(byPath.get(at.file), at.pointer, target.pointer)) return
        // The resolver's own words ("Token "components" does not exist") do not say where the $ref is.
        report(at, `the $ref "${ref}" at ${show(at)} points to ${show(target)}, which does not exist`)
        fix = 'Point the $ref at a schema the document has, or add the schema there.'
        return
      }
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
 * OpenAPI's polymorphism written as a cycle: `Pet: { discriminator, oneOf: [Cat, Dog] }` with
 * `Cat: { allOf: [Pet, {...}] }`. As JSON Schema it never ends (Pet applies Cat, which applies Pet,
 * to the same value: the validator runs out of stack); as OpenAPI means it, Cat extends Pet's
 * own keywords. So each such `allOf` `$ref` back to a parent of the branch becomes a copy of the
 * parent without its `oneOf`/`anyOf` (its properties, required names and discriminator kept).
 * Returns each copy with its parent, so that errors in it are reported where the parent is written.
 */
function breakPolymorphicCycles(doc: Json): Map<object, object> {
  const copies = new Map<object, object>()
  const seen = new Set<unknown>()
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 500) return
    seen.add(value)
    if (isObject(value)) {
      for (const keyword of ['oneOf', 'anyOf'] as const) {
        const branches = value[keyword]
        if (!Array.isArray(branches)) continue
        for (const raw of branches) {
          const branch = deref(doc, raw)
          if (!isObject(branch) || !Array.isArray(branch.allOf)) continue
          branch.allOf = branch.allOf.map((part: unknown) => {
            if (!isObject(part) || typeof part.$ref !== 'string' || deref(doc, part) !== value) return part
            const { oneOf: _one, anyOf: _any, ...own } = value
            copies.set(own, value)
            return own
          })
        }
      }
    }
    for (const child of Object.values(value)) visit(child, depth + 1)
  }
  visit(doc, 0)
  return copies
}

/**
 * A cycle of schemas that apply each other to the same value (`A: { allOf: [B] }`,
 * `B: { anyOf: [A] }`), as the pointers of its schemas; undefined when there is none. A
 * validator follows such a cycle until its stack runs out, whatever the value. Recursion through
 * `properties` or `items` (a tree) moves into the value and ends with it, and is not such a cycle.
 */
function endlessCycle(doc: Json, pointers: Map<unknown, string>): string[] | undefined {
  const next = (schema: Json): unknown[] => {
    const out: unknown[] = []
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#')) out.push(resolveRef(doc, schema.$ref))
    for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(schema[key])) out.push(...(schema[key] as unknown[]))
    for (const key of ['not', 'if', 'then', 'else']) if (isObject(schema[key])) out.push(schema[key])
    return out
  }
  const done = new Set<unknown>()
  const path: unknown[] = []
  const onPath = new Set<unknown>()
  const visit = (schema: unknown): unknown[] | undefined => {
    if (!isObject(schema) || done.has(schema)) return undefined
    if (onPath.has(schema)) return path.slice(path.indexOf(schema))
    if (path.length > 1000) return undefined
    path.push(schema)
    onPath.add(schema)
    for (const child of next(schema)) {
      const cycle = visit(child)
      if (cycle) return cycle
    }
    path.pop()
    onPath.delete(schema)
    done.add(schema)
    return undefined
  }
  for (const [object, pointer] of pointers) {
    // Schemas only: examples and other data are never validated against.
    if (!isObject(object) || !/\/(schema|schemas\/[^/]+|\$defs\/[^/]+|definitions\/[^/]+)(\/|$)/.test(pointer)) continue
    const cycle = visit(object)
    if (cycle) {
      // Named by the schemas written with a name where there are some (a $ref is one step, not a schema).
      const names = cycle.map((schema) => pointers.get(schema)!).filter((pointer) => !isObject(valueAt(doc, pointer)) || typeof (valueAt(doc, pointer) as Json).$ref !== 'string')
      const list = names.length > 0 ? names : cycle.map((schema) => pointers.get(schema)!)
      return [...list, list[0]!]
    }
  }
  return undefined
}

/** The value at a JSON Pointer (tokens not URI-encoded) of the bundled document, following its internal `$ref`s on the way. */
function valueInBundle(doc: Json, pointer: string): unknown {
  let node: unknown = doc
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~')
    node = deref(doc, node)
    node = (isObject(node) || Array.isArray(node)) && has(node, key) ? (node as Json)[key] : undefined
  }
  return node
}

/**
 * Makes every `$ref` of the bundled document internal. The bundler leaves as written a `$ref`
 * from another file back into the root document (`paths/pet.yaml` naming
 * `../openapi.yaml#/components/schemas/Pet`), which neither ajv nor `deref` can follow: each
 * becomes `#/components/schemas/Pet`. A `$ref` that still names something outside the bundle
 * is refused, naming it, rather than left to be skipped later. `written` gives the file and
 * pointer a place of the bundle was written at.
 */
function internalizeRefs(doc: Json, root: string, written: (pointer: string) => Place, display: (file: string) => string): void {
  const problems: string[] = []
  let first: Place | undefined
  const seen = new Set<unknown>()
  const visit = (value: unknown, pointer: string, depth: number) => {
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 500) return
    seen.add(value)
    if (isObject(value) && typeof value.$ref === 'string' && !value.$ref.startsWith('#')) {
      const at = written(pointer)
      const target = targetOf(value.$ref, at.file)
      if (resolve(target.file) === resolve(root) && valueInBundle(doc, target.pointer) !== undefined) {
        value.$ref = `#${target.pointer.split('/').map(encodeURIComponent).join('/')}`
      } else {
        first ??= at
        problems.push(`the $ref "${value.$ref}" at ${display(at.file)}#${at.pointer} names ${display(target.file)}#${target.pointer}, which is not part of the document once its files are bundled`)
      }
    }
    for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1)
  }
  visit(doc, '', 0)
  if (problems.length > 0) throw new DocumentError(problems.join('; '), { place: first!, fix: 'Point each $ref at a schema of the document or of a file beside it (a relative path and a #/pointer).' })
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

/**
 * The path part of a server URL (`https://api.test/v1` -> `/v1`), variables at their defaults. A
 * URL without a scheme is read against one: a path (`/v1`), or a protocol-relative URL
 * (`//petstore.swagger.io/v2` -> `/v2`, what swagger2openapi writes) whose host is no path.
 */
export function basePathOf(server: unknown): string {
  if (!isObject(server) || typeof server.url !== 'string') return ''
  const variables = isObject(server.variables) ? server.variables : {}
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name]
    return isObject(variable) && variable.default !== undefined ? String(variable.default) : ''
  })
  return pathOfUrl(url)
}

function pathOfUrl(url: string): string {
  try {
    return new URL(url, 'http://base.invalid/').pathname
  } catch {
    return url.split(/[?#]/)[0] ?? ''
  }
}

/** How many base paths one server's variables may give: a document listing many values of many variables stays cheap. */
const BASE_PATH_LIMIT = 64

/**
 * Every base path a server gives: its variables at their default (first), then at each value of
 * their `enum` (`{basePath}` with `enum: [v1, v2]` gives `/v1` and `/v2`), up to 64 paths.
 */
export function basePathsOf(server: unknown): string[] {
  const first = basePathOf(server)
  if (!isObject(server) || typeof server.url !== 'string' || !isObject(server.variables)) return [first]
  const variables = server.variables
  let urls = [server.url]
  for (const name of new Set([...server.url.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!))) {
    const variable = variables[name]
    if (!isObject(variable)) continue
    const values = [...new Set([variable.default, ...(Array.isArray(variable.enum) ? variable.enum : [])].filter((v) => v !== undefined && v !== null).map(String))]
    if (values.length === 0) continue
    urls = urls.flatMap((url) => values.map((value) => url.split(`{${name}}`).join(value))).slice(0, BASE_PATH_LIMIT)
  }
  return [...new Set([first, ...urls.map((url) => pathOfUrl(url.replace(/\{[^}]+\}/g, '')))])]
}

/** The servers an operation is served under: its own, else its path item's, else the document's (else `/`). */
export function serversOf(doc: Json, pathItem: Json, operation: Json): unknown[] {
  const docServers = Array.isArray(doc.servers) && doc.servers.length > 0 ? doc.servers : [{ url: '/' }]
  return ([operation.servers, pathItem.servers].find((s) => Array.isArray(s) && s.length > 0) as unknown[] | undefined) ?? docServers
}


/**
 * A path's segments as `fit` compares them, in lower case: a segment that is one template is
 * `{}`; one with literal text beside its templates keeps that text, each template `{}`
 * (`{id}.json` is `{}.json`), so `/reports/{id}.json` and `/reports/{id}.csv` stay two paths.
 */
function segmentsOf(path: string): string[] {
  return normalizePath(path)
    .split('/')
    .filter(Boolean)
    .map((s) => (!s.includes('{') ? s : /^\{[^{}]*\}$/.test(s) || !/\{[^{}]*\}/.test(s) ? '{}' : s.replace(/\{[^{}]*\}/g, '{}')))
}

/**
 * Whether a literal segment (a request's, a route key's) fits a template segment with literal
 * text beside its templates (`{}.json`, `v{}.{}`): the literals in order, each template at least
 * one character. Placing each literal at its leftmost place is enough to know, and takes linear
 * time, where a regular expression with two lazy groups would take quadratic time on a long segment.
 */
function fitsTemplate(segment: string, template: string): boolean {
  const text = segmentText(segment)
  const literals = template.split('{}').map(segmentText)
  const first = literals[0]!
  const last = literals[literals.length - 1]!
  if (!text.startsWith(first) || text.length < first.length + last.length + literals.length - 1) return false
  let at = first.length
  for (const literal of literals.slice(1, -1)) {
    const found = text.indexOf(literal, at + 1)
    if (found < 0) return false
    at = found + literal.length
  }
  return text.length - last.length > at && text.endsWith(last)
}

/** A segment compared as text: percent-encoding undone, then lower case (`caf%C3%A9` and `Café` are one). */
function segmentText(segment: string): string {
  if (!segment.includes('%')) return segment.toLowerCase()
  try {
    return decodeURIComponent(segment).toLowerCase()
  } catch {
    return segment.toLowerCase()
  }
}

/** Whether two literal segments name the same path segment, as written or percent-encoded. */
function sameSegment(a: string, b: string): boolean {
  return a === b || ((a.includes('%') || b.includes('%')) && segmentText(a) === segmentText(b))
}

/** Every operation of the document, with its path under each server's base path. */
export function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = []
  const paths = isObject(doc.paths) ? doc.paths : {}
  for (const [path, rawItem] of Object.entries(paths)) {
    const pathItem = deref(doc, rawItem)
    if (!isObject(pathItem)) continue
    for (const method of OPERATION_METHODS) {
      const operation = deref(doc, pathItem[method])
      if (!isObject(operation)) continue
      const servers = serversOf(doc, pathItem, operation)
      const patterns = servers.flatMap((server) => basePathsOf(server).map((base) => [...segmentsOf(base), ...segmentsOf(path)]))
      const sample = `${basePathOf(servers[0]).replace(/\/+$/, '')}/${encodePathText(path.replace(/^\/+/, '').replace(/\{[^}]*\}/g, '1'))}`
      operations.push({ method, path, patterns, operation, pathItem, name: `${method.toUpperCase()} ${path}`, sample })
    }
  }
  return operations
}

/**
 * How well a route key's segments fit an operation's: `undefined` when they cannot, else a score
 * (a literal matching a literal counts most). A route literal fits a template segment (`v1/jobs/42`
 * mocks `/jobs/{id}`); a route parameter fits only a template segment; a trailing `*` fits the rest.
 * A template segment with text beside it (`{id}.json`) takes a literal carrying that text
 * (`5.json`, not `5` nor `5.csv`), or a parameter. The document's last segment may carry a format suffix (`/users.json` fits `v1/users`). Literals
 * compare percent-decoded: `caf%C3%A9` (a request's path, a route key) fits `/café`.
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
    // Text beside a template (`{}.json`): a parameter may stand for the segment (init writes
    // `:id` for it), below a whole template; a literal must carry the text, above a whole template.
    else if (o.includes('{}')) {
      if (param) score += 1
      else if (fitsTemplate(r, o)) score += 2
      else return undefined
    } else if (param) return undefined
    else if (sameSegment(r, o) || (i === operation.length - 1 && sameSegment(o.replace(/\.[^.]+$/, ''), r))) score += 3
    else return undefined
  }
  return score
}

interface PatternNode {
  /** Children by a literal segment's text (segmentText), and by a template segment (`{}`, `{}.json`). */
  literals: Map<string, PatternNode>
  templates: Map<string, PatternNode>
  /** The operations' patterns that end here. */
  ends: Array<{ operation: Operation; pattern: number }>
}

const patternNode = (): PatternNode => ({ literals: new Map(), templates: new Map(), ends: [] })

/**
 * The operations' patterns in a tree of segments, and the lookup of the ones a route key or a
 * request path may fit (`fit` then scores them): fitting each route to every operation took
 * time in routes times operations (8,000 operations: seconds).
 */
export function patternIndex(operations: readonly Operation[]): (route: string[]) => Array<{ operation: Operation; pattern: number }> {
  const root = patternNode()
  const child = (children: Map<string, PatternNode>, key: string) => {
    let next = children.get(key)
    if (!next) children.set(key, (next = patternNode()))
    return next
  }
  for (const operation of operations) {
    operation.patterns.forEach((pattern, index) => {
      const end = { operation, pattern: index }
      let at = root
      pattern.forEach((segment, i) => {
        if (segment.includes('{}')) at = child(at.templates, segment)
        else {
          // The last segment may carry a format suffix: `/users.json` is reached by `users` too.
          const bare = segment.replace(/\.[^.]+$/, '')
          if (i === pattern.length - 1 && bare !== segment) child(at.literals, segmentText(bare)).ends.push(end)
          at = child(at.literals, segmentText(segment))
        }
      })
      at.ends.push(end)
    })
  }
  const all = (node: PatternNode, out: Array<{ operation: Operation; pattern: number }>) => {
    out.push(...node.ends)
    for (const next of node.literals.values()) all(next, out)
    for (const next of node.templates.values()) all(next, out)
  }
  return (route) => {
    const wildcard = route[route.length - 1] === '*'
    const fixed = wildcard ? route.slice(0, -1) : route
    let nodes = [root]
    for (const segment of fixed) {
      const r = unescapeSegment(segment)
      const param = r === segment && r.startsWith(':')
      const next: PatternNode[] = []
      for (const node of nodes) {
        if (!param) {
          const literal = node.literals.get(segmentText(r))
          if (literal) next.push(literal)
        }
        next.push(...node.templates.values())
      }
      nodes = next
      if (nodes.length === 0) return []
    }
    const out: Array<{ operation: Operation; pattern: number }> = []
    for (const node of nodes) {
      if (wildcard) all(node, out)
      else out.push(...node.ends)
    }
    // A pattern is in the tree twice where its last segment has a format suffix.
    return [...new Set(out)]
  }
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
    if (fields.status) answer.statusPath = fields.status.path
    if (fields.url) {
      // A redirect is sent with its status when that is a 3xx, else with 302 (build-response.ts).
      answer.url = fields.url.value
      if (!isRedirectStatus(fields.status?.value)) {
        answer.status = 302
        answer.statusPath = fields.url.path
      }
    }
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

/**
 * The errors of a validation that are reported, for a value sent one way (a data file is an
 * answer): without the `required` errors of properties required only the other way
 * (requiredOnlyTheOtherWay), nor those of the `anyOf` a 3.0 `nullable` became, whose own branch's
 * errors say what is wrong. `mockyard check` and the validate option report the same.
 */
export function reportedErrors(api: OpenApiDocument, errors: readonly ErrorObject[] | null | undefined, side: 'request' | 'response', root?: string): ErrorObject[] {
  return (errors ?? []).filter((error) => {
    if (isObject(error.parentSchema) && NULLABLE_REWRITES.has(error.parentSchema) && (error.keyword === 'anyOf' || error.keyword === 'type')) return false
    return !requiredOnlyTheOtherWay(api, error, side, root)
  })
}

/**
 * Whether a `required` error is for a property OpenAPI requires only the other way: a `readOnly`
 * property is required in answers, never in requests; a `writeOnly` one the reverse (one `User`
 * schema serves the POST body without `id` and the answer with it). The property is looked up
 * where the `required` list is and in the other parts of the `allOf` it belongs to
 * (`User: { allOf: [Entity, { required: [id, name] }] }` with `id` declared `readOnly` in `Entity`),
 * and, given the pointer of the schema validated (`root`), in every schema that applies at the
 * object's place in the value: a shared `Base: { required: [id] }` pulled into
 * `User: { allOf: [Base, { properties: { id: { readOnly: true } } }] }` is found from `User`.
 * Both `mockyard check` (data files are answers) and the validate option read it.
 */
export function requiredOnlyTheOtherWay(api: OpenApiDocument, error: ErrorObject, side: 'request' | 'response', root?: string): boolean {
  if (error.keyword !== 'required' || !isObject(error.parentSchema)) return false
  const name = String((error.params as { missingProperty?: unknown }).missingProperty)
  const flag = side === 'request' ? 'readOnly' : 'writeOnly'
  const { doc } = api
  // The outermost schema whose allOf holds the one with the `required` list.
  let top: Json = error.parentSchema
  for (let pointer = api.pointerOf(top); pointer !== undefined; ) {
    const part = /^(.*)\/allOf\/\d+$/.exec(pointer)
    const owner = part ? valueAt(doc, part[1]!) : undefined
    if (!isObject(owner) || !Array.isArray(owner.allOf)) break
    top = owner
    pointer = part![1]
  }
  const seen = new Set<unknown>()
  const flagged = (schema: unknown, depth: number): boolean => {
    schema = deref(doc, schema)
    if (!isObject(schema) || seen.has(schema) || depth > 20) return false
    seen.add(schema)
    if (schema[flag] === true) return true
    // `{ allOf: [{ $ref: Id }], readOnly: true }`, or a 3.0 `nullable` rewritten as anyOf.
    return ['allOf', 'anyOf'].some((key) => Array.isArray(schema[key]) && (schema[key] as unknown[]).some((part) => flagged(part, depth + 1)))
  }
  const declares = (schema: unknown, depth: number): boolean => {
    schema = deref(doc, schema)
    if (!isObject(schema) || depth > 20) return false
    const properties = deref(doc, schema.properties)
    if (isObject(properties) && has(properties, name) && flagged(properties[name], 0)) return true
    return Array.isArray(schema.allOf) && schema.allOf.some((part) => declares(part, depth + 1))
  }
  if (declares(top, 0)) return true
  if (root === undefined) return false
  return schemasAt(doc, valueAt(doc, root), error.instancePath).some((schema) => declares(schema, 0))
}

/** Schemas that apply together (a schema and its `allOf`/`anyOf`/`oneOf` parts, `$ref`s followed), each once. */
export function applying(doc: Json, schemas: unknown[]): Json[] {
  const out: Json[] = []
  const seen = new Set<unknown>()
  const add = (schema: unknown) => {
    schema = deref(doc, schema)
    if (!isObject(schema) || seen.has(schema) || out.length > 200) return
    seen.add(schema)
    out.push(schema)
    for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach(add)
  }
  schemas.forEach(add)
  return out
}

/** The schemas of a schema that apply at a place in the value it validates (an instance path, `/a/0/b`). */
function schemasAt(doc: Json, root: unknown, instancePath: string): Json[] {
  let here = applying(doc, [root])
  for (const raw of instancePath.split('/').slice(1)) {
    const step = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    const next: unknown[] = []
    for (const schema of here) {
      const properties = deref(doc, schema.properties)
      if (isObject(properties) && has(properties, step)) next.push(properties[step])
      if (/^\d+$/.test(step)) {
        const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
        if (prefix) next.push(prefix[Number(step)])
        else if (schema.items !== undefined) next.push(schema.items)
      }
      if (isObject(schema.additionalProperties)) next.push(schema.additionalProperties)
    }
    here = applying(doc, next)
    if (here.length === 0) break
  }
  return here
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
  const candidates = patternIndex(operations)
  const order = new Map(operations.map((operation, index) => [operation, index]))
  const mocked = new Set<Operation>()
  const entries: CheckEntry[] = []
  const seen = new Set<string>()
  const error = (entry: Omit<CheckEntry, 'severity'>) => {
    const id = JSON.stringify([entry.file, entry.pointer, entry.message, entry.schema])
    if (seen.has(id)) return
    seen.add(id)
    entries.push({ severity: 'error', ...entry })
  }
  const baseHint = Array.isArray(doc.servers) && doc.servers.length > 0 ? ` (the servers' base path: ${[...new Set((doc.servers as unknown[]).flatMap(basePathsOf))].join(', ')})` : ''
  /** The base paths the document's own servers give (an operation's servers replace them). */
  const docBases = new Set(serversOf(doc, {}, {}).flatMap((server) => basePathsOf(server).map(normalizePath)))

  for (const source of sources) {
    const ref = (path: Path) => `${source.file}#${toPointer(path)}`
    for (const [key, rawRoute] of Object.entries(source.routes)) {
      if (!isObject(rawRoute)) continue
      const route = rawRoute
      // OpenAPI describes no WebSocket: a route that answers only upgrades is not checked.
      if (has(route, 'websocket') && !METHOD_KEYS.some((m) => has(route, m)) && !has(route, 'file') && !has(route, 'url') && !has(route, 'status')) continue
      const segments = normalizePath(key).split('/').filter(Boolean)
      // The best-fitting paths of the document; their operations are the route's. Paths that
      // fit alike (`/a/{id}` and `/a/{name}`, which differ only by a parameter's name) are all
      // the route's, as init writes one route for them: each method is the first path's that has it.
      let best: { score: number; path: string } | undefined
      const scores = new Map<Operation, number>()
      for (const { operation, pattern } of candidates(segments)) {
        const score = fit(segments, operation.patterns[pattern]!)
        if (score === undefined) continue
        if (score > (scores.get(operation) ?? -1)) scores.set(operation, score)
        if (!best || score > best.score) best = { score, path: operation.path }
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
          if (docBases.has(normalizePath(base))) {
            // The document's servers give that base path, but the operation (or its path) has servers of its own.
            const own = serversOf(doc, fits.pathItem, fits.operation).map(basePathOf)
            const routeKey = [...normalizePath(own[0] ?? '').split('/').filter(Boolean), ...rest].join('/')
            prefixHint = `; it would match ${fits.path}, but ${fits.name} has servers of its own, which replace the document's: it is served under the base path ${own.map((b) => b || '/').join(', ')}, not ${base}`
            fix = `Write the route under the operation's base path ("${routeKey}") if the API is served there, or fix the operation's servers in the document.`
          } else {
            prefixHint = `; it would match ${fits.path} under the base path ${base}`
            fix = `Add a server with that base path to the document (servers: [{ url: "${base}" }]) if the API is served there, or fix the route.`
          }
        }
        error({ kind: 'no-operation', file: source.file, pointer: toPointer([key]), message: `no path of ${api.label} matches the route "${key}"${baseHint}${prefixHint}`, fix })
        continue
      }
      // In the document's order: the first path of a method is the route's.
      const atPath = [...scores].filter(([, score]) => score === best.score).map(([operation]) => operation).sort((a, b) => order.get(a)! - order.get(b)!)
      const byMethod = new Map<string, Operation>()
      for (const operation of atPath) if (!byMethod.has(operation.method)) byMethod.set(operation.method, operation)
      const bestPaths = [...new Set(atPath.map((o) => o.path))].join(' or ')
      const explicit = METHOD_KEYS.filter((m) => has(route, m))
      const byDefault = answersAlone(route) ? DEFAULT_METHODS.filter((m) => !has(route, m)) : []
      const pairs: Array<{ method: string; operation: Operation }> = []
      const declared = [...byMethod.keys()].map((m) => m.toUpperCase()).join(', ')
      for (const method of explicit) {
        const operation = byMethod.get(method) ?? (method === 'head' ? byMethod.get('get') : undefined)
        if (operation) pairs.push({ method, operation })
        else {
          error({ kind: 'no-operation', file: source.file, pointer: toPointer([key, method]), message: `${method.toUpperCase()} ${bestPaths} is not an operation of ${api.label} (it has ${declared})`, fix: `Add the operation to the document if the API has it, or remove "${method}" from the route.` })
        }
      }
      const documented = byDefault.filter((m) => byMethod.has(m))
      if (byDefault.length > 0 && documented.length === 0 && explicit.length === 0) {
        error({ kind: 'no-operation', file: source.file, pointer: toPointer([key]), message: `${bestPaths} of ${api.label} has none of the methods the route answers (it has ${declared})`, fix: 'Add the operations to the document, or give the route method keys for the methods the API has.' })
      }
      for (const method of documented) pairs.push({ method, operation: byMethod.get(method)! })

      for (const { method, operation } of pairs) {
        mocked.add(operation)
        const name = `${operation.method.toUpperCase()} ${operation.path}`
        // Statuses, content types and bodies.
        for (const answer of answersOf(route, key, method)) {
          if (answer.silent) continue
          const at = answer.statusPath ?? answer.filePath ?? answer.path
          const found = responseFor(doc, operation.operation, answer.status)
          if (!found) {
            const statuses = Object.keys(isObject(operation.operation.responses) ? operation.operation.responses : {}).join(', ')
            const fix = answer.url === undefined ? 'Declare the status in the document if the API answers it, or change the status in the routes file.' : 'Declare the redirect status in the document if the API answers it, or give the route a status the document declares (a redirect is sent with its status when that is a 3xx, else with 302).'
            error({ kind: 'status', file: source.file, pointer: toPointer(at), message: `${name} declares no response for status ${answer.status} (it declares ${statuses || 'none'})`, fix })
            continue
          }
          // A redirect has no body: its status is all there is to check (as validate does).
          if (answer.url !== undefined) continue
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
          // A data file is an answer: a required writeOnly property is not in it.
          for (const problem of reportedErrors(api, validate.errors, 'response', pointer)) {
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
          // Header names are case-insensitive.
          const inHeaders = new Set(queryParameters(doc, operation, 'header').map((h) => h.toLowerCase()))
          for (const param of Object.keys(entry.params)) {
            if (inQuery(param)) continue
            const readsBody = !QUERY_METHODS.has(method) && bodyHasKey(doc, operation.operation, param)
            const read = QUERY_METHODS.has(method) ? 'query string' : 'request body and query string'
            if (inPath.includes(param) && !readsBody) {
              // params read the query and the body, never the path (docs/behaviour.md, "Checking mocks").
              error({ kind: 'unknown-param', file: source.file, pointer: toPointer([...path, 'params', param]), message: `"${param}" is a path parameter of ${name}, and params conditions read the ${read}, never the path, so this condition is never met`, fix: `Give the value its own route instead (a key with the value in place of :${param}), or remove the condition.` })
            } else if (inHeaders.has(param.toLowerCase()) && !readsBody) {
              // A header is matched by the entry's `headers`, not by `params`.
              error({ kind: 'unknown-param', file: source.file, pointer: toPointer([...path, 'params', param]), message: `"${param}" is a header parameter of ${name}, and params conditions read the ${read}, never the headers, so this condition is never met`, fix: `Move it to the entry's headers conditions ("headers": { "${param}": … }), or remove the condition.` })
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
