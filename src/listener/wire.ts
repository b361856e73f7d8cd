/**
 * What the listener and the middleware do with a request before the engine sees it: the target
 * and the Host (docs/behaviour.md, "Requests on the wire"), and how a refused body is answered
 * so that the client reads the answer (docs/behaviour.md, "Errors and limits").
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { preview } from '../core/redact.js'
import { errorResponse, type MockResponse } from '../core/build-response.js'
import { answerThenDrain } from '../forward/body.js'

/** Where a request goes: the origin it addressed (for `${context}`) and the path that picks the route. */
export type RequestTarget = { origin: string; path: string; problem?: undefined } | { problem: string }

/** A host name, IPv4 or bracketed IPv6 address, with an optional port: nothing else. */
const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9\-._~]+)(?::([0-9]{1,5}))?$/i

/** Whether a `Host` value (or a URL's host) names a host and, optionally, a port. */
export function isValidHost(host: string): boolean {
  const match = HOST.exec(host)
  if (!match) return false
  if (match[1] !== undefined && Number(match[1]) > 65535) return false
  try {
    new URL(`http://${host}/`)
    return true
  } catch {
    return false
  }
}

/** The last `Host` value found valid (a pure check: remembering its last answer is safe), and its `http` origin. */
let lastValidHost: string | undefined
let lastHttpOrigin = ''

/** How many `Host` headers the request carries (a request with several is refused). */
function hostCount(raw: readonly string[]): number {
  let count = 0
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) count++
  }
  return count
}

/**
 * The target of a request. The route is chosen by the path of the request target alone; the
 * `Host` header only forms the origin. An absolute-form target (`GET http://host:port/v1/x`,
 * what a client sends to a proxy) is accepted: its path picks the route and its origin is used.
 * Anything else, a missing, repeated or malformed `Host` included, is a problem (a 400).
 */
export function requestTarget(req: IncomingMessage): RequestTarget {
  const raw = req.url ?? '/'
  // `OPTIONS *` asks what the server as a whole supports: answered like a preflight.
  if (raw.startsWith('/') || (raw === '*' && req.method === 'OPTIONS')) {
    // HTTP/2 (the middleware on a Vite dev server with `server.https`) names the host in `:authority`.
    const http2 = req.httpVersionMajor === 2 && req.headers.host === undefined
    const host = http2 ? (req.headers[':authority'] as string | undefined) : req.headers.host
    const count = http2 ? (host === undefined ? 0 : 1) : hostCount(req.rawHeaders)
    if (host === undefined || count === 0) return { problem: 'the request has no Host header' }
    if (count > 1) return { problem: 'the request has more than one Host header' }
    if (host !== lastValidHost) {
      if (!isValidHost(host)) return { problem: `the Host header ${preview(host, 80)} is not a host name or address with an optional port` }
      // Clients send the same Host on every request: checked once (the regex and URL parse are a
      // measurable part of W1's per-request cost, bench/README.md).
      lastValidHost = host
      lastHttpOrigin = `http://${host}`
    }
    const origin = (req.socket as { encrypted?: boolean }).encrypted ? `https://${host}` : lastHttpOrigin
    return { origin, path: raw }
  }
  if (/^https?:\/\//i.test(raw)) {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return { problem: `the request target ${preview(raw, 80)} is not a valid URL` }
    }
    if (url.username !== '' || url.password !== '' || !isValidHost(url.host)) return { problem: `the request target ${preview(raw, 80)} does not name a host` }
    return { origin: url.origin, path: url.pathname + url.search }
  }
  return { problem: `the request target ${preview(raw, 80)} is neither a path nor an absolute http URL` }
}

/** The 400 for a request whose target or Host is unusable. */
export function badTargetResponse(method: string, problem: string): MockResponse {
  return errorResponse(400, 'Bad Request', `${method} request refused: ${problem}. Send a path such as /v1/users with a Host header such as localhost:3000`)
}

/**
 * Answers a request whose `Expect` header is not `100-continue` (node's 'checkExpectation'): a
 * JSON 417 with the CORS headers, read by the client like the 413 (what it may still send is
 * drained), instead of node's bare one.
 */
export function answerExpectation(req: IncomingMessage, res: ServerResponse, finish: (response: MockResponse) => MockResponse): void {
  const method = req.method ?? 'GET'
  const response = errorResponse(417, 'Expectation Failed', `${method} ${(req.url ?? '/').slice(0, 200)} refused: the Expect header ${preview(String(req.headers.expect ?? ''), 80)} is not one mockyard can meet (only 100-continue is). Send the request without it`)
  answerThenDrain(req, res, finish(response))
}

/**
 * Answers a `CONNECT host:port` request (a tunnel, what a client asks of a forward proxy) with a
 * JSON 400 and closes that connection: mockyard opens no tunnels, and without an answer the
 * client would only see the connection drop.
 */
export function answerConnect(req: IncomingMessage, socket: Duplex): void {
  const target = preview(req.url ?? '', 80)
  const body = errorResponse(400, 'Bad Request', `CONNECT ${target} refused: mockyard is not a proxy and opens no tunnels. Send requests to mockyard itself (a path such as /v1/users), or use the proxy option to forward the requests no route answers`).body as string
  writeRawError(socket, 400, body)
}

/** Writes a whole error response on a socket the HTTP parser has let go of, then closes it. */
function writeRawError(socket: Duplex, status: number, body: string): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
  setTimeout(() => socket.destroy(), 1000).unref()
}

/**
 * Answers bytes that are not HTTP (the parser's errors) with a JSON error instead of node's bare
 * one, then closes that connection; the server keeps serving the others.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy()
    return
  }
  // HTTP/1.1 answers in order: a request read whole before the bad bytes (pipelined, its latency
  // running) gets its own answer first, never the 400 in its place. (Bad bytes in the body of
  // the request in flight are its own error: answered now.)
  if (inFlight && !inFlight.writableFinished && inFlight.req?.complete) {
    inFlight.once('finish', () => answerClientError(error, socket))
    inFlight.once('close', () => inFlight.writableFinished || socket.destroy())
    return
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? 413 : 400
  const what =
    status === 431 ? 'the request headers are too large'
    : status === 408 ? 'the request took too long to arrive'
    : status === 413 ? 'the extensions of a chunk of the body are too large (HPE_CHUNK_EXTENSIONS_OVERFLOW)'
    : error.code === 'HPE_PAUSED_H2_UPGRADE' ? 'HTTP/2 with prior knowledge (the HTTP/2 preface) is not served: the listener speaks HTTP/1.1'
    : `the request is not valid HTTP (${error.code ?? error.message})`
  const fix =
    status === 431 ? 'Send fewer or smaller headers'
    : status === 413 ? 'Send the body without chunk extensions'
    : error.code === 'HPE_PAUSED_H2_UPGRADE' ? 'Send HTTP/1.1 (curl: drop --http2-prior-knowledge)'
    : 'Send a well-formed HTTP/1.1 request'
  const body = errorResponse(status, STATUS_CODES[status] ?? 'Bad Request', `${what}. ${fix}`).body as string
  writeRawError(socket, status, body)
}

/** A node request's headers as the engine reads them (`get`, names in any case; repeated ones joined). */
class NodeHeaders {
  constructor(readonly req: IncomingMessage) {}
  get(name: string): string | null {
    const value = this.req.headers[name.toLowerCase()]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(', ') : value
  }
}

/** A node request's headers as the engine reads them (one small object per request, its `get` shared). */
export function headerGetter(req: IncomingMessage): { get(name: string): string | null } {
  return new NodeHeaders(req)
}
