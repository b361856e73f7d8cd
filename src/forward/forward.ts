import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { randomBytes } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { connectionTokens, HOP_BY_HOP, pairsOf } from './headers.js'

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
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // `localhost:8080` parses as the scheme `localhost:`: the scheme was left out.
    if (/^[a-z0-9.-]+:\d+(\/|$)/i.test(value)) return `"${value}" has no scheme (http:// or https://): write http://${value}`
    return `"${value}" is not an http or https URL`
  }
  return url
}

/**
 * A target as messages and answers show it: a password in it masked (`http://admin:***@host`),
 * so it is never printed on a terminal nor sent to a client.
 */
export function shownTarget(value: string): string {
  if (!URL.canParse(value)) return value
  const url = new URL(value)
  return url.password === '' ? value : value.replace(`:${url.password}@`, ':***@')
}

/**
 * The request's path with its dot segments resolved, as a URL parser would (`.`, `..` and their
 * percent-encoded forms `%2e`, `.%2E`...; a backslash counts as `/`), or `null` when it climbs above its
 * root, or hides a dot segment behind an encoded slash (`..%2f`): joined after a base path, such
 * a path would reach outside it.
 *
 * @example
 * resolveDotSegments('/a/./b/../c') // '/a/c'
 * resolveDotSegments('/%2e%2e/secret') // null
 */
export function resolveDotSegments(path: string): string | null {
  const segments = path.split(/[\\/]/).slice(1)
  const kept: string[] = []
  for (const [index, raw] of segments.entries()) {
    const last = index === segments.length - 1
    const dots = raw.replace(/%2e/gi, '.')
    if (dots === '.' || dots === '..') {
      if (dots === '..' && kept.pop() === undefined) return null
      if (last) kept.push('')
      continue
    }
    if (/%(2f|5c)/i.test(raw) && dots.replace(/%2f/gi, '/').replace(/%5c/gi, '\\').split(/[\\/]/).some((part) => part === '.' || part === '..')) return null
    kept.push(raw)
  }
  return '/' + kept.join('/')
}

/**
 * The URL a request goes to: the target's origin and base path, then the request's path (dot
 * segments resolved first) and query; `null` when the path would leave the base path.
 */
export function targetUrl(target: URL, pathAndQuery: string): URL | null {
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
  const q = path.indexOf('?')
  const resolved = resolveDotSegments(q === -1 ? path : path.slice(0, q))
  if (resolved === null) return null
  return new URL(target.origin + basePath + resolved + (q === -1 ? '' : path.slice(q)))
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

/** How long the target may stay silent (no response head, no body bytes) before the request is given up: a 504. */
export const UPSTREAM_TIMEOUT_MS = 30_000

/**
 * Why mockyard answers a request itself instead of (or after) forwarding it: the path leaves the
 * target's base path (400), the target stayed silent (504), the request came back to the
 * forwarder that sent it (508). Other errors (refused, reset...) are a 502.
 */
export class ForwardError extends Error {
  override name = 'ForwardError'
  constructor(readonly status: 400 | 504 | 508, message: string) {
    super(message)
  }
}

/** The reason phrase of a ForwardError's status, or of the 502 of any other error. */
export function forwardErrorTitle(error: Error): string {
  const status = error instanceof ForwardError ? error.status : 502
  return { 400: 'Bad Request', 502: 'Bad Gateway', 504: 'Gateway Timeout', 508: 'Loop Detected' }[status]
}

/**
 * A fresh name for one forwarder (a recorder, an instance with `proxy`): it goes into the `Via`
 * header of every request it forwards, so a request that comes back to it is recognised on its
 * first return (`cameBack`), however many proxies it went through.
 */
export function forwarderName(): string {
  return `mockyard-${randomBytes(6).toString('hex')}`
}

/** Whether a request's `Via` headers name this forwarder: it sent the request, which came back. */
export function cameBack(rawHeaders: readonly string[], name: string): boolean {
  return pairsOf(rawHeaders).some(([header, value]) => header.toLowerCase() === 'via' && value.split(',').some((hop) => hop.trim().split(/\s+/)[1] === name))
}

/** The header on mockyard's 508: the forwarder that recognised its own request (it is not recorded). */
export const LOOP_HEADER = 'x-mockyard-loop'

/**
 * Whether `target` is this very listener: its port, and an address it resolves to that the
 * listener answers on (any address of this machine when it listens on all of them). Forwarding
 * there would send every request back to itself.
 */
export async function targetIsListener(target: URL, listening: AddressInfo): Promise<boolean> {
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80))
  if (port !== listening.port) return false
  let addresses: string[]
  let timer: NodeJS.Timeout | undefined
  try {
    // A name the resolver is slow on does not hold the start for long: after a second it is taken as not this listener.
    const found = await Promise.race([lookup(target.hostname.replace(/^\[|\]$/g, ''), { all: true }), new Promise<[]>((resolve) => (timer = setTimeout(resolve, 1000, [])))])
    addresses = found.map((entry) => entry.address)
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
  const own = plainAddress(listening.address)
  const wildcard = own === '0.0.0.0' || own === '::'
  const local = new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => plainAddress(entry.address))))
  return addresses.map(plainAddress).some((address) => address === own || (wildcard && (local.has(address) || address.startsWith('127.') || address === '::1')))
}

