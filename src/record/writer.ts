import { createHash, randomUUID } from 'node:crypto'
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { join, resolve } from 'node:path'
import { compileRoutes, methodOf, type CompiledMethod, type RouteTable } from '../core/compile-routes.js'
import { matchEntry } from '../core/match-entry.js'
import { textOf } from '../core/compile-condition.js'
import { isConditional, takesBodyParams } from '../core/routes-model.js'
import { ConfigError, formatMessage } from '../core/errors.js'
import { memoryFiles } from '../core/memory-files.js'
import { isFormBody, loadFormParser } from '../core/form-parser.js'
import { graphqlPartsOf, loadOperationScanner, OPERATION_PARAM, type GraphqlParts, type OperationScanner } from '../core/graphql-request.js'
import { BodyParseError, mediaType, parseBody, parseQuery } from '../core/parse-request.js'
import type { CloseEventConfig, EventConfig, RouteEntryConfig, RoutesConfig, SequenceItemConfig } from '../core/types.js'
import { validateRoutes } from '../core/validate-routes.js'
import { contentTypeOf } from '../core/build-response.js'
import { parseJsonFile } from '../config/load-config.js'
import { dropBody, HOP_BY_HOP, isSpooled, removeTemporaryFiles, SECRET_HEADERS, type RecordedExchange, type SpooledBody } from './exchange.js'

/** What the writer did with one exchange. */
export interface RecordResult {
  /** The route key the request belongs to. */
  route: string
  /** The request path for a log line, each segment holding a secret shown as `[redacted]`. */
  path?: string
  /** Lower-case method key (`get`, `post`, ...). */
  method: string
  /** The data file that holds the answer's body, if it has one. */
  file?: string
  /** The existing routes file already answers this request: nothing was written for it. */
  clash?: string
  /** Why nothing was recorded (OPTIONS, a sequence or variant cap reached). */
  skipped?: string
}

export interface RecordSummary {
  /** Requests handed to the writer. */
  requests: number
  /** Route keys written by the recorder. */
  routes: number
  /** Entries written (a method with one answer counts one). */
  entries: number
  /** Data files written. */
  files: number
  /** One line per clash with the existing routes file. */
  clashes: string[]
}

export interface RecordWriterOptions {
  /** Folder of `routes.json` and `data/`. */
  out: string
  /** Header, query and body field names (case-insensitive) whose values never reach the disk. */
  redact?: string[]
  /**
   * Write routes.json only on `flush()`, not after each exchange (data files are still written as
   * they come). `import` uses it: a 10,000-entry HAR rewrites routes.json once, not 10,000 times.
   */
  batch?: boolean
}

export interface RecordWriter {
  readonly routesFile: string
  readonly dataFolder: string
  /** Records one exchange and writes what changed (data file first, then routes.json, each atomically). */
  add(exchange: RecordedExchange): Promise<RecordResult>
  /** Writes routes.json if anything changed since the last write (needed with `batch`). */
  flush(): Promise<void>
  summary(): RecordSummary
}

type Scalar = string | number | boolean | null
type ParamValue = Scalar | string[]

interface Answer {
  status?: number
  file?: string
  url?: string
  responseHeader?: Record<string, string>
  /** A recorded `text/event-stream` answer, as events with their delays. */
  events?: Array<EventConfig | CloseEventConfig>
  /** The pace of a chunked answer whose pieces came over time. */
  stream?: { by: 'line' | number; delay: number }
}

interface Item {
  answer: Answer
  id: string
  repeat: number
}

/**
 * The answers one request got, in order, as runs of equal answers (A, A, B is `A*2, B`): `copies`
 * times the runs of `cycle`, then the runs of `rest`. A list that repeats (A, B, A, B) keeps one
 * cycle and a count, so polling an endpoint for hours costs no memory.
 */
interface Runs {
  cycle: Item[]
  /** 0 (no cycle yet, everything is in `rest`) or 2 and more. */
  copies: number
  /** The runs after the last whole cycle: while a cycle holds, the start of its next round. */
  rest: Item[]
}

/** One distinct request (method, path, every scored value) and the answers it got, in order. */
interface Variant {
  values: Map<string, ParamValue>
  /** The sequence written for it (`writtenItems(runs)`). */
  items: Item[]
  runs: Runs
}

const sameRun = (a: Item, b: Item) => a.id === b.id && a.repeat === b.repeat
const runsKey = (items: readonly Item[]) => items.map((item) => `${item.id}*${item.repeat}`).join('|')

/** `rest` is how a round of `cycle` starts: its runs, the last one possibly not as long yet. */
function startsRound(rest: readonly Item[], cycle: readonly Item[]): boolean {
  if (rest.length > cycle.length) return false
  return rest.every((item, i) => (i < rest.length - 1 ? sameRun(item, cycle[i]!) : item.id === cycle[i]!.id && item.repeat <= cycle[i]!.repeat))
}

/**
 * The runs after one more answer. A run grows when the answer is the last one again (at the end
 * of a whole cycle, that round is unfolded first: A, B, A, B then B is no longer two rounds).
 * Once the answers stop following the cycle, the whole list is unfolded; a list that is two or
 * more exact rounds of a shorter one becomes that cycle.
 */
function withAnswer(runs: Runs, item: Item): Runs {
  let copies = runs.copies
  let rest = runs.rest.map((run) => ({ ...run }))
  const last = rest[rest.length - 1] ?? (copies > 0 ? runs.cycle[runs.cycle.length - 1] : undefined)
  if (last !== undefined && last.id === item.id) {
    if (rest.length === 0) {
      copies--
      rest = runs.cycle.map((run) => ({ ...run }))
    }
    rest[rest.length - 1]!.repeat++
  } else rest.push({ ...item })
  if (copies > 0 && !startsRound(rest, runs.cycle)) {
    rest = [...Array.from({ length: copies }, () => runs.cycle.map((run) => ({ ...run }))).flat(), ...rest]
    copies = 0
  }
  if (copies > 0) {
    return rest.length === runs.cycle.length && rest.every((run, i) => sameRun(run, runs.cycle[i]!)) ? { cycle: runs.cycle, copies: copies + 1, rest: [] } : { cycle: runs.cycle, copies, rest }
  }
  // The shortest cycle the whole list is two or more exact rounds of.
  for (let period = 1; period <= rest.length / 2; period++) {
    if (rest.length % period === 0 && rest.every((run, i) => sameRun(run, rest[i % period]!))) return { cycle: rest.slice(0, period), copies: rest.length / period, rest: [] }
  }
  return { cycle: [], copies: 0, rest }
}

