import type { EngineRequest } from './parse-request.js'
import type { MockResponse } from './build-response.js'

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
    body() {
      // A promise of this realm: under Jest the test's globals live in a vm context while Node's
      // fetch classes answer with promises of the outer one, which `instanceof Promise` misses.
      body ??= Promise.resolve(request.clone().arrayBuffer()).then((buffer) => (body = new Uint8Array(buffer)))
      return body
    },
  }
}

/** Turns the engine's plain response into a Fetch `Response`. */
export function toFetchResponse(response: MockResponse): Response {
  return new Response(response.body as BodyInit | null, { status: response.status, headers: response.headers })
}
