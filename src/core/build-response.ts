import type { EventsSpec, ResponseSpec, StreamSpec } from './compile-routes.js'
import { formatMessage } from './errors.js'
import { cutPieces, planEvents, timedBody, type TimedPieces } from './stream-body.js'
import type { FaultName, FileSource } from './types.js'

/** A response as plain data: adapters turn it into a Fetch `Response` or write it to a socket. */
export interface MockResponse {
  /** 0 with a `fault` other than `truncate`: nothing is sent. */
  status: number
  /** Lower-case header names. */
  headers: Record<string, string>
  /** `null` for an empty body; a stream for a body sent in timed pieces (`stream`, `events`). */
  body: Uint8Array | string | ReadableStream<Uint8Array> | null
  /** A streamed body's end: resolves when it ends, however it ends (sent, cancelled, reset, stop). */
  ended?: Promise<void>
  /**
   * A network fault each surface plays its own way (docs/behaviour.md, "Faults"): `reset`,
   * `close` and `hang` send nothing (status 0, no body); `truncate` sends the status, the headers
   * with the whole body's length, then half of the body.
   */
  fault?: FaultName
}

const textDecoder = new TextDecoder()

/**
 * What a `truncate` fault sends of a body (docs/behaviour.md, "Faults"): the whole body's bytes
 * (its `Content-Length`) and a copy of their first half; `undefined` when there is nothing to cut
 * (no body, an empty one, or a streamed one, which `streamedResponse` cuts itself: half of its
 * pieces on their schedule, then the connection ends).
 */
export function cutBody(body: MockResponse['body']): { whole: Uint8Array; half: Uint8Array } | undefined {
  if (body === null || body instanceof ReadableStream) return undefined
  const whole = typeof body === 'string' ? new TextEncoder().encode(body) : body
  if (whole.byteLength === 0) return undefined
  return { whole, half: whole.slice(0, Math.floor(whole.byteLength / 2)) }
}

type TypeTable = { getType(path: string): string | null }
const JSON_NAME = /\.json$/i
/** Newline-delimited JSON: one JSON value a line, what token streams and progress feeds send. */
const NDJSON_NAME = /\.(ndjson|jsonl)$/i
export const NDJSON_TYPE = 'application/x-ndjson'

/**
 * What an engine remembers about the data files it serves, kept per engine (no module state):
 * their content types, and which contents hold `${context}`.
 */
export interface FileTyping {
  /**
   * The content type of a data file, by its extension, from mime's standard table; JSON and text
   * types carry `charset=utf-8`. The table loads with the first name that is not `.json` (a
   * promise for that one call): most data files are JSON, and loading the table costs each
   * process, so each Vitest test file, several milliseconds (bench/README.md, "Per-file cost
   * under Vitest"); the module system loads it once for every engine.
   */
  typeOf(fileName: string): string | Promise<string>
  /**
   * Replaces `${context}` in a text file. The check is made once per file contents, so a file
   * without the variable is served as the very same bytes on every request (and
   * `source.context()`, which may take work to find, is not called).
   */
  withContext(bytes: Uint8Array, source: { context(): string }): Uint8Array | string
}

/**
 * @example
 * const typing = createFileTyping()
 * const type = await typing.typeOf('users.csv') // 'text/csv; charset=utf-8'
 */
export function createFileTyping(): FileTyping {
  let table: TypeTable | undefined
  let loading: Promise<TypeTable> | undefined
  const types = new Map<string, string>()
  /** Per file contents: its text when it holds `${context}`, else `false` (served byte for byte). */
  const texts = new WeakMap<Uint8Array, string | false>()
  const typing: FileTyping = {
    typeOf(fileName) {
      let type = types.get(fileName)
      if (type !== undefined) return type
      if (NDJSON_NAME.test(fileName)) type = NDJSON_TYPE
      else if (table === undefined) {
        if (!JSON_NAME.test(fileName)) {
          loading ??= import('mime/lite').then((module) => (table = module.default))
          return loading.then(() => typing.typeOf(fileName))
        }
        type = 'application/json'
      } else {
        type = table.getType(fileName) ?? 'application/octet-stream'
      }
      if (type === 'application/json' || type.startsWith('text/')) type = `${type}; charset=utf-8`
      if (types.size < 10_000) types.set(fileName, type)
      return type
    },
    withContext(bytes, source) {
      let text = texts.get(bytes)
      if (text === undefined) {
        const decoded = textDecoder.decode(bytes)
        text = decoded.includes(CONTEXT) ? decoded : false
        texts.set(bytes, text)
      }
      return text === false ? bytes : text.replaceAll(CONTEXT, source.context())
    },
  }
  return typing
}

