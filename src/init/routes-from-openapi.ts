/**
 * The routes and data files `mockyard init --openapi` writes for an OpenAPI document
 * (docs/behaviour.md, "OpenAPI: mocks from a contract"): one route per path, the lowest 2xx
 * response as each method's default, every other documented response and named example an entry
 * chosen by the `Prefer` request header. A pure function of the document: the same document
 * gives the same routes and the same bytes.
 */
import type { RouteConfig, RouteEntryConfig } from '../core/types.js'
import { sampleSchema, type SampleContext } from './sample-schema.js'
import { basePathOf as serverBasePath, deref, serversOf } from '../check/check-openapi.js'
import { encodePathText } from '../core/compile-routes.js'
import { isRoutePath } from '../core/routes-model.js'
import { isTextType } from '../core/build-response.js'

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The operations mockyard can answer, in the routes file's method keys. */
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const
type Method = (typeof METHODS)[number]

/** What the generator writes: the routes, the data files by name, and what it left out, in words. */
export interface GeneratedMocks {
  /** Route key -> route: every value a route (a `RoutesConfig`, without the `$schema` key). */
  routes: Record<string, RouteConfig>
  /** Data file name (in the data folder) -> its text. */
  files: Map<string, string>
  /** Operations and responses not written, each with why (`OPTIONS /users: mockyard answers OPTIONS itself`). */
  skipped: string[]
  /** How many operations were written. */
  operations: number
}

/** One response of an operation, as the mock answers it. */
interface Answer {
  status: number
  /** The default body (or undefined for none) and the named examples, in the document's order. */
  body?: Body
  examples: Array<{ name: string; body: Body }>
  headers?: Record<string, string>
}

/** A body in the media type the mock serves: its text and the file extension and header that serve that type. */
interface Body {
  text: string
  extension: string
  contentType?: string
}

/** The base path of a server (`https://api.test/v1/` -> `/v1`), as `check` reads it, without a trailing slash. */
export function basePathOf(server: unknown): string {
  return serverBasePath(server).replace(/\/+$/, '')
}

/**
 * The route key of a document path under a base path: `/users/{id}` under `/api/v1` ->
 * `api/v1/users/:id`. A segment holding a template anywhere (`{name}.{ext}`) is one parameter,
 * named after its first template: routes match whole segments. A literal segment is written as
 * a request's path carries it, percent-encoded where the URL parser encodes (`/café` -> `caf%C3%A9`):
 * the route table compares the path as it arrives.
 */
export function routeKeyOf(base: string, path: string): string {
  const segments = `${base}/${path}`.split('/').filter(Boolean)
  const key = segments
    .map((segment) => {
      const template = /\{([^}]*)\}/.exec(segment)
      // RFC 6570's operator and explode mark (`{;id}`, `{.color}`, `{ids*}`, which documents write for matrix and label styles) are no part of the name.
      if (template) return `:${template[1]!.replace(/^[+#./;?&]/, '').replace(/\*$/, '').replace(/[^A-Za-z0-9_$-]/g, '_') || 'param'}`
      const literal = encodePathText(segment)
      return literal.startsWith(':') || literal === '*' ? `\\${literal}` : literal
    })
    .join('/')
  return key === '' ? '/' : key
}

/**
 * What tells paths apart for a route: the segments of base path and path, a template `{}`
 * whatever its name, the literal text around a template kept (`{id}:cancel` is not `{id}`), in
 * lower case. Paths of one shape share one route; a path whose key another shape already holds
 * would answer that path's requests, and is left out (generateMocks).
 */
function shapeOf(base: string, path: string): string {
  return `${base}/${path}`
    .split('/')
    .filter(Boolean)
    .map((segment) => encodePathText(segment.replace(/\{[^}]*\}/g, '\u0000')).replace(/%00/g, '{}'))
    .join('/')
    .toLowerCase()
}

/**
 * A route key as the route table tells keys apart: in any case, a parameter whatever its name
 * (`compare/:basehead` and `compare/:base` are one route, and requests reach only one of them).
 */
const routeShapeOf = (key: string) =>
  key
    .split('/')
    .map((segment) => (segment.startsWith(':') ? ':' : segment))
    .join('/')
    .toLowerCase()

