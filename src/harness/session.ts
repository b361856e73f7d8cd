/**
 * The session a request belongs to (docs/behaviour.md, "Sessions"): the `x-mockyard-session`
 * header, read the same way by every surface (listener, admin endpoints, notifications, browser).
 */

/** The header that names a request's session. */
export const SESSION_HEADER = 'x-mockyard-session'

/** The cookie that names a request's session when the header is absent (browser navigations, SSR). */
export const SESSION_COOKIE = 'mockyard-session'

/** Node's header object (`req.headers`), or anything with a Fetch-style `get`. */
export type SessionHeaders = { get(name: string): string | null } | Readonly<Record<string, string | string[] | undefined>>

/**
 * The session named by a request's headers: the header's (first) value, else the
 * `mockyard-session` cookie's, or `''` when there is none.
 * No allocation without a cookie: it runs on the listener's hot path.
 *
 * @example
 * sessionOf(req.headers) // node's IncomingHttpHeaders
 * sessionOf(request.headers) // a Fetch Headers
 */
export function sessionOf(headers: SessionHeaders): string {
  if (typeof headers.get === 'function') {
    const fetchHeaders = headers as { get(name: string): string | null }
    return fetchHeaders.get(SESSION_HEADER) ?? sessionCookie(fetchHeaders.get('cookie'))
  }
  const record = headers as Readonly<Record<string, string | string[] | undefined>>
  const value = record[SESSION_HEADER]
  if (value === undefined) return sessionCookie(record.cookie)
  return typeof value === 'string' ? value : (value[0] ?? '')
}

/** The `mockyard-session` cookie's value in a `Cookie` header, or `''`. */
function sessionCookie(cookie: string | string[] | null | undefined): string {
  if (typeof cookie !== 'string' || !cookie.includes(SESSION_COOKIE)) return ''
  for (const pair of cookie.split(';')) {
    const at = pair.indexOf('=')
    if (at === -1 || pair.slice(0, at).trim() !== SESSION_COOKIE) continue
    const value = pair.slice(at + 1).trim()
    try {
      return decodeURIComponent(value)
    } catch {
      return value
    }
  }
  return ''
}