/** An address without its IPv4-mapped IPv6 prefix (`::ffff:127.0.0.1` is `127.0.0.1`). */
function plainAddress(address: string): string {
  return address.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1')
}

export interface ForwardInput {
  method: string
  /** The request target as received: path and query. */
  url: string
  /** node's flat `rawHeaders`. */
  rawHeaders: readonly string[]
  body: Uint8Array | null
  /** The forwarder's name (`forwarderName()`), added to the request's `Via` headers. */
  via: string
  /** Default `UPSTREAM_TIMEOUT_MS`. */
  timeoutMs?: number
}

/**
 * Sends a request on to the target and calls back with the target's response (unread) or the
 * error that kept it from answering (a ForwardError for a path outside the base path, a silent
 * target). The body is sent with its length; `Host` names the target. Returns a function that
 * gives the request up (the client went): its connection to the target is closed, not left open.
 * A target silent for `timeoutMs` after the response head has come is cut off too: the response
 * then errors.
 *
 * @example
 * forwardRequest(new URL('http://localhost:8080'), { method: 'GET', url: '/v1/users', rawHeaders: [], body: null, via: forwarderName() },
 *   (error, response) => response?.pipe(process.stdout))
 */
export function forwardRequest(target: URL, input: ForwardInput, done: (error: Error | null, response?: IncomingMessage) => void): () => void {
  const url = targetUrl(target, input.url)
  if (!url) {
    done(new ForwardError(400, `the path ${pathOf(input.url)} leaves the target's base path ${target.pathname.replace(/\/+$/, '') || '/'} (a ".." segment, plain or percent-encoded, climbs above it)`))
    return () => undefined
  }
  const headers = forwardHeaders(input.rawHeaders)
  // Credentials in the target (`http://user:pass@host`) are sent as Basic auth, as a browser
  // sends them, unless the request brings its own Authorization: the URL the request goes to
  // holds none.
  if ((target.username !== '' || target.password !== '') && headers['authorization'] === undefined) {
    headers['authorization'] = `Basic ${Buffer.from(`${safeDecode(target.username)}:${safeDecode(target.password)}`).toString('base64')}`
  }
  const via = headers['via'] === undefined ? [] : [headers['via']].flat().map(String)
  headers['via'] = [...via, `1.1 ${input.via}`].join(', ')
  const body = input.body && input.body.byteLength > 0 ? input.body : null
  if (body) headers['content-length'] = String(body.byteLength)
  else if (!['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(input.method.toUpperCase())) headers['content-length'] = '0'
  let settled = false
  const finish = (error: Error | null, response?: IncomingMessage) => {
    if (settled) return
    settled = true
    done(error, response)
  }
  const timeoutMs = input.timeoutMs ?? UPSTREAM_TIMEOUT_MS
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const outgoing = send(url, { method: input.method, headers }, (response) => finish(null, response))
  outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new ForwardError(504, `the target sent nothing for ${timeoutMs / 1000} s`)))
  outgoing.on('error', (error) => finish(error))
  outgoing.end(body ?? undefined)
  return () => {
    if (!outgoing.destroyed) outgoing.destroy(new Error('the client went away'))
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** A request target's path, without its query (query values may be secrets). */
function pathOf(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf('?')
  return q === -1 ? pathAndQuery : pathAndQuery.slice(0, q)
}
