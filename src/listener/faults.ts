/**
 * Network faults on a real socket, for the listener and the middleware (docs/behaviour.md,
 * "Faults"): what a client of a flaky back end sees, played with node's own socket calls.
 */
import { setMaxListeners } from 'node:events'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { cutBody, type MockResponse } from '../core/build-response.js'
import { writeMockResponse } from './node-handler.js'

/**
 * Plays `response.fault` on the response's socket:
 * - `reset`: a TCP reset (RST), nothing sent;
 * - `close`: the connection ends (FIN) without a byte of response;
 * - `hang`: nothing is sent, ever; the connection ends when the client gives up, or at once when
 *   `lifetime()` aborts (the session's reset, the server's stop): a hung request is not work in
 *   flight, and it costs no timer;
 * - `truncate`: the status and the headers with the whole body's `Content-Length`, the first half
 *   of the body, then the connection ends. An answer without a body (HEAD, 204, a redirect) has
 *   nothing to cut and is sent whole.
 */
export function playFault(res: ServerResponse, response: MockResponse, head: boolean, lifetime: () => AbortSignal): void {
  const socket = res.socket as Socket | null
  switch (response.fault) {
    case 'reset':
      if (socket) socket.resetAndDestroy()
      else res.destroy()
      return
    case 'close':
      // The request was read whole, so nothing unread turns the close into a reset: a FIN.
      if (socket) socket.destroy()
      else res.destroy()
      return
    case 'hang':
      hang(res, lifetime())
      return
    case 'truncate':
      truncate(res, response, head)
      return
    default:
      writeMockResponse(res, response, head)
  }
}

/** Holds the request open until the client leaves or `lifetime` ends it; no timer, one listener. */
function hang(res: ServerResponse, lifetime: AbortSignal): void {
  if (lifetime.aborted) {
    res.destroy()
    return
  }
  // Many requests may hang at once on one session's signal (bench/fault-hang.mjs holds 1,000).
  setMaxListeners(0, lifetime)
  const end = () => res.destroy()
  lifetime.addEventListener('abort', end, { once: true })
  res.once('close', () => lifetime.removeEventListener('abort', end))
}

/** Status and headers with the full length, half of the body, then the end of the connection. */
function truncate(res: ServerResponse, response: MockResponse, head: boolean): void {
  const cut = head ? undefined : cutBody(response.body)
  if (cut === undefined) {
    writeMockResponse(res, { ...response, fault: undefined }, head)
    return
  }
  const { whole, half } = cut
  const headers: Record<string, string | number> = { ...response.headers, 'content-length': whole.byteLength }
  res.writeHead(response.status, headers)
  if (half.byteLength > 0) res.write(half)
  else res.flushHeaders()
  // `end()` on the socket sends what is queued (the head and the half), then a FIN.
  const socket = res.socket
  if (socket) socket.end()
  else res.destroy()
}
