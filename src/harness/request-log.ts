import { formatMessage } from '../core/errors.js'
import type { FaultName } from '../core/types.js'
import { CLEARED, HAS_BODY, HAS_ENTRY, LogSlots, MATCHED } from './log-slots.js'
import { REDACTED, SECRET_HEADERS } from '../core/redact.js'
import { countOf } from '../core/count.js'
import { DEFAULT_LOG_LIMIT } from '../core/defaults.js'
import { realClearTimeout, realSetTimeout } from '../core/real-clock.js'
import { REMEMBERED_BYTES, sameBytes } from '../core/same-bytes.js'

/** What mockyard recorded of one request. */
export interface RequestRecord {
  /** Sequential id within the log. */
  id: number
  /** When the request arrived (ISO 8601). */
  time: string
  method: string
  url: string
  /** Header names lower case; `authorization`, `proxy-authorization`, `cookie` and `set-cookie` values read `<redacted>`. */
  headers: Record<string, string>
  /** The body as text (truncated past the limit), or `null`. */
  body: string | null
  /** The route key that answered (`v1/users`), if a route did. */
  route?: string
  /** The entry that answered (`default`, `get[1]`, `get[0].response[2]`), `handler`, or `proxy` (forwarded to the `proxy` target). */
  entry?: string
  /** The data file served, if any. */
  file?: string
  /** The status sent; 0 when nothing answered in process, or a fault sent nothing. */
  status: number
  /** The network fault played (`reset`, `close`, `hang`, `truncate`), recorded when it takes effect (docs/behaviour.md, "Faults"). */
  fault?: FaultName
  /** Whether a route or handler answered. */
  matched: boolean
  /** The session (`x-mockyard-session`), or `''`. */
  session: string
  durationMs: number
  /** The response's headers as sent, redacted like the request's (when the surface recorded them). */
  responseHeaders?: Record<string, string>
  /** Why nothing answered (the engine's explanation), for an unmatched request. */
  explanation?: string
  /**
   * The response body as text, cut past `BODY_LIMIT` bytes like the request's (`null`: empty), when
   * the surface recorded it: a route's answer. Binary bytes decode as replacement characters; the
   * dashboard shows such a body as its type and size.
   */
  responseBody?: string | null
  /**
   * A streamed answer (`stream`, `events`): `open` from when it starts (the record is added then),
   * `ended` once it ended (everything sent, the client left, reset or stop).
   */
  stream?: 'open' | 'ended'
  /**
   * Where the request or its answer breaks the OpenAPI document of the `validate` option
   * (docs/behaviour.md, "Traffic checked against a contract"); absent when it agrees, or when
   * `validate` is unset.
   */
  violations?: Violation[]
  /**
   * `'websocket'` for a WebSocket record (docs/behaviour.md, "WebSocket"): the connection
   * (no `direction`, status 101), or one message (`direction`, method `MESSAGE`); absent for HTTP.
   */
  kind?: 'websocket'
  /** A WebSocket message's direction: `'in'` from the client, `'out'` from mockyard. */
  direction?: 'in' | 'out'
  /** A WebSocket message as text (binary as UTF-8), cut past `BODY_LIMIT` like a body (also in `body`). */
  data?: string
}

/** One disagreement between an answered exchange and the `validate` document. */
export interface Violation {
  /** Whether the app's request or the mock's answer breaks the document. */
  where: 'request' | 'response'
  /**
   * A JSON Pointer into the body for a body value (`/1/id`, `''` for the whole body), as
   * `mockyard check` points into a data file; `/query/<name>`, `/path/<name>` or
   * `/header/<name>` for a parameter; `''` for the operation, the status and the content type.
   */
  pointer: string
  message: string
  /** Where in the document the rule is written: `api/schemas.yaml#/User/properties/id/type`. */
  schema: string
}

export interface RequestFilter {
  method?: string
  /** The URL's path, exactly (`/v1/users`), or a regular expression. */
  path?: string | RegExp
  /** The route key that answered. */
  route?: string
  session?: string
}

/**
 * What an adapter hands the log per request: cheap raw facts. The log copies what it keeps
 * into its own byte store at once; the ISO time, the redacted headers and the body text are
 * built only when the log is read.
 */