/**
 * The sequence to write: one cycle while every answer so far followed it (the mock starts over
 * after the last item too, so it replays them in the recorded order), else every run as it came.
 */
function writtenItems(runs: Runs): Item[] {
  return runs.copies > 0 ? runs.cycle : runs.rest
}

interface RecordedMethod {
  variants: Map<string, Variant>
  clash?: string
  built?: RouteEntryConfig | RouteEntryConfig[]
}

interface RecordedRoute {
  key: string
  methods: Map<string, RecordedMethod>
  /** Body hash -> data file name: one route's identical bodies share a file. */
  files: Map<string, string>
}

/** Bounds that keep the recorder's memory flat however long it runs. */
const MAX_VARIANTS = 500
const MAX_ITEMS = 50
const MAX_FIELDS = 200
const MAX_VALUE = 1000
const MAX_SECRETS = 1000
const REDACTED = '[redacted]'
const ABSENT = '\u0000absent'
/**
 * Query parameters that only defeat caches (jQuery's `_`, ExtJS's `_dc`, the usual timestamps):
 * their values differ on every request and never decide the answer, so they are never `params`.
 */
export const CACHE_BUSTERS = new Set(['_', '_t', '_ts', '__t', '_dc', 't', 'ts', 'timestamp', 'cb', 'cachebust', 'cachebuster', 'cache_bust', 'cache-bust', 'nocache', 'no_cache', 'nc', 'rnd'])
/** The statuses a routes file can hold (and the mock can answer): anything else is not written. */
const ANSWERABLE = (status: number) => Number.isInteger(status) && status >= 200 && status <= 599

/**
 * Creates a file that does not exist yet, in one open (`wx`): false when it exists. Batches use
 * it instead of `writeAtomic`: routes.json names the file only at the end, so a crash midway
 * leaves at worst a partial file no route uses (and a later run never overwrites it).
 */