/**
 * The content type of one data file (see `FileTyping.typeOf`), for readers that ask once per
 * file (the Vite plugin, the record writer, check); an engine keeps its own `FileTyping`.
 */
export function contentTypeOf(fileName: string): string | Promise<string> {
  return createFileTyping().typeOf(fileName)
}

/** Text files get `${context}` replaced: JSON, XML, HTML, plain text, CSV and the like. */
export function isTextType(contentType: string): boolean {
  return (
    contentType.startsWith('text/') ||
    contentType.startsWith('application/json') ||
    contentType.startsWith(NDJSON_TYPE) ||
    contentType.startsWith('application/xml') ||
    /\+(json|xml)\b/.test(contentType) ||
    contentType.startsWith('application/javascript')
  )
}

const CONTEXT = '${context}'
const CONTEXT_BYTES = new TextEncoder().encode(CONTEXT)

/** Whether a content type names a charset other than UTF-8 (`text/plain; charset=iso-8859-1`). */
function otherCharset(type: string): boolean {
  // Every request for a text file asks: the types mockyard itself gives answer without a regex.
  if (type.endsWith('charset=utf-8') || !type.includes('charset')) return false
  const charset = /;\s*charset\s*=\s*"?([^;"\s]+)/i.exec(type)?.[1]?.toLowerCase()
  return charset !== undefined && charset !== 'utf-8' && charset !== 'utf8'
}

/**
 * `${context}` replaced in the bytes themselves, for a file in another charset (Latin-1,
 * Shift_JIS): decoding it as UTF-8 would garble every other character it has. The variable is
 * ASCII, as it is in those charsets; the value is written as UTF-8 (an origin is ASCII).
 */
function bytesWithContext(bytes: Uint8Array, source: { context(): string }): Uint8Array {
  const at: number[] = []
  for (let index = bytes.indexOf(0x24); index !== -1 && index <= bytes.length - CONTEXT_BYTES.length; index = bytes.indexOf(0x24, index + 1)) {
    if (CONTEXT_BYTES.every((byte, offset) => bytes[index + offset] === byte)) at.push(index)
  }
  if (at.length === 0) return bytes
  const value = new TextEncoder().encode(source.context())
  const out = new Uint8Array(bytes.length + at.length * (value.length - CONTEXT_BYTES.length))
  let from = 0
  let to = 0
  for (const index of at) {
    out.set(bytes.subarray(from, index), to)
    to += index - from
    out.set(value, to)
    to += value.length
    from = index + CONTEXT_BYTES.length
  }
  out.set(bytes.subarray(from), to)
  return out
}

/** A JSON error body in mockyard's one shape: `{ error, message, ...details }`. */
export function errorResponse(status: number, error: string, message: string, details?: Record<string, unknown>): MockResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ error, message: formatMessage(message), ...details }),
  }
}

export function isRedirectStatus(status: number | undefined): status is number {
  return status !== undefined && status >= 300 && status < 400
}

/** Statuses that never carry a body. */
export function isEmptyStatus(status: number): boolean {
  return status === 204 || status === 205 || status === 304 || (status >= 100 && status < 200)
}

export interface BuildContext {
  /** What replaces `${context}` in text files: called only for a file or event that holds it. */
  context(): string
  /** `HEAD`: headers as for GET, no body. */
  head: boolean
  /** The answer has a `truncate` fault: a streamed body is cut (`streamedResponse`). */
  truncate?: boolean
  /** Where the answer came from, for the 404 of a missing file. */
  describe(): string
  /** The engine's content types and `${context}` checks (default: a fresh one). */
  typing?: FileTyping
  /** The request's `Last-Event-ID`: `events` resume after the event with that id. */
  lastEventId?(): string | null
  /** The session's lifetime, asked for only when a body streams: it ends the stream at reset and stop. */
  lifetime?: () => AbortSignal | undefined
  /** The client's own signal, where the surface has one (fetch in process): aborting it errors a streamed body. */
  signal?: AbortSignal
}