/** Whether every template of a shape is a whole segment: its route key says all it says. */
const wholeSegments = (shape: string) => shape.split('/').every((segment) => segment === '{}' || !segment.includes('{}'))

/** A file-name stem: `api/v1/users/:id` -> `api-v1-users-id` (as `record` names its files). */
function slug(text: string): string {
  const stem = text
    .replace(/%[0-9a-f]{2}/gi, '-')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80)
  return stem === '' ? 'index' : stem
}

/** The status a response key stands for: `404` -> 404, `4XX` -> 400; undefined for what no mock can answer. */
function statusOf(key: string): number | undefined {
  if (/^[2-5]\d\d$/.test(key)) return Number(key)
  if (/^[2-5]xx$/i.test(key)) return Number(key[0]) * 100
  return undefined
}

/** The extensions of the media types a data file can carry by its name alone. */
const EXTENSIONS: Array<[RegExp, string, string]> = [
  [/^application\/json$/, '.json', 'application/json'],
  [/^text\/plain$/, '.txt', 'text/plain'],
  [/^text\/html$/, '.html', 'text/html'],
  [/^text\/csv$/, '.csv', 'text/csv'],
  [/^application\/xml$/, '.xml', 'application/xml'],
  [/^application\/(x-)?yaml$/, '.yaml', 'application/yaml'],
]

const isJsonType = (type: string) => /^application\/([^;]*\+)?json$/i.test(type) || type === '*/*' || type === 'application/*'

/**
 * Whether a body of the media type is text a schema can describe: what the engine serves as text
 * (`isTextType`: text, JSON, XML, scripts) and YAML; anything else is bytes.
 */
function describesText(mediaType: string): boolean {
  const type = mediaType.split(';')[0]!.trim().toLowerCase()
  return isJsonType(type) || isTextType(type) || /[/+](x-)?yaml$/.test(type)
}

/** The media type a response is mocked in: JSON first (`application/json`, then `+json`), then text, then the first. */
function chooseMedia(content: Json): string | undefined {
  const types = Object.keys(content)
  const bare = (type: string) => type.split(';')[0]!.trim().toLowerCase()
  return (
    types.find((t) => bare(t) === 'application/json') ??
    types.find((t) => isJsonType(bare(t))) ??
    types.find((t) => bare(t).startsWith('text/')) ??
    types[0]
  )
}

/** A value as the body of a media type: JSON written with two spaces, text as it is. */
function bodyOf(value: unknown, mediaType: string): Body | undefined {
  const type = mediaType.split(';')[0]!.trim().toLowerCase()
  if (isJsonType(type)) {
    const text = JSON.stringify(value, null, 2)
    if (text === undefined) return undefined
    return { text: text + '\n', extension: '.json', contentType: type === 'application/json' || type.includes('*') ? undefined : mediaType }
  }
  // A value made for another type (XML, a form, binary) would be JSON in disguise: no body rather than a wrong one.
  if (typeof value !== 'string') return undefined
  const text = value
  const known = EXTENSIONS.find(([pattern]) => pattern.test(type))
  if (known) return { text, extension: known[1], contentType: known[2] === type ? undefined : mediaType }
  return { text, extension: '.txt', contentType: mediaType }
}

/** Named examples of a media object (`examples`), their `$ref`s followed; external ones are left out. */
function namedExamples(doc: Json, media: Json): Array<{ name: string; value: unknown }> {
  if (!isObject(media.examples)) return []
  const out: Array<{ name: string; value: unknown }> = []
  for (const [name, raw] of Object.entries(media.examples)) {
    const example = deref(doc, raw)
    if (isObject(example) && 'value' in example) out.push({ name, value: example.value })
  }
  return out
}

/**
 * An example written as JSON text (a YAML block string) for a JSON media type whose schema is not
 * a string: the value the text holds, which is what the API sends.
 */
