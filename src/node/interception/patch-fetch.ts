/**
 * mockyard's patch of `globalThis.fetch`: one `Request` built per call, handed to the resolver
 * (a clone only when it has a body), and the mock's own `Response` returned with its `url` set;
 * no event emitter, no deferred promises, no response copy. The contract is that of
 * @mswjs/interceptors 0.41's FetchInterceptor for a mocked response (fetch-semantics.ts).
 *
 * @see https://github.com/mswjs/interceptors/blob/main/src/interceptors/fetch/index.ts
 */
import {
  delivered,
  isNodeLikeError,
  MAX_REDIRECTS,
  networkError,
  redirectRequest,
  REDIRECT_STATUSES,
  requestFrom,
  serverErrorResponse,
  isStreamBody,
  streamedBodies,
  type FetchClasses,
} from './fetch-semantics.js'
import { isBypassed, Unanswered } from '../../harness/unhandled.js'
import { NetworkFault } from './network-fault.js'

/** A request without msw's `accept: msw/passthrough` marker (what msw's own interceptor sends on). */
function withoutBypass(classes: FetchClasses, request: Request): Request {
  const accept = request.headers.get('accept')!.split(',').map((part) => part.trim()).filter((part) => part !== 'msw/passthrough')
  const headers = new classes.Headers(request.headers)
  if (accept.length === 0) headers.delete('accept')
  else headers.set('accept', accept.join(', '))
  return new classes.Request(request, { headers })
}

export interface Wiring {
  resolve(request: Request): Promise<Response | Unanswered | undefined>
  /** The strategy's action on a request resolve() did not answer (with its explanation, if it gave one); resolves with the error to fail it with, if any. */
  unhandled(request: Request, unanswered?: Unanswered): Promise<TypeError | undefined>
}

/**
 * Replaces `globalThis.fetch` with one that answers through `wiring`; returns the function that
 * undoes it. Unanswered requests that pass through go to the fetch found here.
 */
export function patchFetch(wiring: Wiring, classes: FetchClasses): (() => void) | undefined {
  let owner: object | null = globalThis
  let descriptor: PropertyDescriptor | undefined
  while (owner && !(descriptor = Object.getOwnPropertyDescriptor(owner, 'fetch'))) owner = Object.getPrototypeOf(owner) as object | null
  const original = globalThis.fetch
  if (!descriptor || typeof original !== 'function' || (!descriptor.configurable && !descriptor.writable)) return undefined
  const { resolve, unhandled } = wiring
  let disposed = false

  /** Answers a request whose signal cannot abort (or is watched by the caller). */
  async function answer(request: Request, redirects: number, watched: boolean): Promise<Response> {
    // Sent with msw's bypass() (a handler fetching the real answer to patch it): straight to the network, without the marker.
    if (isBypassed(request)) return original(withoutBypass(classes, request))
    const copy = request.body === null ? request : request.clone()
    let response: Response | Unanswered | undefined
    try {
      response = await resolve(copy)
    } catch (error) {
      // docs/behaviour.md, "Faults": a reset or close rejects as undici does over a real socket.
      if (error instanceof NetworkFault) throw error.forFetch()
      if (isNodeLikeError(error)) throw error
      response = error instanceof classes.Response ? error : serverErrorResponse(classes, error)
    }
    if (response === undefined || response instanceof Unanswered) {
      const failure = await unhandled(request, response)
      if (failure) throw failure
      return original(request)
    }
    const status = response.status
    if (status === 0 && response.type === 'error') throw networkError(response)
    if (REDIRECT_STATUSES.has(status)) {
      const mode = request.redirect
      if (mode === 'error') throw networkError('unexpected redirect')
      const location = response.headers.get('location')
      if (mode === 'follow' && location !== null) {
        if (redirects >= MAX_REDIRECTS) throw networkError('redirect count exceeded')
        const next = redirectRequest(classes, request, response, location)
        const final = await (watched ? watch(next, redirects + 1) : answer(next, redirects + 1, false))
        Object.defineProperty(final, 'redirected', { value: true, configurable: true })
        return final
      }
    }
    return delivered(classes, request, response)
  }

  /** `answer()`, failing with the signal's reason as soon as the request's signal aborts. */
  function watch(request: Request, redirects: number): Promise<Response> {
    const signal = request.signal
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise((settle, fail) => {
      const onAbort = () => fail(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      answer(request, redirects, true).then(
        (response) => {
          signal.removeEventListener('abort', onAbort)
          settle(response)
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort)
          fail(error)
        },
      )
    })
  }

  const fetch = function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    if (disposed) return original(input, init)
    let request: Request
    try {
      request = requestFrom(classes, input, init)
    } catch (error) {
      return Promise.reject(error)
    }
    if (init?.body != null && request.body !== null && isStreamBody(init.body)) streamedBodies.add(request)
    // Only a signal from the caller can abort: fetch(url) and fetch(url, init) without one skip the listener.
    return (init != null && init.signal != null) || input instanceof classes.Request ? watch(request, 0) : answer(request, 0, false)
  } as typeof globalThis.fetch

  if (descriptor.configurable) Object.defineProperty(globalThis, 'fetch', { value: fetch, enumerable: true, configurable: true, writable: true })
  else globalThis.fetch = fetch
  const patchedOwn = owner === globalThis

  return () => {
    if (disposed) return
    disposed = true
    // Replaced after us (a spy, another mock): leave it; our fetch now only forwards to the original.
    if (globalThis.fetch !== fetch) return
    if (!descriptor.configurable) globalThis.fetch = original
    else if (patchedOwn) Object.defineProperty(globalThis, 'fetch', descriptor)
    else Reflect.deleteProperty(globalThis, 'fetch')
  }
}
