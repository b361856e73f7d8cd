/** Reads the values that `params` conditions are scored against: query, JSON, forms. */

/** The request shape the engine works on: a Fetch `Request` fits, and so does a node adapter's. */
export interface EngineRequest {
  readonly method: string
  /** The absolute URL. */
  readonly url: string
  readonly headers: { get(name: string): string | null }
  /** Reads the whole body once (`null` when there is none). */
  body(): Promise<Uint8Array | null>
}

/** A body mockyard could not read: answered with 400. */
export class BodyParseError extends Error {
  override name = 'BodyParseError'
}

type Tree = Record<string, unknown>

function createTree(): Tree {
  return Object.create(null) as Tree
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

/** Looks a path up in a parsed body: first as a path (`a.b[2]`), then as a literal name. */
export function lookupPath(tree: unknown, tokens: readonly string[], literal: string): unknown {
  let node: unknown = tree
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') {
      node = undefined
      break
    }
    node = Object.prototype.hasOwnProperty.call(node, token) ? (node as Tree)[token] : undefined
    if (node === undefined) break
  }
  if (node !== undefined) return node
  if (tree !== null && typeof tree === 'object' && !Array.isArray(tree) && Object.prototype.hasOwnProperty.call(tree, literal)) {
    return (tree as Tree)[literal]
  }
  return undefined
}

/**
 * Adds one form field to a tree the way `qs` nests brackets: `a[b]=1` is `{ a: { b: "1" } }`,
 * `a[0]=x` is `{ a: ["x"] }`, `a[]=x` appends, and a repeated plain name becomes an array.
 */
function addField(tree: Tree, name: string, value: string): void {
  const tokens = /^[^[\]]+(\[[^\]]*\])+$/.test(name) ? parsePath(name) : [name]
  let node: Tree | unknown[] = tree
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    const last = i === tokens.length - 1
    if (Array.isArray(node)) {
      const index = token === '' ? node.length : Number(token)
      if (last) {
        node[index] = value
        return
      }
      node[index] ??= /^\d*$/.test(tokens[i + 1]!) ? [] : createTree()
      node = node[index] as Tree | unknown[]
      continue
    }
    const existing = Object.prototype.hasOwnProperty.call(node, token) ? node[token] : undefined
    if (last) {
      if (existing === undefined) node[token] = value
      else if (Array.isArray(existing)) existing.push(value)
      else if (typeof existing === 'string') node[token] = [existing, value]
      return
    }
    if (existing === undefined || typeof existing !== 'object') {
      node[token] = /^\d*$/.test(tokens[i + 1]!) ? [] : createTree()
    }
    node = node[token] as Tree | unknown[]
  }
}

/** Parses `application/x-www-form-urlencoded` text into a qs-style tree. */
export function parseUrlEncoded(text: string): Tree {
  const tree = createTree()
  for (const [name, value] of new URLSearchParams(text)) addField(tree, name, value)
  return tree
}

/** Turns parsed multipart form data into a qs-style tree; a file field holds the file's name. */
export function formDataToTree(form: FormData): Tree {
  const tree = createTree()
  form.forEach((value, name) => {
    addField(tree, name, typeof value === 'string' ? value : (value as File).name)
  })
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
 * not scored (`undefined`). A body that does not parse throws `BodyParseError`.
 */
export async function parseBody(bytes: Uint8Array | null, contentType: string | null): Promise<unknown> {
  return parseBodyNow(bytes, contentType)
}

/** `parseBody` without a wait where none is needed: only a multipart body answers with a promise. */
export function parseBodyNow(bytes: Uint8Array | null, contentType: string | null): unknown {
  if (bytes === null || bytes.byteLength === 0) return undefined
  const type = mediaType(contentType)
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = textDecoder.decode(bytes)
    try {
      return JSON.parse(text)
    } catch (cause) {
      throw new BodyParseError(`the JSON body does not parse: ${(cause as Error).message}`, { cause })
    }
  }
  if (type === 'application/x-www-form-urlencoded') return parseUrlEncoded(textDecoder.decode(bytes))
  if (type === 'multipart/form-data') return parseMultipart(bytes, contentType!)
  return undefined
}

async function parseMultipart(bytes: Uint8Array, contentType: string): Promise<unknown> {
  try {
    const form = await new Response(bytes as BodyInit, { headers: { 'content-type': contentType } }).formData()
    return formDataToTree(form)
  } catch (cause) {
    throw new BodyParseError(`the multipart body does not parse: ${(cause as Error).message}`, { cause })
  }
}

/** The query string as name -> value (or values, when repeated). Names are literal. */
export function parseQuery(search: string): Map<string, string | string[]> {
  const query = new Map<string, string | string[]>()
  if (search.length <= 1) return query
  for (const [name, value] of new URLSearchParams(search)) {
    const existing = query.get(name)
    if (existing === undefined) query.set(name, value)
    else if (Array.isArray(existing)) existing.push(value)
    else query.set(name, [existing, value])
  }
  return query
}