function jsonTextParsed(value: unknown, mediaType: string, schema: unknown): unknown {
  if (typeof value !== 'string' || !isJsonType(mediaType.split(';')[0]!.trim().toLowerCase()) || !/^\s*[[{]/.test(value)) return value
  if (isObject(schema) && (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string')))) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/** A header value from its documented example or schema. */
function headerValue(doc: Json, header: Json, ctx: SampleContext): string | undefined {
  const schema = deref(doc, header.schema)
  const named = isObject(header.examples) ? Object.values(header.examples).map((e) => deref(doc, e)).find((e) => isObject(e) && 'value' in e) : undefined
  const value = header.example !== undefined ? header.example : isObject(named) ? named.value : schema !== undefined ? sampleSchema(schema, ctx) : undefined
  if (value === undefined || value === null) return undefined
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** Headers a mock never sets itself: the server frames the body and decides its type from the file. */
const NOT_SET = new Set(['content-type', 'content-length', 'transfer-encoding', 'connection'])

/** A response as the mock answers it: the body of its examples or its schema, and its documented headers. */
function answerOf(doc: Json, response: Json, status: number, method: Method, ctx: SampleContext, skip: (why: string) => void = () => {}): Answer {
  const answer: Answer = { status, examples: [] }
  if (isObject(response.headers)) {
    const headers: Record<string, string> = {}
    for (const [name, raw] of Object.entries(response.headers)) {
      const header = deref(doc, raw)
      if (!isObject(header) || NOT_SET.has(name.toLowerCase())) continue
      const value = headerValue(doc, header, ctx)
      if (value !== undefined) headers[name] = value
    }
    if (Object.keys(headers).length > 0) answer.headers = headers
  }
  // HEAD has no body; 204 and 304 answer with none.
  if (method === 'head' || status === 204 || status === 304 || !isObject(response.content)) return answer
  const mediaType = chooseMedia(response.content)
  const media = mediaType ? deref(doc, response.content[mediaType]) : undefined
  if (!mediaType || !isObject(media)) return answer
  const named = namedExamples(doc, media)
  for (const { name, value } of named) {
    const body = bodyOf(jsonTextParsed(value, mediaType, deref(doc, media.schema)), mediaType)
    if (body) answer.examples.push({ name, body })
  }
  let value: unknown
  let fromSchema = false
  if (media.example !== undefined) value = media.example
  else if (named.length > 0) value = named[0]!.value
  // A list of examples is not what OpenAPI defines, but documents have them: the first one.
  else if (Array.isArray(media.examples) && media.examples.length > 0) value = media.examples[0]
  // A schema's sample of bytes (`format: binary`, an image, a PDF) would be its placeholder text: no body.
  else if (media.schema !== undefined && describesText(mediaType)) {
    value = sampleSchema(media.schema, ctx)
    fromSchema = true
  }
  if (value !== undefined) answer.body = bodyOf(jsonTextParsed(value, mediaType, deref(doc, media.schema)), mediaType)
  // Served as a 200 with no body and no Content-Type: said, so that the gap is not found in a test.
  if (answer.body === undefined) {
    const why = value === undefined || fromSchema ? 'it has no example, and init makes bodies of JSON or text only from a schema' : 'its example is not text, and a value is never sent as that type'
    skip(`response ${status}: its body (${mediaType}), as ${why}; the mock answers ${status} without a body or Content-Type. Add an example of the body to the document (content: ${mediaType}: example:) to serve one`)
  }
  return answer
}

/**
 * The answers of an operation: the default first (the lowest 2xx; else `default` as 200; else the
 * lowest documented status), then the others by status. `default` beside other responses stands
 * for 500 when 500 itself is not documented. 1xx responses cannot be mocked and are left out.
 */
function answersOf(doc: Json, operation: Json, method: Method, ctx: SampleContext, skip: (why: string) => void): Answer[] {
  const responses = isObject(operation.responses) ? operation.responses : {}
  const byStatus = new Map<number, Json>()
  const exact = Object.keys(responses).filter((key) => /^\d+$/.test(key))
  const ranges = Object.keys(responses).filter((key) => /^\dxx$/i.test(key))
  for (const key of [...exact, ...ranges]) {
    const status = statusOf(key)
    const response = deref(doc, responses[key])
    if (status === undefined) skip(`response ${key}: mockyard answers statuses 200 to 599`)
    else if (isObject(response) && !byStatus.has(status)) byStatus.set(status, response)
  }
  const fallback = deref(doc, responses.default)
  const statuses = [...byStatus.keys()].sort((a, b) => a - b)
  let first = statuses.find((s) => s >= 200 && s < 300)
  if (first === undefined && isObject(fallback)) {
    first = 200
    byStatus.set(200, fallback)
  } else if (isObject(fallback) && !byStatus.has(500)) byStatus.set(500, fallback)
  first ??= statuses[0]
  if (first === undefined) return []
  const order = [first, ...[...byStatus.keys()].filter((s) => s !== first).sort((a, b) => a - b)]
  return order.map((status) => answerOf(doc, byStatus.get(status)!, status, method, ctx, skip))
}

/** A regular expression escaped to match a text literally. */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** One `Prefer` token (`code=404`, `example=gone`) anywhere in the header, as a whole token. */
function preferToken(name: string, value: string): string {
  return `(^|[,;\\s])${name}=${escapeRegExp(value)}([,;\\s]|$)`
}

/** The `headers` condition matching a `Prefer` header that holds every token given, in any order. */
function preferCondition(tokens: Array<[string, string]>): RouteEntryConfig['headers'] {
  const pattern = tokens.length === 1 ? preferToken(...tokens[0]!) : `^${tokens.map(([name, value]) => `(?=.*${preferToken(name, value)})`).join('')}`
  return { Prefer: { pattern } }
}

/**
 * The entries of one operation: the default, then (in this order, since the later entry wins a
 * tie) `Prefer: example=<name>` alone, `Prefer: code=<status>`, and both together. With
 * `Prefer: code=404, example=never` all three match with one hit each, and the last, both
 * together, wins; `code=404` with an example of another status answers the 404's first example.
 * Entries that would answer what another already answers are left out: the default's own first
 * example, `code=<default status>` when no example belongs to another status, and both together
 * where no later entry would match too (a status's first example, which its `code` entry
 * answers; the default status's examples when it has no `code` entry).
 */
function entriesOf(answers: Answer[], fileOf: (answer: Answer, body: Body, example?: string) => string): RouteEntryConfig[] {
  const base = (answer: Answer, body: Body | undefined, example?: string): RouteEntryConfig => {
    const entry: RouteEntryConfig = {}
    if (body) entry.file = fileOf(answer, body, example)
    if (answer.status !== 200 || !body) entry.status = answer.status
    const headers = { ...answer.headers }
    if (body?.contentType) headers['Content-Type'] = body.contentType
    if (Object.keys(headers).length > 0) entry.responseHeaders = headers
    return entry
  }
  const [first, ...others] = answers as [Answer, ...Answer[]]
  const entries: RouteEntryConfig[] = [base(first, first.body, first.examples[0]?.name)]
  /** The answer each example name's own entry gives (the lowest status that names it). */
  const owner = new Map<string, Answer>()
  let elsewhere = false
  for (const answer of answers) {
    for (const { name, body } of answer.examples) {
      if (owner.has(name)) continue
      owner.set(name, answer)
      if (answer !== first) elsewhere = true
      // The default already answers it: with no entry for it, every entry is out and the default answers.
      else if (body.text === first.body?.text) continue
      entries.push({ ...base(answer, body, name), headers: preferCondition([['example', name]]) })
    }
  }
  const coded = elsewhere ? answers : others
  for (const answer of coded) entries.push({ ...base(answer, answer.body, answer.examples[0]?.name), headers: preferCondition([['code', String(answer.status)]]) })
  for (const answer of answers) {
    for (const { name, body } of answer.examples.slice(1)) {
      // Needed where a later entry also matches: the status's code entry, or the name's own entry is another status's.
      if (!coded.includes(answer) && owner.get(name) === answer) continue
      entries.push({ ...base(answer, body, name), headers: preferCondition([['code', String(answer.status)], ['example', name]]) })
    }
  }
  return entries
}

/** A method's config: a file name alone when that is all it answers, else its entries. */
function methodConfig(entries: RouteEntryConfig[]): RouteConfig[Method] {
  if (entries.length > 1) return entries
  const [only] = entries
  const keys = Object.keys(only!)
  return keys.length === 1 && keys[0] === 'file' ? only!.file : only
}

/**
 * Routes and data files from a bundled OpenAPI document (every `$ref` internal).
 *
 * @example
 * const { routes, files } = generateMocks({ doc }) // routes['api/v1/users/:id'].get ...
 */
export function generateMocks(ctx: SampleContext): GeneratedMocks {
  const { doc } = ctx
  const routes: Record<string, RouteConfig> = {}
  const files = new Map<string, string>()
  const skipped: string[] = []
  let operations = 0
  const paths = isObject(doc.paths) ? doc.paths : {}
  /** Each operation mockyard answers, with the route key and shape its servers give it (its own, its path item's, the document's). */
  const planned: Array<{ path: string; method: Method; operation: Json; written: string; shape: string }> = []
  for (const [path, rawItem] of Object.entries(paths)) {
    const pathItem = deref(doc, rawItem)
    if (!isObject(pathItem)) continue
    for (const other of ['options', 'trace']) {
      if (isObject(pathItem[other])) skipped.push(`${other.toUpperCase()} ${path}: mockyard does not mock ${other.toUpperCase()} (it answers preflights itself)`)
    }
    for (const method of METHODS) {
      const operation = deref(doc, pathItem[method])
      if (!isObject(operation)) continue
      const base = basePathOf(serversOf(doc, pathItem, operation)[0])
      const written = routeKeyOf(base, path)
      // A path no route key can hold (a space, `?`, `#`) would make a routes file that does not load.
      if (!isRoutePath(path.replace(/\{[^}]*\}/g, '')) || !isRoutePath(written)) {
        const why = `${path}: no route key can hold its path (it has a space, "?" or "#")`
        if (!skipped.includes(why)) skipped.push(why)
        continue
      }
      planned.push({ path, method, operation, written, shape: shapeOf(base, path) })
    }
  }
  /** Route key shape -> the key written: paths that only rename a parameter share a route (the first one's key). */
  const keys = new Map<string, string>()
  /**
   * Route key (any case) -> the shape whose route it is, and its path. Where shapes differ only
   * by text beside a template (`/operations/{id}` and `/operations/{id}:cancel` are both
   * `operations/:id`), the route is the one whose templates are whole segments, else the first.
   */
  const owners = new Map<string, { shape: string; path: string; key: string }>()
  for (const { path, written, shape } of planned) {
    const key = keys.get(shape) ?? written
    keys.set(shape, key)
    const owner = owners.get(routeShapeOf(key))
    if (!owner || (!wholeSegments(owner.shape) && wholeSegments(shape))) owners.set(routeShapeOf(key), { shape, path, key })
  }
  for (const { path, method, operation, shape } of planned) {
    const name = `${method.toUpperCase()} ${path}`
    const key = keys.get(shape)!
    const owner = owners.get(routeShapeOf(key))!
    if (owner.shape !== shape) {
      // `compare/:base` (of `/compare/{base}...{head}`) is `compare/:basehead` to the router.
      const same = owner.key === key ? '' : `, which the router takes as ${owner.key}`
      skipped.push(`${name}: its route would be ${key}${same}, the route of ${owner.path} (a route key's parameter is a whole segment, so text beside a template cannot tell the paths apart)`)
      continue
    }
    const route = (routes[key] ??= {})
    if (route[method] !== undefined) {
      skipped.push(`${name}: the route ${key} already mocks ${method.toUpperCase()} for another path of the same shape`)
      continue
    }
    const answers = answersOf(doc, operation, method, ctx, (why) => skipped.push(`${name} ${why}`))
    if (answers.length === 0) {
      skipped.push(`${name}: it documents no response`)
      continue
    }
    operations++
    // Identical bodies of one route share one file, as `record` writes them.
    const stem = slug(key) + (method === 'get' ? '' : `-${method}`)
    const fileOf = (answer: Answer, body: Body, example?: string) => {
      const wanted = `${stem}${answer === answers[0] ? '' : `-${answer.status}`}${example && example !== answer.examples[0]?.name ? `-${slug(example)}` : ''}`
      for (let n = 1; ; n++) {
        const candidate = `${wanted}${n === 1 ? '' : `-${n}`}${body.extension}`
        const existing = files.get(candidate)
        if (existing === undefined) {
          files.set(candidate, body.text)
          return candidate
        }
        if (existing === body.text) return candidate
      }
    }
    route[method] = methodConfig(entriesOf(answers, fileOf))
  }
  for (const [key, route] of Object.entries(routes)) if (Object.keys(route).length === 0) delete routes[key]
  return { routes, files, skipped, operations }
}