function createExclusive(path: string, data: Uint8Array): boolean {
  try {
    writeFileSync(path, data, { flag: 'wx' })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** Writes a file atomically: a temporary file beside it (a name no other write uses), then a rename over it. */
export function writeAtomic(path: string, data: string | Uint8Array): void {
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`
  writeFileSync(temp, data)
  renameSync(temp, path)
}

/** A file-name stem from a route key: `v1/users/42` -> `v1-users-42`. */
function slug(key: string): string {
  const text = key
    .replace(/%[0-9a-f]{2}/gi, '-')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80)
  return text === '' ? 'index' : text
}

/**
 * The route key of a request path: no leading or trailing slash (`/` itself stays `/`). Recorded
 * paths are literal: a segment that would read as a parameter (`:name`) or a wildcard (`*`) is
 * escaped with a backslash. A segment that holds a secret becomes a parameter (`:redacted`), so
 * the secret is written nowhere and the mock still answers that path.
 */
function routeKeyOf(pathname: string, secrets: Set<string>): string {
  const key = pathname.replace(/^\/+|\/+$/g, '')
  if (key === '') return '/'
  let hidden = 0
  return key
    .split('/')
    .map((segment) => {
      if (holdsSecret(safeDecode(segment), secrets) || holdsSecret(segment, secrets)) return `:redacted${++hidden === 1 ? '' : hidden}`
      return segment.startsWith(':') || segment === '*' ? `\\${segment}` : segment
    })
    .join('/')
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** A secret (4 characters or more) occurs in the text. */
function holdsSecret(text: string, secrets: Set<string>): boolean {
  for (const secret of secrets) if (secret.length >= 4 && text.includes(secret)) return true
  return false
}

/**
 * Flattens a parsed body into the paths `params` score (`a.b`, `items[0].id`): scalars only,
 * bounded in number and length. Keys holding `.`, `[` or `]` below the top level are skipped
 * (a path could not name them).
 */
function flatten(tree: unknown, out: Map<string, ParamValue>, redact: Set<string>, secrets: Set<string>, prefix = '', depth = 0): void {
  if (out.size >= MAX_FIELDS || depth > 8) return
  if (Array.isArray(tree)) {
    tree.forEach((value, index) => flatten(value, out, redact, secrets, `${prefix}[${index}]`, depth + 1))
    return
  }
  if (tree !== null && typeof tree === 'object') {
    for (const [key, value] of Object.entries(tree)) {
      if (prefix !== '' && /[.[\]]/.test(key)) continue
      if (redact.has(key.toLowerCase())) {
        collectSecrets(value, secrets)
        continue
      }
      flatten(value, out, redact, secrets, prefix === '' ? key : `${prefix}.${key}`, depth + 1)
      if (out.size >= MAX_FIELDS) return
    }
    return
  }
  if (prefix === '') return
  if (typeof tree === 'string' && tree.length > MAX_VALUE) return
  out.set(prefix, tree as Scalar)
}

function collectSecrets(value: unknown, secrets: Set<string>): void {
  if (value === null || value === undefined) return
  if (typeof value === 'object') {
    for (const inner of Object.values(value)) collectSecrets(inner, secrets)
    return
  }
  secrets.add(String(value))
}

/** The secrets a header value carries: the whole value, a token after its scheme, cookie values. */
function headerSecrets(name: string, value: string, secrets: Set<string>): void {
  secrets.add(value)
  const lower = name.toLowerCase()
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const space = value.indexOf(' ')
    if (space > 0) secrets.add(value.slice(space + 1).trim())
  } else if (lower === 'cookie' || lower === 'set-cookie') {
    const pairs = lower === 'cookie' ? value.split(';') : [value.split(';')[0]!]
    for (const pair of pairs) {
      const eq = pair.indexOf('=')
      if (eq > 0) secrets.add(pair.slice(eq + 1).trim())
    }
  }
}

/** Replaces every secret (4 characters or more) in a text; JSON strings keep their quotes. */
function scrub(text: string, secrets: Set<string>): string {
  let result = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length < 4) continue
    result = result.split(secret).join(REDACTED)
    const encoded = encodeURIComponent(secret)
    if (encoded !== secret) result = result.split(encoded).join(REDACTED)
  }
  return result
}

/** The byte sequences to replace: each secret (4 characters or more) and its URL-encoded form, longest first. */
function needlesOf(secrets: Set<string>): Buffer[] {
  const needles = new Map<string, Buffer>()
  for (const secret of secrets) {
    if (secret.length < 4) continue
    for (const form of [secret, encodeURIComponent(secret)]) needles.set(form, Buffer.from(form))
  }
  return [...needles.values()].sort((a, b) => b.length - a.length)
}

const REDACTED_BYTES = Buffer.from(REDACTED)

/**
 * Replaces every needle in a body, whatever its type (JSON, NDJSON, YAML, binary...): a secret
 * echoed in any body never reaches the disk. UTF-8 is self-synchronising, so replacing bytes
 * never splits a character of text. The same bytes come back when nothing was found.
 */
function scrubBytes(bytes: Uint8Array, needles: Buffer[]): Uint8Array {
  let data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let changed = false
  for (const needle of needles) {
    let at = data.indexOf(needle)
    if (at === -1) continue
    const parts: Buffer[] = []
    let from = 0
    while (at !== -1) {
      parts.push(data.subarray(from, at), REDACTED_BYTES)
      from = at + needle.length
      at = data.indexOf(needle, from)
    }
    parts.push(data.subarray(from))
    data = Buffer.concat(parts)
    changed = true
  }
  return changed ? data : bytes
}

/** A spooled body after scrubbing: a new temporary file, its size and sha1. */
interface ScrubbedFile {
  path: string
  size: number
  hash: string
}

/**
 * Scrubs a spooled body as a stream into a new temporary file, hashing it on the way; the
 * original file is deleted. A window of the longest needle's length minus one is carried from
 * chunk to chunk, so a secret split across two chunks is found too.
 */
async function scrubFile(body: SpooledBody, needles: Buffer[]): Promise<ScrubbedFile> {
  const path = `${body.path}.clean.tmp`
  const hash = createHash('sha1')
  const keep = Math.max(0, ...needles.map((n) => n.length - 1))
  let carry: Buffer = Buffer.alloc(0)
  let size = 0
  const emit = (stream: Transform, chunk: Buffer) => {
    if (chunk.length === 0) return
    hash.update(chunk)
    size += chunk.length
    stream.push(chunk)
  }
  const scrubber = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const scrubbed = scrubBytes(carry.length === 0 ? chunk : Buffer.concat([carry, chunk]), needles)
      const data = Buffer.from(scrubbed.buffer, scrubbed.byteOffset, scrubbed.byteLength)
      const cut = Math.max(0, data.length - keep)
      carry = data.subarray(cut)
      emit(this, data.subarray(0, cut))
      done()
    },
    flush(done) {
      emit(this, carry)
      done()
    },
  })
  try {
    await pipeline(createReadStream(body.path, { highWaterMark: 1024 * 1024 }), scrubber, createWriteStream(path))
  } catch (error) {
    rmSync(path, { force: true })
    throw error
  } finally {
    rmSync(body.path, { force: true })
  }
  return { path, size, hash: hash.digest('hex') }
}

/** The sha1 of a file, read as a stream. */
async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha1')
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** The first bytes of a body, to tell whether it looks like JSON. */
function headOf(body: Uint8Array | SpooledBody): Uint8Array {
  if (!isSpooled(body)) return body.subarray(0, 64)
  const head = Buffer.alloc(64)
  const fd = openSync(body.path, 'r')
  try {
    return head.subarray(0, readSync(fd, head, 0, 64, 0))
  } finally {
    closeSync(fd)
  }
}

const sortedJson = (value: unknown) => JSON.stringify(value)

type ExtensionTable = { getExtension(type: string): string | null }
let extensionsLoading: Promise<ExtensionTable> | undefined
/** mime's full table (vendor types too), loaded with the first recorded answer: importing mockyard/node costs nothing for it. */
const extensionTable = (): Promise<ExtensionTable> => (extensionsLoading ??= import('mime').then((module) => module.default))

/**
 * Creates the writer that turns exchanges into mockyard's own routes.json and data files
 * (docs/behaviour.md, "Record, import and proxy"). An existing routes.json is merged: its keys
 * and entries stay as they are, and a request it already answers is reported as a clash.
 *
 * @example
 * const writer = createRecordWriter({ out: 'mocks', redact: ['apiKey'] })
 * await writer.add({ method: 'GET', url: 'http://api.test/v1/users', requestHeaders: [], requestBody: null,
 *   status: 200, responseHeaders: [['content-type', 'application/json']], responseBody: new TextEncoder().encode('[]') })
 * writer.summary() // { requests: 1, routes: 1, entries: 1, files: 1, clashes: [] }
 */
export function createRecordWriter(options: RecordWriterOptions): RecordWriter {
  const out = resolve(options.out)
  const routesFile = join(out, 'routes.json')
  const dataFolder = join(out, 'data')
  const redact = new Set((options.redact ?? []).map((name) => name.toLowerCase()))
  mkdirSync(dataFolder, { recursive: true })
  // A recorder killed mid-write (two Ctrl+C, a crash) left its temporary files: they are nobody's now.
  removeTemporaryFiles([out, dataFolder], 'dead')

  let base: RoutesConfig = {}
  if (existsSync(routesFile)) {
    const parsed = parseJsonFile(readFileSync(routesFile, 'utf8'), routesFile)
    if (parsed.problem) throw new ConfigError([parsed.problem])
    const { errors } = validateRoutes(parsed.value, routesFile)
    if (errors.length > 0) throw new ConfigError(errors)
    base = parsed.value as RoutesConfig
  }
  const baseTable: RouteTable = compileRoutes([{ file: routesFile, routes: base, files: memoryFiles({}) }])
  /** Base keys by their lookup form, so recorded methods join a hand-written route of the same path. */
  const baseKeys = new Map<string, string>()
  for (const key of Object.keys(base)) baseKeys.set(key.replace(/^\/+|\/+$/g, '').toLowerCase(), key)

  const routes = new Map<string, RecordedRoute>()
  const usedNames = new Set<string>()
  let requests = 0
  let filesWritten = 0
  const clashes: string[] = []
  const knownSecrets = new Set<string>()
  let queue: Promise<unknown> = Promise.resolve()
  let dirty = false

  /** The GraphQL document scanner, loaded with the first request that may be GraphQL. */
  let scanOperation: OperationScanner | undefined

  /**
   * The operation of a GraphQL request, or `undefined` when it is not one: a document that reads
   * as GraphQL (or a persisted query: an operationName with `extensions`), with an operation
   * name. A REST body `{"query":"shoes"}` is not GraphQL: its document has no operation.
   */
  async function operationOf(parts: GraphqlParts): Promise<string | undefined> {
    if (parts.document === undefined) return parts.view.extensions !== undefined ? parts.operationName : undefined
    scanOperation ??= await loadOperationScanner()
    const scanned = scanOperation(parts.document)
    if (scanned.name === undefined && !(scanned.why === 'anonymous' || /operations$/.test(scanned.why ?? ''))) return undefined
    return parts.operationName ?? scanned.name
  }

  /**
   * The values `params` can score for this request, redacted names left out. A GraphQL request
   * gives its operation (under `OPERATION_PARAM`) and its variables (`variables.id`) only: the
   * document is the operation's, not a condition (docs/behaviour.md, "GraphQL").
   */
  async function valuesOf(exchange: RecordedExchange, url: URL, secrets: Set<string>): Promise<Map<string, ParamValue>> {
    const values = new Map<string, ParamValue>()
    const method = exchange.method.toUpperCase()
    const query = parseQuery(url.search)
    let tree: unknown
    // The body's params only where the engine reads them (the routes model's rule).
    if (takesBodyParams(method)) {
      const type = exchange.requestHeaders.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? null
      const forms = isFormBody(type) ? await loadFormParser() : undefined
      try {
        tree = parseBody(exchange.requestBody, type, forms)
      } catch (error) {
        if (!(error instanceof BodyParseError)) throw error
      }
    }
    const parts = graphqlPartsOf(method, query, tree)
    const operation = parts && (await operationOf(parts))
    if (parts && operation !== undefined) {
      for (const [name, value] of query) if (redact.has(name.toLowerCase())) collectSecrets(value, secrets)
      if (parts.view.variables !== undefined) flatten({ variables: parts.view.variables }, values, redact, secrets)
      values.set(OPERATION_PARAM, operation)
      return values
    }
    if (tree !== undefined) flatten(tree, values, redact, secrets)
    for (const [name, value] of query) {
      if (redact.has(name.toLowerCase())) {
        collectSecrets(value, secrets)
        continue
      }
      if (CACHE_BUSTERS.has(name.toLowerCase())) continue
      if (values.has(name) || values.size >= MAX_FIELDS) continue
      if ((Array.isArray(value) ? value.join('') : value).length > MAX_VALUE) continue
      values.set(name, value)
    }
    return values
  }

  /**
   * A data file name for a body of this route, never one already taken by someone else. The
   * body is bytes or a scrubbed temporary file, which is renamed into place or deleted.
   */
  async function fileFor(route: RecordedRoute, method: string, body: Uint8Array | ScrubbedFile, type: string, mime: ExtensionTable, operation?: string): Promise<string> {
    const spooled = !(body instanceof Uint8Array)
    try {
      return await placeFile(route, method, body, type, mime, operation)
    } finally {
      if (spooled) rmSync(body.path, { force: true })
    }
  }

  async function placeFile(route: RecordedRoute, method: string, body: Uint8Array | ScrubbedFile, type: string, mime: ExtensionTable, operation?: string): Promise<string> {
    const bytes = body instanceof Uint8Array ? body : undefined
    const size = bytes ? bytes.byteLength : (body as ScrubbedFile).size
    const hash = bytes ? createHash('sha1').update(bytes).digest('hex') : (body as ScrubbedFile).hash
    const known = route.files.get(hash)
    if (known) return known
    const extension = (type && mime.getExtension(type)) || (/\+json$/.test(type) || (type === '' && looksLikeJson(bytes ?? headOf({ path: (body as ScrubbedFile).path, size }))) ? 'json' : /\+xml$/.test(type) ? 'xml' : 'bin')
    // `feed.xml` holds XML: `feed.xml`, not `feed.xml.xml`.
    const base = slug(route.key)
    // A GraphQL answer is named after its operation (`graphql-GetUser.json`), not its method.
    const suffix = operation !== undefined ? `-${slug(operation)}` : method === 'get' ? '' : `-${method}`
    const stem = (base.toLowerCase().endsWith(`.${extension}`) && base.length > extension.length + 1 ? base.slice(0, -extension.length - 1) : base) + suffix
    for (let n = 1; ; n++) {
      const name = `${stem}${n === 1 ? '' : `-${n}`}.${extension}`
      if (usedNames.has(name.toLowerCase())) continue
      const path = join(dataFolder, name)
      if (bytes && options.batch && createExclusive(path, bytes)) {
        filesWritten++
      } else if (existsSync(path)) {
        // A file of an earlier recording with these very bytes is reused; anything else is left alone.
        if (statSync(path).size !== size || (await hashFile(path)) !== hash) continue
      } else {
        if (bytes) writeAtomic(path, bytes)
        else renameSync((body as ScrubbedFile).path, path)
        filesWritten++
      }
      usedNames.add(name.toLowerCase())
      route.files.set(hash, name)
      return name
    }
  }

  async function answerOf(exchange: RecordedExchange, route: RecordedRoute, method: string, secrets: Set<string>, operation?: string): Promise<Answer> {
    const answer: Answer = {}
    if (exchange.status !== 200) answer.status = exchange.status
    const headers: Record<string, string> = {}
    let location: string | undefined
    let contentType = ''
    let encoding: string | undefined
    for (const [name, value] of exchange.responseHeaders) {
      const lower = name.toLowerCase()
      if (SECRET_HEADERS.has(lower) || redact.has(lower)) {
        headerSecrets(lower, value, secrets)
        continue
      }
      if (lower === 'content-type') contentType = value
      else if (lower === 'location') location = value
      // Only a body kept as it came (a coding the recorder could not undo) still has its
      // Content-Encoding: the mock sends it with those bytes, as the back end did.
      else if (lower === 'content-encoding') encoding = headers['Content-Encoding'] = value
      // X-Powered-By names the back end's framework (Express...): noise on every entry, not the API's.
      else if (lower === 'content-disposition' || (lower.startsWith('x-') && lower !== 'x-powered-by' && !HOP_BY_HOP.has(lower))) headers[name] = value
    }
    if (location !== undefined) {
      // The request as the back end saw it (the target's base path in front for `record`): a
      // relative or path-absolute Location is resolved against it, as the client resolves it.
      const asked = new URL(exchange.url)
      const requested = exchange.origin === undefined ? asked.href : exchange.origin + asked.pathname + asked.search
      location = ownPath(location, exchange.origin ?? asked.origin, requested)
      // A redirect can carry a secret in its query or fragment (an OAuth callback's `access_token=`).
      if (redact.size > 0) for (const [name, value] of locationParams(location)) if (redact.has(name.toLowerCase())) collectSecrets(value, secrets)
    }
    const type = mediaType(contentType)
    const body = exchange.responseBody
    const size = body === null || body === undefined ? 0 : isSpooled(body) ? body.size : body.byteLength
    const hasBody = body !== null && body !== undefined && size > 0 && exchange.status !== 204 && exchange.status !== 304 && method !== 'head'
    // A redirect that came with a typed body (Express sends text/plain "Found. Redirecting to
    // ...") keeps it: status, file and Location, as `url` would answer without a body
    // (docs/behaviour.md, "Record, import and proxy").
    const redirect = exchange.status >= 300 && exchange.status < 400 && location !== undefined && !(hasBody && type !== '')
    if (redirect) {
      answer.url = scrub(location!, secrets)
      if (exchange.status === 302) delete answer.status
    } else if (location !== undefined) headers['Location'] = location
    if (hasBody && !redirect && type === 'text/event-stream' && !isSpooled(body) && encoding === undefined) {
      // Server-Sent Events become `events`, each with the delay it came after (docs/behaviour.md, "Record, import and proxy").
      answer.events = recordedEvents(scrubBytes(body, needlesOf(secrets)), exchange.timing)
    } else if (hasBody && !redirect) {
      // JSON response fields named by --redact are secrets too (bodies held in memory: up to 8 MB).
      if (!isSpooled(body) && (type === 'application/json' || type.endsWith('+json') || (type === '' && looksLikeJson(body)))) collectJsonSecrets(new TextDecoder().decode(body), redact, secrets)
      // So are the form fields of a form-encoded answer (an OAuth token endpoint's `access_token=...`).
      else if (!isSpooled(body) && type === 'application/x-www-form-urlencoded' && redact.size > 0) {
        for (const [name, value] of new URLSearchParams(new TextDecoder().decode(body))) if (redact.has(name.toLowerCase())) collectSecrets(value, secrets)
      }
      const needles = needlesOf(secrets)
      const clean = isSpooled(body) ? await scrubFile(body, needles) : scrubBytes(body, needles)
      answer.file = await fileFor(route, method, clean, type, await extensionTable(), operation)
      // The mock types a file by its extension (text with charset=utf-8): keep the real type
      // where the two differ, the charset too (iso-8859-1 bytes served as UTF-8 read as mojibake).
      const served = await contentTypeOf(answer.file)
      if (type !== '' && (mediaType(served) !== type || !sameCharset(contentType, served))) headers['Content-Type'] = contentType
      const chunked = !exchange.responseHeaders.some(([name]) => name.toLowerCase() === 'content-length')
      const pace = chunked && !isSpooled(body) && encoding === undefined ? recordedPace(body, exchange.timing) : undefined
      if (pace) answer.stream = pace
    } else if (type !== '' && method === 'head') headers['Content-Type'] = contentType
    for (const name of Object.keys(headers)) headers[name] = scrub(headers[name]!, secrets)
    if (Object.keys(headers).length > 0) answer.responseHeader = headers
    return answer
  }

  async function record(exchange: RecordedExchange): Promise<RecordResult> {
    const note: { path?: string } = {}
    try {
      return { ...(await recordOne(exchange, note)), path: note.path }
    } finally {
      // A spooled body not moved into the data folder (skipped, redirect, HEAD...) goes.
      dropBody(exchange.responseBody)
    }
  }

  async function recordOne(exchange: RecordedExchange, note: { path?: string }): Promise<RecordResult> {
    requests++
    const url = new URL(exchange.url)
    // Secrets seen earlier in the session count too: a cookie set by one answer may show up in the next.
    const secrets = new Set<string>(knownSecrets)
    for (const [name, value] of exchange.requestHeaders) {
      const lower = name.toLowerCase()
      if (SECRET_HEADERS.has(lower) || redact.has(lower)) headerSecrets(lower, value, secrets)
    }
    for (const [name, value] of parseQuery(url.search)) if (redact.has(name.toLowerCase())) collectSecrets(value, secrets)
    const key = routeKeyOf(url.pathname, secrets)
    note.path = url.pathname
      .split('/')
      .map((segment) => (holdsSecret(safeDecode(segment), secrets) || holdsSecret(segment, secrets) ? REDACTED : segment))
      .join('/')
    const method = exchange.method.toLowerCase()
    if (method === 'options' || !['get', 'head', 'post', 'put', 'patch', 'delete'].includes(method)) {
      return { route: key, method, skipped: `${exchange.method} is not recorded (mockyard answers preflights itself)` }
    }
    if (!ANSWERABLE(exchange.status)) {
      // A routes file holds statuses 200 to 599 only: writing 999 (or 101) would break the folder for the next load.
      return { route: key, method, skipped: `status ${exchange.status} is not one a mock can answer (200 to 599)` }
    }
    if (exchange.status === 304) {
      // The answer to a conditional request (If-None-Match...): the client had the body already, and a mock
      // that replayed it would send 304 to clients that have nothing cached.
      return { route: key, method, skipped: '304 Not Modified answers a conditional request; request it without If-None-Match/If-Modified-Since to record the body' }
    }
    const normal = key === '/' ? '' : key.toLowerCase()
    let route = routes.get(normal)
    if (!route) {
      route = { key: baseKeys.get(normal) ?? key, methods: new Map(), files: new Map() }
      routes.set(normal, route)
    }
    let recorded = route.methods.get(method)
    if (!recorded) {
      recorded = { variants: new Map() }
      const found = baseTable.lookup(url.pathname)
      if (found && methodOf(found.route, method.toUpperCase())) {
        // A HEAD is answered by the route's `get` when it has no `head` key: that is the key to remove.
        const answering = method === 'head' && !found.route.methods.has('HEAD') ? 'get' : method
        recorded.clash = `${method.toUpperCase()} ${url.pathname}: recorded but not written, ${routesFile} already answers it (route "${found.route.key}"${answering === method ? '' : `, by its ${answering} key`}). Remove that route's ${answering} key to record it, or record into another --out`
        clashes.push(recorded.clash)
      }
      route.methods.set(method, recorded)
    }
    if (recorded.clash) return { route: route.key, method, clash: recorded.clash }

    const values = await valuesOf(exchange, url, secrets)
    for (const [name, value] of values) {
      const text = Array.isArray(value) ? value.join('\n') : String(value)
      for (const secret of secrets) if (secret.length >= 4 && text.includes(secret)) values.delete(name)
    }
    const signature = sortedJson([...values].map(([name, value]) => [name, scoredAs(value)]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    const operation = values.get(OPERATION_PARAM)
    const answer = await answerOf(exchange, route, method, secrets, typeof operation === 'string' ? operation : undefined)
    for (const secret of secrets) if (knownSecrets.size < MAX_SECRETS && secret.length >= 4) knownSecrets.add(secret)
    const id = JSON.stringify(answer)
    const done: RecordResult = { route: route.key, method, file: answer.file }
    let variant = recorded.variants.get(signature)
    if (!variant) {
      // A new request the entries written so far already answer this very way adds nothing
      // (a cache-busting parameter, a field that does not matter): keep neither it nor a line.
      // Every distinct request takes part in choosing the params (up to the bound): one the
      // entries already answer this way may still need telling apart once later requests come.
      if (recorded.variants.size >= MAX_VARIANTS) {
        // Past the bound, a request the entries already answer this very way adds nothing.
        recorded.built ??= buildMethod([...recorded.variants.values()])
        if (answeredAs(recorded.built, values) === id) return done
        return { ...done, skipped: `${route.key} ${method} has ${MAX_VARIANTS} variants already` }
      }
      variant = { values, items: [], runs: { cycle: [], copies: 0, rest: [] } }
      recorded.variants.set(signature, variant)
    }
    const next = withAnswer(variant.runs, { answer, id, repeat: 1 })
    const written = writtenItems(next)
    if (written.length > MAX_ITEMS) {
      return { ...done, skipped: `the sequence of ${route.key} ${method} has ${MAX_ITEMS} answers already` }
    }
    const unchanged = runsKey(written) === runsKey(variant.items)
    variant.runs = next
    variant.items = written
    // The same answers written as before (one answer polled again, a cycle going round): nothing to rebuild.
    if (unchanged) return done
    const before = recorded.built
    recorded.built = buildMethod([...recorded.variants.values()])
    if (before === undefined || JSON.stringify(before) !== JSON.stringify(recorded.built)) {
      dirty = true
      if (!options.batch) writeRoutes()
    }
    return done
  }

  function writeRoutes(): void {
    dirty = false
    const output: Record<string, unknown> = { ...(base as Record<string, unknown>) }
    for (const route of routes.values()) {
      const methods: Record<string, unknown> = {}
      for (const [method, recorded] of route.methods) {
        if (recorded.clash || recorded.variants.size === 0) continue
        recorded.built ??= buildMethod([...recorded.variants.values()])
        methods[method] = recorded.built
      }
      if (Object.keys(methods).length === 0) continue
      const existing = output[route.key]
      output[route.key] = existing && typeof existing === 'object' ? { ...existing, ...methods } : methods
    }
    writeAtomic(routesFile, JSON.stringify(output, null, 2) + '\n')
  }

  return {
    routesFile,
    dataFolder,
    add(exchange) {
      const result = queue.then(() => record(exchange))
      queue = result.catch(() => undefined)
      return result
    },
    async flush() {
      await queue
      if (dirty) writeRoutes()
    },
    summary() {
      let routeCount = 0
      let entries = 0
      for (const route of routes.values()) {
        let written = false
        for (const recorded of route.methods.values()) {
          if (recorded.clash || recorded.variants.size === 0) continue
          written = true
          recorded.built ??= buildMethod([...recorded.variants.values()])
          entries += Array.isArray(recorded.built) ? recorded.built.length : 1
        }
        if (written) routeCount++
      }
      return { requests, routes: routeCount, entries, files: filesWritten, clashes: [...clashes] }
    },
  }
}

/**
 * A `Location` on the back end's own origin (and base path) as a path: `http://api/v2/x` -> `/x`.
 * A relative one (`/v2/x`, `x`, `?page=2`) is resolved against the URL the back end was asked
 * first: with `--target http://api/v2`, its `/v2/x` is the mock's `/x`. One elsewhere is kept as written.
 */
function ownPath(location: string, origin: string, requested: string): string {
  const base = origin.replace(/\/+$/, '')
  let absolute = location
  if (!/^[a-z][a-z0-9+.-]*:/i.test(location)) {
    try {
      absolute = new URL(location, requested).href
    } catch {
      return location
    }
  }
  if (absolute === base) return '/'
  if (absolute.startsWith(base) && /^[/?#]/.test(absolute.slice(base.length))) {
    const rest = absolute.slice(base.length)
    return rest.startsWith('/') ? rest : '/' + rest
  }
  return location
}

/** The query and fragment parameters of a Location (`/cb?code=1#access_token=...`). */
function locationParams(location: string): Array<[string, string]> {
  const hash = location.indexOf('#')
  const query = location.indexOf('?')
  const search = query === -1 || (hash !== -1 && query > hash) ? '' : location.slice(query + 1, hash === -1 ? undefined : hash)
  const fragment = hash === -1 ? '' : location.slice(hash + 1)
  return [...new URLSearchParams(search), ...new URLSearchParams(fragment)]
}

/**
 * A recorded event stream as `events`: each block's `data` (JSON where the text is JSON written
 * the same way, so the replay sends the same line), `event`, `id` and `retry`, and the delay it
 * came after the one before (from the pieces' timing, when known). Comments and blocks without
 * data (heartbeats) are dropped. The back end ended the stream (a recording is written when the
 * answer is complete), so the list ends with `{ "close": true }`.
 */
export function recordedEvents(bytes: Uint8Array, timing?: ReadonlyArray<{ at: number; end: number }>): Array<EventConfig | CloseEventConfig> {
  const text = new TextDecoder().decode(bytes)
  const events: Array<EventConfig | CloseEventConfig> = []
  const separator = /(\r\n|\r|\n)(\r\n|\r|\n)/g
  let start = 0
  let byteEnd = 0
  let previousAt = 0
  for (let match = separator.exec(text); match !== null; match = separator.exec(text)) {
    const block = text.slice(start, match.index)
    byteEnd += Buffer.byteLength(text.slice(start, separator.lastIndex))
    start = separator.lastIndex
    const event = parseEventBlock(block)
    if (!event) continue
    const at = timing?.find((piece) => piece.end >= byteEnd)?.at
    if (at !== undefined) {
      if (at - previousAt > 0) event.delay = at - previousAt
      previousAt = at
    }
    events.push(event)
  }
  events.push({ close: true })
  return events
}

function parseEventBlock(block: string): EventConfig | undefined {
  const data: string[] = []
  const event: Omit<EventConfig, 'data'> = {}
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'data') data.push(value)
    else if (field === 'event') event.event = value
    else if (field === 'id') event.id = value
    else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value)
  }
  if (data.length === 0) return undefined
  const joined = data.join('\n')
  let value: unknown = joined
  try {
    const parsed = JSON.parse(joined) as unknown
    if (typeof parsed === 'object' && parsed !== null && JSON.stringify(parsed) === joined) value = parsed
  } catch {
    // Not JSON: the text as it came.
  }
  return { data: value, ...event }
}

