import type { EngineRequest } from './parse-request.js'
import { cutBody, type MockResponse } from './build-response.js'
import { realSetTimeout } from './real-clock.js'
import { CUT_DELAY_MS } from './stream-body.js'

/**
 * Wraps a Fetch `Request` for the engine. The body is read from a clone, once, so a handler
 * after mockyard's can still read it when mockyard does not answer; a request without a body
 * (and one whose body was read already) gives it without a wait.
 */
export function fromFetchRequest(request: Request): EngineRequest {
  // The bytes once read: later calls get them without a wait.
  let body: Uint8Array | null | Promise<Uint8Array | null> | undefined = request.body === null ? null : undefined
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    signal: request.signal,
    body() {
      // A promise of this realm: under Jest the test's globals live in a vm context while Node's
      // fetch classes answer with promises of the outer one, which `instanceof Promise` misses.
      body ??= Promise.resolve(request.clone().arrayBuffer()).then((buffer) => (body = new Uint8Array(buffer)))
      return body
    },
  }
}

/** Turns the engine's plain response into a Fetch `Response` (a streamed body marked: `isStreamed`). */
export function toFetchResponse(response: MockResponse): Response {
  const fetchResponse = new Response(response.body as BodyInit | null, { status: response.status, headers: response.headers })
  return response.body instanceof ReadableStream ? Object.defineProperty(fetchResponse, STREAMED, { value: true }) : fetchResponse
}

/**
 * The Fetch `Response` of a `truncate` fault (docs/behaviour.md, "Faults"): the status and the
 * headers with the whole body's `Content-Length`, a body that gives its first half and then
 * fails with `error()` (what each surface's client sees when a connection drops mid-body). An
 * answer without a body has nothing to cut: `undefined`, and it is sent whole.
 */
export function truncatedResponse(response: MockResponse, error: () => unknown): Response | undefined {
  // A streamed body was cut when it was built (half its pieces, then it fails): marked only, so
  // that a client that cannot read a body failing midway (an intercepted XHR) fails it whole.
  if (response.body instanceof ReadableStream) return Object.defineProperty(toFetchResponse(response), TRUNCATED, { value: true })
  const cut = cutBody(response.body)
  if (cut === undefined) return undefined
  const { whole, half } = cut
  // The first pull comes as the half is taken from the queue; the next one only once the client
  // asks for more, so it holds the half by then. The connection "drops" there, CUT_DELAY_MS later.
  let pulls = 0
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (half.byteLength > 0) controller.enqueue(half)
      else pulls = 1
    },
    pull(controller) {
      if (++pulls < 2) return
      return new Promise<void>((resolve) =>
        realSetTimeout(() => {
          controller.error(error())
          resolve()
        }, CUT_DELAY_MS),
      )
    },
  })
  const truncated = new Response(stream, { status: response.status, headers: { ...response.headers, 'content-length': String(whole.byteLength) } })
  return Object.defineProperty(truncated, TRUNCATED, { value: true })
}

/**
 * A fault where a network error is `Response.error()` (docs/behaviour.md, "Faults"): the page's
 * worker and msw handlers. `reset` and `close` are that error (fetch rejects with a `TypeError`,
 * XHR fires `error`); `hang` stays pending until the request's signal or the `lifetime` aborts
 * (a reset, a stop), then fails the same way; `truncate` answers with a body that fails with
 * `TypeError(cutMessage)` after its first half.
 */
export async function networkFault(response: MockResponse, request: Request, lifetime: () => AbortSignal, cutMessage: string): Promise<Response> {
  if (response.fault === 'hang') await untilAborted([request.signal, lifetime()])
  if (response.fault !== 'truncate') return Response.error()
  return truncatedResponse(response, () => new TypeError(cutMessage)) ?? toFetchResponse(response)
}

/** Marks a `truncatedResponse` (a constant key: no module state). */
const TRUNCATED = Symbol.for('mockyard.truncated')
const STREAMED = Symbol.for('mockyard.streamed')

/**
 * Whether a response's body is streamed piece by piece (`stream`, `events`): it may stay open long
 * after its headers, so a client that goes away must end it (node/interception/client-request.ts).
 */
export function isStreamed(response: Response): boolean {
  return (response as unknown as Record<symbol, unknown>)[STREAMED] === true
}

/** Whether a response is a `truncatedResponse`: a client that cannot read a body cut short (an intercepted XHR) fails it whole. */
export function isTruncated(response: Response): boolean {
  return (response as unknown as Record<symbol, unknown>)[TRUNCATED] === true
}

/**
 * Waits for the first of `signals` to abort (a hung request: the client's signal, the session's
 * lifetime), and resolves with the one that did; listeners are removed then. No timer: a hang
 * costs nothing while it waits.
 */
export function untilAborted(signals: ReadonlyArray<AbortSignal | undefined | null>): Promise<AbortSignal> {
  const live = signals.filter((signal): signal is AbortSignal => signal != null)
  const aborted = live.find((signal) => signal.aborted)
  if (aborted) return Promise.resolve(aborted)
  return new Promise((resolve) => {
    const listeners = live.map((signal) => {
      const listener = () => {
        live.forEach((other, i) => other.removeEventListener('abort', listeners[i]!))
        resolve(signal)
      }
      signal.addEventListener('abort', listener, { once: true })
      return listener
    })
  })
}
