/** CORS headers (docs/behaviour.md, "CORS"). Applied to every response except the admin endpoints. */

export const ALLOWED_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE'
const MAX_AGE = '600'
const ALWAYS_READABLE = new Set(['vary', 'cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma'])

/**
 * Adds CORS headers to a response's header record (lower-case names). With an `Origin` the
 * origin is echoed with credentials allowed and `Vary: Origin`; without one, `*`. The headers
 * the response sets are exposed, so a browser client can read a `Location` on a 202.
 */
export function addCorsHeaders(headers: Record<string, string>, origin: string | null): Record<string, string> {
  // Walked with for-in and joined as it goes: no arrays on the hot path.
  let exposed = ''
  for (const name in headers) {
    if (!ALWAYS_READABLE.has(name) && !name.startsWith('access-control-')) exposed = exposed === '' ? name : `${exposed}, ${name}`
  }
  if (origin) {
    headers['access-control-allow-origin'] = origin
    headers['access-control-allow-credentials'] = 'true'
    headers['vary'] = headers['vary'] ? `${headers['vary']}, Origin` : 'Origin'
  } else {
    headers['access-control-allow-origin'] = '*'
  }
  if (exposed !== '') headers['access-control-expose-headers'] = exposed
  return headers
}

/**
 * The headers of a `204` answer to a CORS preflight (`OPTIONS`), before the CORS headers every
 * answer gets (the engine adds those).
 */
export function preflightHeaders(requestHeaders: string | null, privateNetwork = false): Record<string, string> {
  const headers: Record<string, string> = {
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-max-age': MAX_AGE,
  }
  if (requestHeaders) headers['access-control-allow-headers'] = requestHeaders
  // Chromium asks before a public page may call a local server (Private Network Access).
  if (privateNetwork) headers['access-control-allow-private-network'] = 'true'
  headers['vary'] = 'Access-Control-Request-Headers'
  return headers
}