export interface RequestInput extends Omit<RequestRecord, 'id' | 'time' | 'headers' | 'body' | 'responseHeaders' | 'explanation' | 'responseBody' | 'data'> {
  /** `Date.now()` when the request arrived, or an ISO string. */
  time: number | string
  /**
   * Headers (names in any case): a record, name/value pairs, a flat `[name, value, name, value]`
   * list as node's `rawHeaders` gives it, or a function giving any of these.
   */
  headers: HeaderInput | (() => HeaderInput)
  /**
   * The body bytes, or its text. Only the first `BODY_LIMIT` bytes are kept. Bytes do not change
   * once given: a short body is compared with the next record's (the same object is the same body).
   */
  body: Uint8Array | string | null
  /** The response's headers, when known as the request is recorded (same shapes as `headers`). */
  responseHeaders?: HeaderInput
  /** The explanation of an unmatched request: called (once) when the record is first read. */
  explanation?: () => string
  /**
   * The response body as sent, when the surface has it (a route's answer). Bytes are kept by
   * reference (a data file's are the shared cached ones: nothing is copied on the hot path), a
   * string up to `BODY_LIMIT` bytes too; of a longer string only its first `BODY_LIMIT` bytes.
   */
  responseBody?: Uint8Array | string | null
}

type HeaderInput = Record<string, string> | Iterable<[string, string]> | readonly string[]

/** What `add()` returns: the record's id and duration (a surface's log line uses it). */
export interface LogEntry {
  readonly id: number
  readonly durationMs: number
}

export interface RequestLog {
  /** The records, oldest first. */
  list(filter?: RequestFilter): RequestRecord[]
  add(input: RequestInput): LogEntry
  /** Resolves with the first record (already logged or to come) that fits, or rejects on timeout. */
  waitFor(predicate: (record: RequestRecord) => unknown, options?: { timeout?: number }): Promise<RequestRecord>
  /** Notes that the streamed answer of record `id` ended (`stream: 'ended'`); waiters see the record again. */
  streamEnded(id: number): void
  /** Forgets the records (of one session, or all). */
  clear(session?: string): void
  /** The record with this id, while the log still holds it. */
  get(id: number): RequestRecord | undefined
  /** The records added after the one with id `after`, oldest first (the dashboard's live feed). */
  since(after: number): RequestRecord[]
  /** The id of the newest record added (0 before the first). */
  readonly lastId: number
  /** How many times `clear()` ran: a reader that saw another number must read the log afresh. */
  readonly clears: number
  /** How many streamed answers ended (`streamEnded`): a reader that saw another number has records whose `stream` changed. */
  readonly streamEnds: number
  /** How many records the log keeps (`requestLog.limit`), all sessions together. */
  readonly limit: number
  /**
   * How many records were dropped to keep within `limit` since the log was last cleared for this
   * session (or for everyone): records of the session may be among them.
   */
  droppedSince(session?: string): number
  /**
   * Whether the log was cleared for this session (or for everyone) after `time`
   * (`performance.now()`): a request that started then belongs to no record of the log now.
   */
  clearedAfter(session: string, time: number): boolean
}

export const BODY_LIMIT = 64 * 1024
/** The sessions whose last reset the log remembers (for `droppedSince`). */
const MAX_SESSION_CLEARS = 1000

/** `lastBody` when there is no body to compare a record's with. */
const NO_BODY = Symbol('no body')

/** What a WebSocket record is, per slot (0: an HTTP request). */
const SOCKET_CONNECTION = 1
const SOCKET_IN = 2
const SOCKET_OUT = 3

/** Copies headers with secrets redacted. */
export function redactHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of headers) {
    const lower = name.toLowerCase()
    const secret = SECRET_HEADERS.has(lower)
    const shown = secret ? REDACTED : value
    out[lower] = out[lower] === undefined || secret ? shown : `${out[lower]}, ${shown}`
  }
  return out
}

/**
 * The response body as the log keeps it, without a wrapper object per request (the slots' reason,
 * log-slots.ts): bytes by reference, whatever their size (a data file's bytes are the cached
 * ones, shared by every answer; only the first `BODY_LIMIT` are decoded when read); a string by
 * reference up to `BODY_LIMIT` bytes, else the UTF-8 bytes of its start (a string built for one
 * answer, such as a text with `${context}`, is not kept whole).
 */
function keptResponseBody(body: Uint8Array | string, encoder: TextEncoder): Uint8Array | string {
  if (typeof body !== 'string' || body.length * 3 <= BODY_LIMIT) return body
  const bytes = encoder.encode(body)
  return bytes.byteLength <= BODY_LIMIT ? bytes : bytes.slice(0, BODY_LIMIT)
}

