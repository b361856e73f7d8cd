/** Reads the values that `params` conditions are scored against: query, JSON, forms. */
import type { FormParser } from './form-parser.js'

/** The request shape the engine works on: a Fetch `Request` fits, and so does a node adapter's. */
export interface EngineRequest {
  readonly method: string
  /** The absolute URL. */
  readonly url: string
  readonly headers: { get(name: string): string | null }
  /**
   * The whole body (`null` when there is none): the bytes themselves when the adapter has them
   * already (the listener's hot path), else a promise of them. Called at most once per request
   * by each reader; adapters read the body once. The bytes are not changed once handed over: the
   * engine may keep a short body to compare the next request's with (the same object is the same
   * body at once).
   */
  body(): Uint8Array | null | Promise<Uint8Array | null>
  /** The client's own abort signal, where the surface has one (a Fetch `Request`): it ends a streamed answer. */
  readonly signal?: AbortSignal
  /**
   * Where there is no such signal (the listener): aborts when the client's connection closes
   * before the answer is written. A latency ends then; read only by an answer with latency.
   */
  readonly left?: AbortSignal
}

/** A body mockyard could not read: answered with 400. */
export class BodyParseError extends Error {
  override name = 'BodyParseError'
  /** The status it is answered with. */
  readonly status: number = 400
}

/** The fields a form body may have (urlencoded or multipart): `qs`'s parameter limit, as Express's body parser. */
export const FORM_FIELD_LIMIT = 1000

/**
 * A form with more fields than `FORM_FIELD_LIMIT`: answered with 413 naming the limit (as
 * Express's body parser answers), never read cut short (docs/behaviour.md, "Requests on the wire").
 */
export class FormFieldLimitError extends BodyParseError {
  override name = 'FormFieldLimitError'
  override readonly status = 413
  readonly limit = FORM_FIELD_LIMIT
  constructor(kind: string) {
    super(`the ${kind} form has more than ${FORM_FIELD_LIMIT} fields, the most mockyard reads`)
  }
}

type Tree = Record<string, unknown>

/**
 * The options of every form parse: `qs`'s defaults (an index over 20 makes an object key,
 * depth 5, 1,000 parameters), with null-prototype objects so that no field name can reach
 * `Object.prototype` (docs/behaviour.md, "Requests on the wire").
 */
const FORM_OPTIONS = { plainObjects: true } as const
/** The same parse without nesting: each field under the name it was sent with. */
const FLAT_OPTIONS = { plainObjects: true, depth: 0 } as const

/** A form tree's fields under their names as sent (`a[b][2]`), built only when a lookup needs them. */
const FLAT_FIELDS = Symbol('mockyard.flatFields')
interface FormTree extends Tree {
  [FLAT_FIELDS]?: { text: string; forms: FormParser; flat?: Tree }
}

/**
 * Splits a parameter path into tokens: `a.b[2]` -> `a`, `b`, `2`; `items[0].id` -> `items`, `0`,
 * `id`; `a[b][c]` (form style) -> `a`, `b`, `c`; `a[]` -> `a`, `` (append).
 */
export function parsePath(path: string): string[] {
  const tokens: string[] = []
  const re = /([^.[\]]+)|\[([^\]]*)\]/g
  let match: RegExpExecArray | null
  while ((match = re.exec(path))) tokens.push(match[1] ?? match[2] ?? '')
  return tokens
}

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)

/**
 * Looks a path up in a parsed body: first as a path (`a.b[2]`), then as a literal name; in a
 * form body, a path with an array index last as the field name written with brackets
 * (`a[b][2]`), so that it still finds the field whose index `qs` compacted away (`a[b][2]=x`
 * alone is `a.b[0]` to qs).
 */
export function lookupPath(tree: unknown, tokens: readonly string[], literal: string): unknown {
  let node: unknown = tree
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') {
      node = undefined
      break
    }
    node = hasOwn(node, token) ? (node as Tree)[token] : undefined
    if (node === undefined) break
  }
  if (node !== undefined) return node
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) return undefined
  if (hasOwn(tree, literal)) return (tree as Tree)[literal]
  // Only an array index that qs compacted (within its depth of 5) is looked for by field name.
  const fields = (tree as FormTree)[FLAT_FIELDS]
  if (fields === undefined || tokens.length < 2 || tokens.length > 6 || !tokens.some((token, i) => i > 0 && /^\d+$/.test(token))) return undefined
  fields.flat ??= fields.forms.parse(fields.text, FLAT_OPTIONS) as Tree
  const name = tokens[0] + tokens.slice(1).map((token) => `[${token}]`).join('')
  return hasOwn(fields.flat, name) ? fields.flat[name] : undefined
}