/**
 * Builds the response of a candidate: nothing but its fault when it has one other than
 * `truncate`, else a redirect when it has `url` (302 unless a 3xx status is
 * given), the file with its content type when it has `file`, or an empty body. 204 and 304
 * never carry a body. A missing file answers 404 JSON naming the file and the route.
 */
export function buildResponse(spec: ResponseSpec, context: BuildContext): MockResponse | Promise<MockResponse> {
  const headers: Record<string, string> = { ...spec.headers }
  // Nothing is sent: no file is read (a `truncate` cuts the answer built below: the engine marks it).
  if (spec.fault !== undefined && spec.fault !== 'truncate') return { status: 0, headers: {}, body: null, fault: spec.fault }
  if (spec.url !== undefined) {
    headers['location'] = encodeLocation(spec.url)
    return { status: isRedirectStatus(spec.status) ? spec.status : 302, headers, body: null }
  }
  const status = spec.status ?? 200
  if (spec.events && !isEmptyStatus(status)) return eventsResponse(status, headers, spec.events, context)
  const file = spec.file
  if (!file || isEmptyStatus(status)) return { status, headers, body: null }
  // A file already in memory is served without a wait: no promise on the hot path.
  const cached = file.source.readCached?.(file.name)
  if (cached !== undefined) return fileResponse(status, headers, file.name, cached, context, spec.stream)
  return file.source.read(file.name).then((bytes) => {
    if (bytes === undefined) return missingFile(file.name, file.source, context)
    return fileResponse(status, headers, file.name, bytes, context, spec.stream)
  })
}

/** What `encodeLocation` encodes: anything but the characters a URL holds as they are, and a `%` that starts no `%XX` escape. */
const LOCATION_ENCODED = /[^\x21\x23-\x3b\x3d\x3f-\x5f\x61-\x7a\x7c\x7e]+|%(?![0-9A-Fa-f]{2})/gu
/** With the `u` flag a pair is one character: this finds lone surrogates only. */
const LONE_SURROGATE = /[\ud800-\udfff]/gu

/**
 * A redirect's `url` as a `Location` header can carry it, encoded as the old server's Express
 * (`res.location`, the `encodeurl` package) encoded it: non-ASCII characters, spaces, controls
 * and `"<>\`{}` percent-encoded as UTF-8, `%XX` escapes already written kept, a lone surrogate
 * as U+FFFD. `http://example.com/café/a b?x=ü` -> `http://example.com/caf%C3%A9/a%20b?x=%C3%BC`.
 * Unencoded, a non-ASCII `url` made the listener answer 500 and msw throw (a header is Latin-1).
 */
function encodeLocation(url: string): string {
  return url.replace(LONE_SURROGATE, '\uFFFD').replace(LOCATION_ENCODED, (run) => encodeURI(run))
}

function missingFile(name: string, source: FileSource, context: BuildContext): MockResponse {
  return errorResponse(404, 'Not Found', `the file "${name}" of ${context.describe()} ${unservedFile(source, name)}`, { file: name })
}

/** A body sent in timed pieces: chunked on the wire, a `ReadableStream` in process and in the worker. */
function streamedResponse(status: number, headers: Record<string, string>, pieces: TimedPieces, keepOpen: boolean, context: BuildContext): MockResponse {
  // A `truncate` fault cuts a stream too: the first half of its pieces on their schedule, then the connection ends.
  const cut = context.truncate === true
  const sent: TimedPieces = cut ? { length: Math.floor(pieces.length / 2), at: (index) => (index < Math.floor(pieces.length / 2) ? pieces.at(index) : undefined) } : pieces
  const { stream, ended } = timedBody(sent, { keepOpen, lifetime: context.lifetime?.(), signal: context.signal, cut })
  return { status, headers, body: stream, ended }
}