/**
 * The pace of a chunked answer whose pieces came over time (at least three, 10 ms or more apart
 * on average), such that its replay takes about as long as the recording did: `by: "line"` when
 * each piece was one line, else the bytes of an even share of the body per piece, and the
 * recorded duration spread over the gaps the replay will have. A median piece size would not
 * do: one byte, 31 KB, one byte at 20 ms would replay one byte every 20 ms, over ten minutes.
 * `undefined` when the replay could not keep the recorded time (a body too short to cut).
 */
export function recordedPace(bytes: Uint8Array, timing?: ReadonlyArray<{ at: number; end: number }>): { by: 'line' | number; delay: number } | undefined {
  if (!timing || timing.length < 3) return undefined
  const total = timing[timing.length - 1]!.end
  const duration = timing[timing.length - 1]!.at - timing[0]!.at
  if (total === 0 || duration / (timing.length - 1) < 10) return undefined
  const oneLineEach = timing.every((piece, i) => {
    const from = i === 0 ? 0 : timing[i - 1]!.end
    const lines = bytes.subarray(from, piece.end).filter((byte) => byte === 10).length
    return lines === 1 && bytes[piece.end - 1] === 10
  })
  // The pieces the replay cuts: as many lines as pieces came, or even shares of the bytes.
  const by = oneLineEach ? 'line' : Math.ceil(total / timing.length)
  const pieces = by === 'line' ? timing.length : Math.ceil(total / by)
  if (pieces < 2) return undefined
  const delay = Math.round(duration / (pieces - 1))
  return delay < 1 ? undefined : { by, delay }
}

