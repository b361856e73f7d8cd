/**
 * The session a request belongs to (docs/behaviour.md, "Sessions"): the `x-mockyard-session`
 * header, else the `mockyard-session` cookie, read the same way by every surface (listener, admin
 * endpoints, notifications, browser).
 */

/** The header that names a request's session. */
export const SESSION_HEADER = 'x-mockyard-session'

/** The cookie that names a request's session when the header is absent (a browser's WebSocket cannot send headers). */
export const SESSION_COOKIE = 'mockyard-session'

const CONTROL = /[\u0000-\u001f\u007f]/

/** A session that can be sent as a header value as it is: visible ASCII, spaces and tabs inside, nothing else. */
export const SENDABLE_SESSION = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/

/** The value of the `mockyard-session` cookie in a `Cookie` header, or `''`. */
export function sessionCookie(cookie: string | null | undefined): string {
  if (!cookie) return ''
  let at = cookie.indexOf(SESSION_COOKIE + '=')
  // Only a whole cookie name: at the start, or after `; `.
  while (at > 0 && cookie[at - 1] !== ' ' && cookie[at - 1] !== ';') at = cookie.indexOf(SESSION_COOKIE + '=', at + 1)
  if (at < 0) return ''
  const start = at + SESSION_COOKIE.length + 1
  const end = cookie.indexOf(';', start)
  const raw = (end < 0 ? cookie.slice(start) : cookie.slice(start, end)).trim()
  const value = raw.length > 1 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw
  try {
    const decoded = decodeURIComponent(value)
    // Control characters (a `%00`) never name a session: the value is kept as sent.
    return CONTROL.test(decoded) ? value : decoded
  } catch {
    return value
  }
}

/** Node's header object (`req.headers`), or anything with a Fetch-style `get`. */
export type SessionHeaders = { get(name: string): string | null } | Readonly<Record<string, string | string[] | undefined>>

/**
 * The session named by a request's headers: the header's (first) value, else the
 * `mockyard-session` cookie's, or `''` when there is neither. No allocation when neither is
 * sent: it runs on the listener's hot path.
 *
 * @example
 * sessionOf(req.headers) // node's IncomingHttpHeaders
 * sessionOf(request.headers) // a Fetch Headers
 */
export function sessionOf(headers: SessionHeaders): string {
  if (typeof headers.get === 'function') {
    const get = headers as { get(name: string): string | null }
    return get.get(SESSION_HEADER) ?? sessionCookie(get.get('cookie'))
  }
  const record = headers as Readonly<Record<string, string | string[] | undefined>>
  const value = record[SESSION_HEADER]
  if (value === undefined) {
    const cookie = record.cookie
    return cookie === undefined ? '' : sessionCookie(typeof cookie === 'string' ? cookie : cookie.join('; '))
  }
  return typeof value === 'string' ? value : (value[0] ?? '')
}