/**
 * Parses `application/x-www-form-urlencoded` text into a tree, nesting brackets exactly as
 * `qs` does with its default limits: `a[b]=1` is `{ a: { b: "1" } }`, `a[0]=x` is
 * `{ a: ["x"] }`, `a[]=x` appends, a repeated plain name becomes an array, an index over 20
 * makes an object key, nesting stops at depth 5. More than 1,000 fields throw
 * `FormFieldLimitError` (counted as Express's body parser counts them: one more than the `&`s).
 * The work is bounded whatever the body holds.
 */
export function parseUrlEncoded(text: string, forms: FormParser): Tree {
  if (overFieldLimit(text)) throw new FormFieldLimitError('urlencoded')
  return formTree(text, forms)
}

/** Whether urlencoded text has more than `FORM_FIELD_LIMIT` fields; stops counting there. */
function overFieldLimit(text: string): boolean {
  let fields = 1
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
    if (++fields > FORM_FIELD_LIMIT) return true
  }
  return false
}

/** The tree `qs` makes of urlencoded text, with its flat fields at hand for `lookupPath`. */
function formTree(text: string, forms: FormParser): Tree {
  const tree = forms.parse(text, FORM_OPTIONS) as FormTree
  Object.defineProperty(tree, FLAT_FIELDS, { value: { text, forms }, enumerable: false })
  return tree
}

/** The media type of a content-type header, lower case, without parameters. */
export function mediaType(contentType: string | null): string {
  if (!contentType) return ''
  const semicolon = contentType.indexOf(';')
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase()
}

const textDecoder = new TextDecoder()

/**
 * Parses a request body by its content type: JSON, urlencoded or multipart. Other types are
 * not scored (`undefined`). A body that does not parse throws `BodyParseError`. Every body is
 * parsed at once (no promise), with work bounded by its size. A form body needs `forms`, the
 * parser `loadFormParser()` resolves with (loaded only when a body is a form: `isFormBody`).
 */
export function parseBody(bytes: Uint8Array | null, contentType: string | null, forms?: FormParser, remembered?: RememberedBodies): unknown {
  if (bytes === null || bytes.byteLength === 0) return undefined
  const type = mediaType(contentType)
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = textDecoder.decode(bytes)
    return remembered === undefined ? parseJson(text) : remembered.tree(text)
  }
  if (type === 'application/x-www-form-urlencoded') return parseUrlEncoded(textDecoder.decode(bytes), formsFor(forms))
  if (type === 'multipart/form-data') return parseMultipart(bytes, contentType!, formsFor(forms))
  return undefined
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new BodyParseError(`the JSON body does not parse: ${(cause as Error).message}`, { cause })
  }
}

/** The JSON bodies an engine remembers, and the longest it remembers (in characters): at most 128 KB of text per engine. */
const REMEMBERED_BODIES = 32
const REMEMBERED_BODY_LENGTH = 4096
/** A body seen once: the second time it is parsed and kept. */
const SEEN_ONCE = Symbol('seen once')

/** The trees of JSON bodies an engine has parsed, by their text (`rememberBodies`). */
export interface RememberedBodies {
  /** The tree of a JSON text: remembered, or parsed (throws `BodyParseError` when it does not parse). */
  tree(text: string): unknown
}

/**
 * What an engine remembers of the JSON bodies it parsed, as its GraphQL scanner remembers
 * documents: clients send the same short body again and again (retries, polling, one test run
 * many times, a load test), and parsing it is most of what choosing among body params costs
 * (bench/README.md, "Remembered JSON bodies"). A short body is kept the second time it comes, deep
 * frozen (matching only reads it), so a body sent once costs one lookup more and is never copied.
 */
export function rememberBodies(): RememberedBodies {
  const trees = new Map<string, unknown>()
  // The last body remembered, compared first: equal text is compared without hashing it.
  let lastText: string | undefined
  let lastTree: unknown
  return {
    tree(text) {
      if (text === lastText) return lastTree
      if (text.length > REMEMBERED_BODY_LENGTH) return parseJson(text)
      const known = trees.get(text)
      if (known !== undefined && known !== SEEN_ONCE) {
        lastText = text
        lastTree = known
        return known
      }
      const tree = parseJson(text)
      if (known === SEEN_ONCE) trees.set(text, deepFreeze(tree))
      else {
        if (trees.size >= REMEMBERED_BODIES) trees.clear()
        trees.set(text, SEEN_ONCE)
      }
      return tree
    },
  }
}