/** The whole length in bytes of a response body the log keeps the start of; -1 when it keeps it whole. */
function responseBodyLength(body: Uint8Array | string): number {
  if (typeof body !== 'string') return body.byteLength > BODY_LIMIT ? body.byteLength : -1
  return body.length * 3 <= BODY_LIMIT ? -1 : new TextEncoder().encode(body).byteLength
}

function responseBodyText(kept: Uint8Array | string, length: number): string {
  if (typeof kept === 'string') return kept
  const shown = kept.byteLength > BODY_LIMIT ? kept.subarray(0, BODY_LIMIT) : kept
  const text = new TextDecoder().decode(shown)
  return length > shown.byteLength ? `${text}… [${length - shown.byteLength} more bytes]` : text
}

/** Whether a record fits a filter; also used on the records the admin endpoint sends (`route: null`). */
export function matchesFilter(record: Pick<RequestRecord, 'method' | 'url' | 'session'> & { route?: string | null }, filter: RequestFilter = {}): boolean {
  if (filter.method && record.method !== filter.method.toUpperCase()) return false
  if (filter.route !== undefined && record.route !== filter.route) return false
  if (filter.session !== undefined && record.session !== filter.session) return false
  if (filter.path !== undefined) {
    const path = new URL(record.url).pathname
    if (typeof filter.path === 'string' ? path !== filter.path : !filter.path.test(path)) return false
  }
  return true
}

/** Header input as a flat `[name, value, name, value]` list. */
function flatHeaders(input: RequestInput['headers']): readonly string[] {
  const headers = typeof input === 'function' ? input() : input
  if (Array.isArray(headers)) {
    if (headers.length === 0 || typeof headers[0] === 'string') return headers as readonly string[]
    return (headers as Array<[string, string]>).flat()
  }
  const flat: string[] = []
  const pairs = Symbol.iterator in headers ? (headers as Iterable<[string, string]>) : Object.entries(headers)
  for (const [name, value] of pairs) flat.push(name, String(value))
  return flat
}

/** Whether two lists hold the same strings. */
function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Response headers as a flat `[name, value, ...]` list. A plain record (what the engine builds) is walked with for-in: no intermediate arrays. */
function responseHeaderList(input: RequestInput['responseHeaders']): string[] {
  if (input === undefined) return []
  if (Array.isArray(input) || Symbol.iterator in (input as object)) return flatHeaders(input).slice()
  const record = input as Record<string, string | number>
  const flat: string[] = []
  for (const name in record) flat.push(name, String(record[name]))
  return flat
}

/** Whether response headers, in any of their forms, are the flat list `flat` again (a plain record is compared as it is walked). */
function sameResponseHeaders(input: RequestInput['responseHeaders'], flat: readonly string[]): boolean {
  if (input === undefined) return flat.length === 0
  if (Array.isArray(input) || Symbol.iterator in (input as object)) return sameStrings(flatHeaders(input), flat)
  const record = input as Record<string, string | number>
  let i = 0
  for (const name in record) {
    if (flat[i] !== name || flat[i + 1] !== String(record[name])) return false
    i += 2
  }
  return i === flat.length
}

/**
 * A bounded request log: the newest `limit` records, oldest first.
 *
 * Built for servers under load: a request's facts are copied into the slots of a `LogSlots`
 * store (log-slots.ts), so the log keeps no per-request JavaScript object alive. Bodies are kept
 * up to `BODY_LIMIT` bytes (the rest is counted), so large uploads cannot pile up. Records are
 * built when read. A slot's text is `method url entry session count [response pairs] request
 * pairs`, NUL-separated (NUL cannot occur in HTTP headers).
 *
 * @example
 * const log = createRequestLog({ limit: 100 })
 * const posted = await log.waitFor((r) => r.method === 'POST', { timeout: 2000 })
 */
