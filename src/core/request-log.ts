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

export interface RequestLog {
  /** The records, oldest first. */
  list(filter?: RequestFilter): RequestRecord[]
  add(record: Omit<RequestRecord, 'id'>): RequestRecord
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
    out[lower] = REDACTED.has(lower) ? '[redacted]' : value
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

/**
 * A bounded request log: the oldest records are dropped past `limit`.
 *
 * @example
 * const log = createRequestLog({ limit: 100 })
 * const posted = await log.waitFor((r) => r.method === 'POST', { timeout: 2000 })
 */
export function createRequestLog(options: { limit?: number } = {}): RequestLog {
  const limit = options.limit ?? 1000
  let records: RequestRecord[] = []
  let nextId = 1
  const waiters = new Set<{ predicate: (r: RequestRecord) => boolean; resolve: (r: RequestRecord) => void }>()
  return {
    list(filter) {
      return records.filter((r) => matchesFilter(r, filter))
    },
    add(input) {
      const record = { id: nextId++, ...input }
      records.push(record)
      if (records.length > limit) records.shift()
      for (const waiter of waiters) {
        if (waiter.predicate(record)) {
          waiters.delete(waiter)
          waiter.resolve(record)
        }
      }
      return record
    },
    waitFor(predicate, { timeout = 5000 } = {}) {
      const existing = records.find(predicate)
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
          reject(new Error(`[mockyard] no request fitting the predicate arrived within ${timeout} ms (${records.length} recorded). Check what was sent with requests, or raise the timeout.`))
        }, timeout)
        waiters.add(waiter)
      })
    },
    clear(session) {
      records = session === undefined ? [] : records.filter((r) => r.session !== session)
    },
  }
}