/** Freezes a JSON tree and everything in it. */
function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

/** The form parser, which a caller that reads form bodies must have loaded (`loadFormParser()`). */
function formsFor(forms: FormParser | undefined): FormParser {
  if (forms === undefined) throw new TypeError('mockyard: a form body needs the form parser: pass parseBody() the one loadFormParser() resolves with.')
  return forms
}

const parameterPattern = (name: string) => new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i')
const PARAMETERS = { name: parameterPattern('name'), filename: parameterPattern('filename'), boundary: parameterPattern('boundary') }

/** One parameter of a header value (`name="a"` in `form-data; name="a"`), unquoted. */
function headerParameter(value: string, name: 'name' | 'filename' | 'boundary'): string | undefined {
  const match = PARAMETERS[name].exec(value)
  if (!match) return undefined
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]
}

/**
 * Reads a `multipart/form-data` body into the tree its fields give (a file field holds the
 * file's name). The body is searched as text for its boundaries (ASCII survives any decoding);
 * a 1,001st part throws `FormFieldLimitError`, so the work is linear in the body's size
 * whatever the number of parts.
 */
function parseMultipart(bytes: Uint8Array, contentType: string, forms: FormParser): Tree {
  const boundary = headerParameter(contentType.slice(contentType.indexOf(';') + 1), 'boundary')
  if (!boundary) throw new BodyParseError('the multipart body does not parse: the content-type header has no boundary')
  const text = textDecoder.decode(bytes)
  const delimiter = `--${boundary}`
  const broken = (why: string) => new BodyParseError(`the multipart body does not parse: ${why}`)
  let position = text.startsWith(delimiter) ? 0 : text.indexOf(`\r\n${delimiter}`) + 2
  if (position === 1) throw broken(`no part starts with the boundary "${boundary.slice(0, 70)}"`)
  const parts: string[] = []
  for (;;) {
    position += delimiter.length
    if (text.startsWith('--', position)) break
    if (parts.length === FORM_FIELD_LIMIT) throw new FormFieldLimitError('multipart')
    const lineEnd = text.indexOf('\r\n', position)
    if (lineEnd === -1) throw broken('a boundary line does not end')
    const headersEnd = text.startsWith('\r\n', lineEnd + 2) ? lineEnd + 2 : text.indexOf('\r\n\r\n', lineEnd)
    if (headersEnd === -1) throw broken('the headers of a part do not end')
    const next = text.indexOf(`\r\n${delimiter}`, headersEnd + 4)
    if (next === -1) throw broken('a part does not end with the boundary')
    let disposition: string | undefined
    for (const line of text.slice(lineEnd + 2, headersEnd).split('\r\n')) {
      const colon = line.indexOf(':')
      if (colon !== -1 && line.slice(0, colon).trim().toLowerCase() === 'content-disposition') disposition = line.slice(colon + 1)
    }
    const name = disposition === undefined ? undefined : headerParameter(disposition, 'name')
    if (name === undefined) throw broken('a part has no content-disposition name')
    const filename = headerParameter(disposition!, 'filename')
    const value = filename ?? text.slice(headersEnd + 4, next)
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    position = next + 2
  }
  return formTree(parts.join('&'), forms)
}

/** Adds a query param: a repeated name collects its values in order (a function of the module, not a closure per query). */
function addParam(query: Map<string, string | string[]>, name: string, value: string): void {
  const existing = query.get(name)
  if (existing === undefined) query.set(name, value)
  else if (Array.isArray(existing)) existing.push(value)
  else query.set(name, [existing, value])
}

/**
 * The query string as name -> value (or values, when repeated). Names are literal. Read as
 * `URLSearchParams` reads it; a query with nothing to decode (no `%`, no `+`) is split by hand,
 * which gives the same pairs at a fraction of the cost (bench/README.md, "The request's URL, its query and the log's headers").
 */
export function parseQuery(search: string): Map<string, string | string[]> {
  const query = new Map<string, string | string[]>()
  if (search === '' || search === '?') return query
  if (search.includes('%') || search.includes('+')) {
    for (const [name, value] of new URLSearchParams(search)) addParam(query, name, value)
    return query
  }
  const length = search.length
  let start = search.charCodeAt(0) === 63 ? 1 : 0
  while (start < length) {
    let end = search.indexOf('&', start)
    if (end === -1) end = length
    if (end > start) {
      const equals = search.indexOf('=', start)
      if (equals === -1 || equals > end) addParam(query, search.slice(start, end), '')
      else addParam(query, search.slice(start, equals), search.slice(equals + 1, end))
    }
    start = end + 1
  }
  return query
}