export function createRequestLog(options: { limit?: number } = {}): RequestLog {
  const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_LOG_LIMIT))
  const encoder = new TextEncoder()
  const slots = new LogSlots(limit)
  const { ids, times, durations, statuses, flags, routes, files, explanations } = slots
  const records = slots.records as Array<RequestRecord | undefined>
  /** Per slot, the response body kept (`undefined`: the surface recorded none; `null`: empty) and its whole length (-1: kept whole). */
  const responseBodies = new Array<Uint8Array | string | null | undefined>(limit).fill(undefined)
  const responseLengths = new Float64Array(limit)
  /** Per slot, the fault played (four constant strings: nothing per request is kept). */
  const faults = new Array<FaultName | undefined>(limit).fill(undefined)
  /** Per slot: 0 no stream, 1 open, 2 ended. */
  const streams = new Uint8Array(limit)
  /** Per slot, the violations of the `validate` document (rare: a sparse array, nothing per request otherwise). */
  const violations = new Array<Violation[] | undefined>(limit)
  /** Per slot, what a WebSocket record is (`SOCKET_KINDS`), 0 for HTTP. */
  const socketKinds = new Uint8Array(limit)
  let clears = 0
  let streamEnds = 0
  /**
   * The last request headers as a flat list, their text (`name\0value\0...`: NUL cannot occur in
   * HTTP headers) and, from their second time, its UTF-8 bytes: a client sends the same headers
   * again and again, and joining and encoding them was the largest part of writing a record (bench/README.md, "The request's URL, its query and the log's headers").
   */
  let lastHeaders: readonly string[] | undefined
  let lastHeaderText = ''
  let lastHeaderBytes: Uint8Array | undefined

  /** The request headers' text, or its bytes when they are the last record's headers again. */
  const requestHeaderText = (flat: readonly string[]): string | Uint8Array => {
    if (lastHeaders !== undefined && sameStrings(flat, lastHeaders)) return (lastHeaderBytes ??= encoder.encode(lastHeaderText))
    // A copy: a flat list is the caller's own, and may change after this.
    lastHeaders = flat.slice()
    lastHeaderText = flat.join('\0')
    lastHeaderBytes = undefined
    return lastHeaderText
  }

  /**
   * The whole text of the last record (method, URL, entry, session, response and request
   * headers), its parts to compare, and from its second time its UTF-8 bytes: under load the same
   * request comes again and again, and its record's text is then copied, not built and encoded
   * (bench/README.md, "The request log's text, written once").
   */
  let lastMethod: string | undefined
  let lastUrl = ''
  let lastEntry = ''
  let lastSession = ''
  let lastResponseHeaders: readonly string[] = []
  let lastText = ''
  let lastTextBytes: Uint8Array | undefined

  /** The bytes `recordText` says to write after the text it returns. */
  let textTail: Uint8Array | undefined

  /**
   * The record's text to encode, and in `textTail` the bytes that follow it: the request headers'
   * when they are the last record's again, the whole text's (and no text) when all of it is.
   */
  const recordText = (input: RequestInput, entry: string): string => {
    const requestHeaders = flatHeaders(input.headers)
    if (
      input.method === lastMethod &&
      input.url === lastUrl &&
      entry === lastEntry &&
      input.session === lastSession &&
      sameResponseHeaders(input.responseHeaders, lastResponseHeaders) &&
      lastHeaders !== undefined &&
      sameStrings(requestHeaders, lastHeaders)
    ) {
      textTail = lastTextBytes ??= encoder.encode(lastText)
      return ''
    }
    // Response headers go first, after their count: `method url entry session count [pairs] request-pairs`.
    const responseHeaders = responseHeaderList(input.responseHeaders)
    const responseText = responseHeaders.length > 0 ? '\0' + responseHeaders.join('\0') : ''
    const front = `${input.method}\0${input.url}\0${entry}\0${input.session}\0${responseHeaders.length >> 1}${responseText}\0`
    const headerText = requestHeaderText(requestHeaders)
    lastMethod = input.method
    lastUrl = input.url
    lastEntry = entry
    lastSession = input.session
    lastResponseHeaders = responseHeaders
    lastTextBytes = undefined
    if (typeof headerText === 'string') {
      textTail = undefined
      lastText = front + headerText
      return lastText
    }
    textTail = headerText
    lastText = front + lastHeaderText
    return front
  }

  /** The body of the last record written whole (`null`: none), or `NO_BODY` when it is not kept to compare (too long). */
  let lastBody: Uint8Array | null | typeof NO_BODY = NO_BODY

  // A slot is live when its id is in [firstLive, nextId) and not cleared.
  let nextId = 1
  let firstLive = 1
  /** When everything was last cleared (`performance.now()`). */
  let clearedAt = -Infinity
  /** Each session's last clear (by a reset of that session): the next id then, and when. */
  const sessionClears = new Map<string, { id: number; at: number }>()
  const waiters = new Set<{ predicate: (r: RequestRecord) => unknown; resolve: (r: RequestRecord) => void; reject: (error: unknown) => void }>()

  const oldestId = () => Math.max(firstLive, nextId - limit)
  const isLive = (id: number) => {
    const slot = id % limit
    return id >= oldestId() && id < nextId && ids[slot] === id && !slots.has(slot, CLEARED)
  }

  const materialize = (slot: number): RequestRecord => {
    const parts = slots.text(slot).split('\0')
    const [method, url, entry, session, responseCount] = parts
    const responsePairs: Array<[string, string]> = []
    const firstRequestHeader = 5 + 2 * Number(responseCount)
    for (let i = 5; i + 1 < firstRequestHeader; i += 2) responsePairs.push([parts[i]!, parts[i + 1]!])
    const pairs: Array<[string, string]> = []
    for (let i = firstRequestHeader; i + 1 < parts.length; i += 2) pairs.push([parts[i]!, parts[i + 1]!])
    let body: string | null = null
    if (slots.has(slot, HAS_BODY)) {
      const { text, more } = slots.body(slot)
      body = more > 0 ? `${text}… [${countOf(more, 'more byte')}]` : text
    }
    const record: RequestRecord = {
      id: ids[slot]!,
      time: new Date(times[slot]!).toISOString(),
      method: method!,
      url: url!,
      headers: redactHeaders(pairs),
      body,
      status: statuses[slot]!,
      matched: slots.has(slot, MATCHED),
      session: session!,
      durationMs: durations[slot]!,
    }
    if (routes[slot] !== undefined) record.route = routes[slot]
    if (slots.has(slot, HAS_ENTRY)) record.entry = entry!
    if (files[slot] !== undefined) record.file = files[slot]
    if (faults[slot] !== undefined) record.fault = faults[slot]
    if (Number(responseCount) > 0) record.responseHeaders = redactHeaders(responsePairs)
    const explain = explanations[slot]
    if (typeof explain === 'function') {
      // Computed once; the text replaces the function, so what it held (the request) can go.
      try {
        explanations[slot] = explain()
      } catch (error) {
        explanations[slot] = `the explanation failed: ${(error as Error)?.message ?? String(error)}`
      }
    }
    if (explanations[slot] !== undefined) record.explanation = explanations[slot] as string
    const response = responseBodies[slot]
    if (response !== undefined) record.responseBody = response === null ? null : responseBodyText(response, responseLengths[slot]!)
    if (streams[slot] !== 0) record.stream = streams[slot] === 1 ? 'open' : 'ended'
    const broken = violations[slot]
    if (broken !== undefined) record.violations = broken
    const socketKind = socketKinds[slot]!
    if (socketKind !== 0) {
      record.kind = 'websocket'
      if (socketKind !== SOCKET_CONNECTION) {
        record.direction = socketKind === SOCKET_IN ? 'in' : 'out'
        record.data = record.body ?? ''
      }
    }
    return record
  }
  const recordOf = (id: number): RequestRecord => {
    const slot = id % limit
    return (records[slot] ??= materialize(slot))
  }
  /**
   * Resolves the waiters whose predicate the record `id` now fits. A predicate that throws
   * rejects its own waiter with the error; the request and the other waiters go on.
   */
  const tell = (id: number) => {
    for (const waiter of waiters) {
      const record = recordOf(id)
      let fits: unknown
      try {
        fits = waiter.predicate(record)
      } catch (error) {
        waiters.delete(waiter)
        waiter.reject(error)
        continue
      }
      if (fits) {
        waiters.delete(waiter)
        waiter.resolve(record)
      }
    }
  }
  const liveIds = function* (): Generator<number> {
    for (let id = oldestId(); id < nextId; id++) if (isLive(id)) yield id
  }

  return {
    list(filter) {
      const out: RequestRecord[] = []
      for (const id of liveIds()) {
        const record = recordOf(id)
        if (matchesFilter(record, filter)) out.push(record)
      }
      return out
    },
    add(input) {
      const id = nextId++
      const text = recordText(input, input.entry ?? '')
      const tail = textTail
      const body = typeof input.body === 'string' ? encoder.encode(input.body) : input.body
      const hasBody = body !== null && body.byteLength > 0
      const time = typeof input.time === 'number' ? input.time : Date.parse(input.time)
      const flags = (input.matched ? MATCHED : 0) | (input.entry !== undefined ? HAS_ENTRY : 0) | (hasBody ? HAS_BODY : 0)
      const previous = (id - 1) % limit
      // The whole text of the record just before again (`recordText` gave none to write) and its
      // body: the same request again shares that record's bytes. That record's slot is intact (it
      // is overwritten `limit` records later), cleared or not.
      if (text === '' && lastBody !== NO_BODY && sameBytes(body, lastBody)) {
        slots.repeat(previous, id, time, input.durationMs, input.status, flags, input.route, input.file, input.explanation)
      } else {
        const kept = body ? Math.min(body.byteLength, BODY_LIMIT) : 0
        slots.write({ id, time, durationMs: input.durationMs, status: input.status, flags, text, tail, body, kept, route: input.route, file: input.file, explanation: input.explanation }, oldestId())
        // What the next record compares its body with (`RequestInput.body`: bytes do not change once given), a short body only.
        lastBody = body === null ? null : body.byteLength <= REMEMBERED_BYTES ? body : NO_BODY
      }
      faults[id % limit] = input.fault
      socketKinds[id % limit] = input.kind !== 'websocket' ? 0 : input.direction === 'in' ? SOCKET_IN : input.direction === 'out' ? SOCKET_OUT : SOCKET_CONNECTION
      const responseBody = input.responseBody
      if (responseBody === undefined || responseBody === null || responseBody.length === 0) responseBodies[id % limit] = responseBody === undefined ? undefined : null
      else {
        responseLengths[id % limit] = responseBodyLength(responseBody)
        responseBodies[id % limit] = keptResponseBody(responseBody, encoder)
      }
      streams[id % limit] = input.stream === 'open' ? 1 : input.stream === 'ended' ? 2 : 0
      if (input.violations !== undefined || violations[id % limit] !== undefined) violations[id % limit] = input.violations?.length ? input.violations : undefined
      // The record is final when it is added (the surface knows the status it sends), but for
      // a stream's end: waiters are told at once.
      if (waiters.size > 0) tell(id)
      return { id, durationMs: input.durationMs }
    },
    streamEnded(id) {
      if (!isLive(id) || streams[id % limit] !== 1) return
      streams[id % limit] = 2
      const cached = records[id % limit]
      if (cached !== undefined) cached.stream = 'ended'
      streamEnds++
      tell(id)
    },
    waitFor(predicate, { timeout = 5000 } = {}) {
      try {
        for (const id of liveIds()) {
          const record = recordOf(id)
          if (predicate(record)) return Promise.resolve(record)
        }
      } catch (error) {
        return Promise.reject(error as Error)
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (record: RequestRecord) => {
            realClearTimeout(timer)
            resolve(record)
          },
          reject: (error: unknown) => {
            realClearTimeout(timer)
            reject(error as Error)
          },
        }
        const timer = realSetTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(formatMessage(`no request fitting the predicate arrived within ${timeout} ms (${[...liveIds()].length} recorded). Check what was sent with requests, or raise the timeout.`)))
        }, timeout)
        waiters.add(waiter)
      })
    },
    get(id) {
      return Number.isInteger(id) && isLive(id) ? recordOf(id) : undefined
    },
    since(after) {
      const out: RequestRecord[] = []
      for (let id = Math.max(after + 1, oldestId()); id < nextId; id++) if (isLive(id)) out.push(recordOf(id))
      return out
    },
    get lastId() {
      return nextId - 1
    },
    get clears() {
      return clears
    },
    get streamEnds() {
      return streamEnds
    },
    limit,
    droppedSince(session) {
      const cleared = session === undefined ? undefined : sessionClears.get(session)?.id
      return Math.max(0, nextId - limit - Math.max(firstLive, cleared ?? firstLive))
    },
    clearedAfter(session, time) {
      return time < clearedAt || (sessionClears.size > 0 && time < (sessionClears.get(session)?.at ?? -Infinity))
    },
    clear(session) {
      clears++
      if (session === undefined) {
        firstLive = nextId
        clearedAt = performance.now()
        sessionClears.clear()
        // A waiter does not outlive the log it waits on (a reset between tests): it rejects now,
        // in the test that left it, rather than judge the next test's requests.
        for (const waiter of waiters) waiter.reject(new Error(formatMessage('the request log was reset before a request fitting the predicate arrived. Await waitForRequest() in the test that sends the request.')))
        waiters.clear()
        return
      }
      for (const id of liveIds()) {
        if (recordOf(id).session === session) flags[id % limit]! |= CLEARED
      }
      // Where and when the session's records start again; the oldest sessions forgotten first.
      sessionClears.delete(session)
      sessionClears.set(session, { id: nextId, at: performance.now() })
      if (sessionClears.size > MAX_SESSION_CLEARS) sessionClears.delete(sessionClears.keys().next().value!)
    },
  }
}