/**
 * Server-Sent Events (docs/behaviour.md, "Streams and Server-Sent Events"): `text/event-stream`,
 * `Cache-Control: no-cache`, each event when due; `204` for the reconnect of a stream that ended
 * with `close: "stop"`. A list in a data file is read (and parsed) per request, as data files are.
 */
function eventsResponse(status: number, configured: Record<string, string>, events: EventsSpec, context: BuildContext): MockResponse | Promise<MockResponse> {
  const headers: Record<string, string> = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...configured }
  const answer = (list: readonly unknown[]): MockResponse => {
    const plan = planEvents(list, context.lastEventId?.() ?? null, context.context())
    if (plan.stop) {
      delete headers['content-type']
      return { status: 204, headers, body: null }
    }
    if (context.head) return { status, headers, body: null }
    return streamedResponse(status, headers, plan.pieces, plan.keepOpen, context)
  }
  if ('list' in events) return answer(events.list)
  const { name, source } = events.file
  const parsed = (bytes: Uint8Array | undefined): MockResponse => {
    if (bytes === undefined) return missingFile(name, source, context)
    let list: unknown
    try {
      list = JSON.parse(textDecoder.decode(bytes))
    } catch {
      list = undefined
    }
    if (!Array.isArray(list)) {
      return errorResponse(500, 'Internal Server Error', `the events file "${name}" of ${context.describe()} does not hold a JSON array of events. Write it as [ { "data": "..." } ]`, { file: name })
    }
    // A data file is not checked at load as a routes file is: an item that is no event is named here.
    const bad = list.findIndex((item) => typeof item !== 'object' || item === null || Array.isArray(item) || !('data' in item || 'close' in item))
    if (bad !== -1) {
      return errorResponse(500, 'Internal Server Error', `item ${bad} of the events file "${name}" of ${context.describe()} is not an event: ${JSON.stringify(list[bad])?.slice(0, 80)}. Write each item as { "data": ... } or { "close": true }`, { file: name, item: bad })
    }
    return answer(list)
  }
  const cached = source.readCached?.(name)
  return cached !== undefined ? parsed(cached) : source.read(name).then(parsed)
}

/**
 * Why a data file that reads as missing is not served, and what to do: it does not exist, or it is
 * a symlink leading out of its data folder (docs/behaviour.md, "Security").
 */
export function unservedFile(source: FileSource, name: string): string {
  if (source.leadsOutside?.(name)) return `is a symlink leading outside ${source.label}, and is not served. Copy the file into the data folder, or point the symlink at a file inside it`
  const close = source.closestName?.(name)
  return close
    ? `does not exist in ${source.label}; did you mean "${close}"? Fix the name in the route, or add the file`
    : `does not exist in ${source.label}. Add the file, or point the route at an existing one`
}

function fileResponse(status: number, headers: Record<string, string>, name: string, bytes: Uint8Array, context: BuildContext, stream?: StreamSpec): MockResponse | Promise<MockResponse> {
  const type = (headers['content-type'] as string | undefined) ?? (context.typing ?? createFileTyping()).typeOf(name)
  if (typeof type !== 'string') return type.then((loaded) => typedFileResponse(status, headers, loaded, bytes, context, stream))
  return typedFileResponse(status, headers, type, bytes, context, stream)
}

function typedFileResponse(status: number, headers: Record<string, string>, type: string, bytes: Uint8Array, context: BuildContext, stream?: StreamSpec): MockResponse {
  headers['content-type'] = type
  const body = !isTextType(type) ? bytes : otherCharset(type) ? bytesWithContext(bytes, context) : (context.typing ?? createFileTyping()).withContext(bytes, context)
  if (context.head) {
    // The length GET would send (a streamed body has none): the connection stays open for the next request.
    if (stream === undefined) headers['content-length'] = String(typeof body === 'string' ? new TextEncoder().encode(body).byteLength : body.byteLength)
    return { status, headers, body: null }
  }
  if (stream === undefined) return { status, headers, body }
  // `${context}` first, then the pieces: a line is cut where the text served has its newline.
  const whole = typeof body === 'string' ? new TextEncoder().encode(body) : body
  return streamedResponse(status, headers, cutPieces(whole, stream.by, stream.delay), false, context)
}