/** The `charset` parameter of a Content-Type, lower case, or `undefined`. */
function charsetOf(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase()
}

/**
 * The mock would send the charset the back end named: the same one, or none named at all, or
 * UTF-8 where the mock names none (JSON and XML are UTF-8 unless they say otherwise).
 */
function sameCharset(recorded: string, served: string): boolean {
  const charset = charsetOf(recorded)
  if (charset === undefined) return true
  const normal = (name: string) => name.replace(/[-_]/g, '')
  return normal(charset) === normal(charsetOf(served) ?? 'utf-8')
}

function looksLikeJson(bytes: Uint8Array): boolean {
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09)
  return first === 0x7b || first === 0x5b
}

function collectJsonSecrets(text: string, redact: Set<string>, secrets: Set<string>): void {
  if (redact.size === 0) return
  let tree: unknown
  try {
    tree = JSON.parse(text)
  } catch {
    return
  }
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      if (redact.has(key.toLowerCase())) collectSecrets(value, secrets)
      else walk(value)
    }
  }
  walk(tree)
}

/** The written entries of a method, compiled as the engine compiles them (once per `built`). */
const compiledEntries = new WeakMap<object, CompiledMethod | undefined>()

function compiledOf(built: RouteEntryConfig | RouteEntryConfig[]): CompiledMethod | undefined {
  if (!compiledEntries.has(built)) {
    const table = compileRoutes([{ file: '(recorded)', routes: { recorded: { get: built } } as RoutesConfig, files: memoryFiles({}) }])
    compiledEntries.set(built, table.routes[0]?.methods.get('GET'))
  }
  return compiledEntries.get(built)
}

