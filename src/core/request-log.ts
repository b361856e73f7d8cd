/** What mockyard recorded of one request. */
export interface RequestRecord {
  /** Sequential id within the log. */
  id: number
  /** When the request arrived (ISO 8601). */
  time: string
  method: string
  url: string
  /** Header names lower case; `authorization`, `cookie` and `set-cookie` values redacted. */
  headers: Record<string, string>
  /** The body as text (truncated past the limit), or `null`. */
  body: string | null
  /** The route key that answered (`v1/users`), if a route did. */
  route?: string
  /** The entry that answered (`default`, `get[1]`, `get[0].response[2]`), or `handler`. */
  entry?: string
  /** The data file served, if any. */
  file?: string
  /** The status sent; 0 when nothing answered in process. */
  status: number
  /** Whether a route or handler answered. */
  matched: boolean
  /** The session (`x-mockyard-session`), or `''`. */
  session: string
  durationMs: number
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
 * What an adapter hands the log per request: cheap raw facts. The ISO time, the redacted headers
 * and the body text are built only when the log is read.
 */
export interface RequestInput extends Omit<RequestRecord, 'id' | 'time' | 'headers' | 'body'> {
  /** `Date.now()` when the request arrived, or an ISO string. */
  time: number | string
  /** Headers as a record, or a function giving their entries when the log is read. */
  headers: Record<string, string> | (() => Iterable<[string, string]>)
  /** The body bytes, or its text. */
  body: Uint8Array | string | null
}

/** A logged request as stored; `status` may still be set by the adapter that answers it. */
export interface LogEntry extends RequestInput {
  readonly id: number
}

export interface RequestLog {
  /** The records, oldest first. */
  list(filter?: RequestFilter): RequestRecord[]
  add(input: RequestInput): LogEntry
  /** Resolves with the first record (already logged or to come) that fits, or rejects on timeout. */
  waitFor(predicate: (record: RequestRecord) => boolean, options?: { timeout?: number }): Promise<RequestRecord>
  /** Forgets the records (of one session, or all). */
  clear(session?: string): void
}

const REDACTED = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization'])
export const BODY_LIMIT = 64 * 1024

/** Copies headers with secrets redacted. */
export function redactHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of headers) {
    const lower = name.toLowerCase()
    const shown = REDACTED.has(lower) ? '[redacted]' : value
    out[lower] = out[lower] === undefined || REDACTED.has(lower) ? shown : `${out[lower]}, ${shown}`
  }
  return out
}

/** The body as logged: text, truncated past `BODY_LIMIT` characters with a note. */
export function bodyText(bytes: Uint8Array | null): string | null {
  if (!bytes || bytes.byteLength === 0) return null
  const text = new TextDecoder().decode(bytes.byteLength > BODY_LIMIT ? bytes.subarray(0, BODY_LIMIT) : bytes)
  return bytes.byteLength > BODY_LIMIT ? `${text}… [${bytes.byteLength - BODY_LIMIT} more bytes]` : text
}

export function matchesFilter(record: RequestRecord, filter: RequestFilter = {}): boolean {
  if (filter.method && record.method !== filter.method.toUpperCase()) return false
  if (filter.route !== undefined && record.route !== filter.route) return false
  if (filter.session !== undefined && record.session !== filter.session) return false
  if (filter.path !== undefined) {
    const path = new URL(record.url).pathname
    if (typeof filter.path === 'string' ? path !== filter.path : !filter.path.test(path)) return false
  }
  return true
}

/** Builds the public record of an entry (once; entries are not changed after they are read). */
function materialize(entry: LogEntry): RequestRecord {
  const record: RequestRecord = {
    id: entry.id,
    time: typeof entry.time === 'number' ? new Date(entry.time).toISOString() : entry.time,
    method: entry.method,
    url: entry.url,
    headers: redactHeaders(typeof entry.headers === 'function' ? entry.headers() : Object.entries(entry.headers)),
    body: typeof entry.body === 'string' || entry.body === null ? entry.body : bodyText(entry.body),
    status: entry.status,
    matched: entry.matched,
    session: entry.session,
    durationMs: entry.durationMs,
  }
  if (entry.route !== undefined) record.route = entry.route
  if (entry.entry !== undefined) record.entry = entry.entry
  if (entry.file !== undefined) record.file = entry.file
  return record
}

/**
 * A bounded request log: the oldest records are dropped past `limit`. Adding costs no more than
 * storing the facts; records are built when read.
 *
 * @example
 * const log = createRequestLog({ limit: 100 })
 * const posted = await log.waitFor((r) => r.method === 'POST', { timeout: 2000 })
 */
export function createRequestLog(options: { limit?: number } = {}): RequestLog {
  const limit = options.limit ?? 1000
  let entries: LogEntry[] = []
  const records = new WeakMap<LogEntry, RequestRecord>()
  let nextId = 1
  const waiters = new Set<{ predicate: (r: RequestRecord) => boolean; resolve: (r: RequestRecord) => void }>()
  const recordOf = (entry: LogEntry) => {
    let record = records.get(entry)
    if (!record) records.set(entry, (record = materialize(entry)))
    return record
  }
  // Trim in batches: dropping the oldest one by one would move the whole array per request.
  const trim = () => {
    if (entries.length > limit + Math.max(16, limit >> 2)) entries = entries.slice(entries.length - limit)
  }
  const current = () => (entries.length > limit ? entries.slice(entries.length - limit) : entries)
  return {
    list(filter) {
      const out: RequestRecord[] = []
      for (const entry of current()) {
        const record = recordOf(entry)
        if (matchesFilter(record, filter)) out.push(record)
      }
      return out
    },
    add(input) {
      const entry = input as LogEntry
      ;(entry as { id: number }).id = nextId++
      entries.push(entry)
      trim()
      if (waiters.size > 0) {
        // Let the adapter finish the entry (its final status, set after its awaits) first.
        setTimeout(() => {
          for (const waiter of waiters) {
            const record = recordOf(entry)
            if (waiter.predicate(record)) {
              waiters.delete(waiter)
              waiter.resolve(record)
            }
          }
        }, 0)
      }
      return entry
    },
    waitFor(predicate, { timeout = 5000 } = {}) {
      const existing = current().map(recordOf).find(predicate)
      if (existing) return Promise.resolve(existing)
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (record: RequestRecord) => {
            clearTimeout(timer)
            resolve(record)
          },
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`[mockyard] no request fitting the predicate arrived within ${timeout} ms (${current().length} recorded). Check what was sent with requests, or raise the timeout.`))
        }, timeout)
        waiters.add(waiter)
      })
    },
    clear(session) {
      entries = session === undefined ? [] : entries.filter((e) => e.session !== session)
    },
  }
}
