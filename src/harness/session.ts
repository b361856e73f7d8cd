/**
 * The session a request belongs to (docs/behaviour.md, "Sessions"): the `x-mockyard-session`
 * header, read the same way by every surface (listener, admin endpoints, notifications, browser).
 */

/** The header that names a request's session. */
export const SESSION_HEADER = 'x-mockyard-session'

/** Node's header object (`req.headers`), or anything with a Fetch-style `get`. */
export type SessionHeaders = { get(name: string): string | null } | Readonly<Record<string, string | string[] | undefined>>

/**
 * The session named by a request's headers: the header's (first) value, or `''` when there is none.
 * No allocation: it runs on the listener's hot path.
 *
 * @example
 * sessionOf(req.headers) // node's IncomingHttpHeaders
 * sessionOf(request.headers) // a Fetch Headers
 */
export function sessionOf(headers: SessionHeaders): string {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(SESSION_HEADER) ?? ''
  const value = (headers as Readonly<Record<string, string | string[] | undefined>>)[SESSION_HEADER]
  if (value === undefined) return ''
  return typeof value === 'string' ? value : (value[0] ?? '')
}