/**
 * The answer the written entries give a request with these values: the entries compiled and
 * asked which one answers (the engine's own `matchEntry`), or `undefined` when that answer is a
 * sequence, several plain entries merged, or nothing.
 */
function answeredAs(built: RouteEntryConfig | RouteEntryConfig[], values: Map<string, ParamValue>): string | undefined {
  const compiled = compiledOf(built)
  if (!compiled) return undefined
  // Recorded values are keyed by their param key (a query name or a body path): looked up as a query.
  const operation = values.get(OPERATION_PARAM)
  const graphql = typeof operation === 'string' ? { operation } : undefined
  const candidate = matchEntry(compiled, { query: values as Map<string, string | string[]>, headers: NO_HEADERS, graphql })
  if (!candidate || candidate.sequence) return undefined
  const entries = Array.isArray(built) ? built : [built]
  let entry: RouteEntryConfig | undefined
  if (candidate.conditional) entry = Array.isArray(built) ? entries[Number(/\[(\d+)\]$/.exec(candidate.label)?.[1])] : built
  else {
    const plain = entries.filter((e) => !isConditional(e))
    entry = plain.length === 1 ? plain[0] : undefined
  }
  if (!entry || entry.response) return undefined
  const { params: _params, operation: _operation, ...answer } = entry
  return JSON.stringify(answer)
}

