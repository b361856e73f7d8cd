import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { connectionTokens, HOP_BY_HOP, pairsOf } from '../record/exchange.js'

/**
 * Checks a `proxy` / `--target` value: an absolute http(s) URL. Returns the parsed URL or a
 * reason it is not one.
 */
export function parseTarget(value: string): URL | string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `"${value}" is not an absolute URL`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${value}" is not an http or https URL`
  return url
}

/** The URL a request goes to: the target's origin and base path, then the request's path and query. */
export function targetUrl(target: URL, pathAndQuery: string): URL {
  const basePath = target.pathname.replace(/\/+$/, '')
  let path = pathAndQuery
  // An absolute-form request target (what a client sends to a proxy) keeps only its path.
  if (!path.startsWith('/')) {
    try {
      const absolute = new URL(path)
      path = absolute.pathname + absolute.search
    } catch {
      path = '/' + path
    }
  }
  return new URL(target.origin + basePath + path)
}

/** Request headers to forward: hop-by-hop ones, those `Connection` names, and `Host` left out. */
export function forwardHeaders(rawHeaders: readonly string[]): OutgoingHttpHeaders {
  const pairs = pairsOf(rawHeaders)
  const drop = connectionTokens(pairs)
  const headers: OutgoingHttpHeaders = {}
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase()
    if (HOP_BY_HOP.has(lower) || drop.has(lower) || lower === 'host' || lower.startsWith(':')) continue
    const existing = headers[lower]
    if (existing === undefined) headers[lower] = value
    else if (Array.isArray(existing)) existing.push(value)
    else headers[lower] = [String(existing), value]
  }
  return headers
}

/** Response headers to pass back to the client: everything but hop-by-hop ones (node frames the body itself). */
export function responseHeadersToSend(response: IncomingMessage): Record<string, string | string[]> {
  const pairs = pairsOf(response.rawHeaders)
  const drop = connectionTokens(pairs)
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase()
    if (HOP_BY_HOP.has(lower) || drop.has(lower)) continue
    const existing = headers[lower]
    if (existing === undefined) headers[lower] = lower === 'set-cookie' ? [value] : value
    else if (Array.isArray(existing)) existing.push(value)
    else headers[lower] = `${existing}, ${value}`
  }
  return headers
}

export interface ForwardInput {
  method: string
  /** The request target as received: path and query. */
  url: string
  /** node's flat `rawHeaders`. */
  rawHeaders: readonly string[]
  body: Uint8Array | null
}

/**
 * Sends a request on to the target and calls back with the target's response (unread) or the
 * error that kept it from answering. The body is sent with its length; `Host` names the target.
 *
 * @example
 * forwardRequest(new URL('http://localhost:8080'), { method: 'GET', url: '/v1/users', rawHeaders: [], body: null },
 *   (error, response) => response?.pipe(process.stdout))
 */
export function forwardRequest(target: URL, input: ForwardInput, done: (error: Error | null, response?: IncomingMessage) => void): void {
  const url = targetUrl(target, input.url)
  const headers = forwardHeaders(input.rawHeaders)
  const body = input.body && input.body.byteLength > 0 ? input.body : null
  if (body) headers['content-length'] = String(body.byteLength)
  else if (!['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(input.method.toUpperCase())) headers['content-length'] = '0'
  let settled = false
  const finish = (error: Error | null, response?: IncomingMessage) => {
    if (settled) return
    settled = true
    done(error, response)
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const outgoing = send(url, { method: input.method, headers }, (response) => finish(null, response))
  outgoing.on('error', (error) => finish(error))
  outgoing.end(body ?? undefined)
}