const NO_HEADERS = { get: () => null }

/** The answer part of an entry: one answer as it is, several as a `response` sequence. */
function answerEntry(items: Item[]): RouteEntryConfig {
  if (items.length === 1) return { ...items[0]!.answer }
  return {
    response: items.map((item): SequenceItemConfig => (item.repeat > 1 ? { ...item.answer, repeat: item.repeat } : { ...item.answer })),
  }
}

/**
 * A value as the scoring compares it (src/core/compile-condition.ts): scalars by their text
 * (`1`, `"1"`; `true`, `"true"`; `null`, `"null"`), repeated values as a set (`?tag=x&tag=y` is
 * `?tag=y&tag=x`). Requests the engine cannot tell apart are one request to the writer too:
 * two entries for them would answer both with the later one.
 */
function scoredAs(value: ParamValue): string {
  const texts = (Array.isArray(value) ? value : [value]).map((v) => textOf(v) ?? '')
  return JSON.stringify([...new Set(texts)].sort())
}

const projection = (variant: Variant, keys: readonly string[]) => keys.map((key) => (variant.values.has(key) ? scoredAs(variant.values.get(key)!) : ABSENT)).join('\u0001')

/**
 * The entries of one method. Variants that got the same answers need no conditions; otherwise
 * `params` keys that tell apart the variants with different answers are chosen greedily (the
 * key that separates the most pairs per entry it adds first), and each entry lists the values its
 * requests had for them. With every entry naming its request's own values, the engine's scoring
 * picks the right one for each recorded request (docs/behaviour.md, "Selecting the entry (scoring)").
 */
function buildMethod(variants: Variant[]): RouteEntryConfig | RouteEntryConfig[] {
  if (!variants.some((variant) => variant.values.has(OPERATION_PARAM))) return buildEntries(variants)
  // GraphQL: one group of entries per operation, each built on its own (variables as params only
  // where that operation's requests got different answers), after the method's other requests.
  const groups = new Map<string | undefined, Variant[]>()
  for (const variant of variants) {
    const operation = variant.values.get(OPERATION_PARAM)
    const key = typeof operation === 'string' ? operation : undefined
    const values = new Map(variant.values)
    values.delete(OPERATION_PARAM)
    let group = groups.get(key)
    if (!group) groups.set(key, (group = []))
    group.push({ values, items: variant.items, runs: variant.runs })
  }
  const entries: RouteEntryConfig[] = []
  const plain = groups.get(undefined)
  if (plain) entries.push(...[buildEntries(plain)].flat())
  for (const [operation, group] of groups) {
    if (operation === undefined) continue
    for (const entry of [buildEntries(group)].flat()) {
      const { params, ...answer } = entry
      entries.push(params && Object.keys(params).length > 0 ? { operation, params, ...answer } : { operation, ...answer })
    }
  }
  return entries
}

/** The entries of one method's requests (or one GraphQL operation's). */
function buildEntries(variants: Variant[]): RouteEntryConfig | RouteEntryConfig[] {
  const answerIds = variants.map((variant) => variant.items.map((item) => `${item.id}*${item.repeat}`).join('|'))
  if (new Set(answerIds).size === 1) return answerEntry(variants[0]!.items)
  const allKeys: string[] = []
  for (const variant of variants) for (const key of variant.values.keys()) if (!allKeys.includes(key)) allKeys.push(key)
  /** Pairs of variants with different answers that the keys cannot tell apart, and the entries the keys make. */
  const split = (keys: readonly string[]): { conflicts: number; groups: number } => {
    const groups = new Map<string, Map<string, number>>()
    variants.forEach((variant, index) => {
      const group = projection(variant, keys)
      let counts = groups.get(group)
      if (!counts) groups.set(group, (counts = new Map()))
      counts.set(answerIds[index]!, (counts.get(answerIds[index]!) ?? 0) + 1)
    })
    let total = 0
    for (const counts of groups.values()) {
      let n = 0
      let same = 0
      for (const count of counts.values()) {
        n += count
        same += count * count
      }
      total += (n * n - same) / 2
    }
    return { conflicts: total, groups: groups.size }
  }
  // Each step takes the key that resolves the most conflicting pairs per entry it adds: a
  // cache-busting parameter resolves every pair but makes one entry per request, so a key with
  // few values that decides the answer wins over it.
  const chosen: string[] = []
  let current = split(chosen)
  while (current.conflicts > 0) {
    let bestKey: string | undefined
    let bestSplit = current
    let bestScore = 0
    for (const key of allKeys) {
      if (chosen.includes(key)) continue
      const next = split([...chosen, key])
      if (next.conflicts >= current.conflicts) continue
      const score = (current.conflicts - next.conflicts) / (next.groups - current.groups + 1)
      if (score > bestScore || (score === bestScore && next.groups < bestSplit.groups)) {
        bestScore = score
        bestSplit = next
        bestKey = key
      }
    }
    if (bestKey === undefined) break
    chosen.push(bestKey)
    current = bestSplit
  }
  const entries = new Map<string, RouteEntryConfig>()
  for (const variant of variants) {
    const group = projection(variant, chosen)
    if (entries.has(group)) continue
    const params: Record<string, ParamValue> = {}
    for (const key of chosen) if (variant.values.has(key)) params[key] = variant.values.get(key)!
    entries.set(group, { params, ...answerEntry(variant.items) })
  }
  return [...entries.values()]
}
