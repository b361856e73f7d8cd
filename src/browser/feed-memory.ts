/**
 * The `Last-Event-ID` of an `EventSource`'s reconnect, kept by the page (docs/streams.md,
 * "In the browser"). Chromium does not show that header to a service worker's fetch, so through
 * the worker every reconnect would look like a first connection: a feed ended with
 * `{ "close": "stop" }` would be replayed forever, and one ended with `{ "close": true }` would
 * start again from its first event. The worker's handler remembers, per URL, the last event id
 * of each feed the routes ended, and gives it to the next event-stream request to that URL that
 * comes without one: that request is the reconnect.
 */

/** What the worker's handler asks of the memory; one per `startWorker` call (its session). */
export interface FeedMemory {
  /** The request the routes get: an `EventSource`'s reconnect without `Last-Event-ID` gets the remembered id (once). */
  resume(request: Request): Request
  /** The response the page gets: an event stream, watched so that its last id is remembered when the routes end it. */
  watch(request: Request, response: Response): Response
  /** Forgets every id (a reset, a stop): the next `EventSource` starts its feed from the start. */
  forget(): void
}

/** An `EventSource` asks with `Accept: text/event-stream`. */
const isEventStreamRequest = (request: Request) => request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/event-stream')

/**
 * A memory of the last event ids, by URL.
 *
 * @example
 * const feeds = feedMemory()
 * const response = feeds.watch(request, await answer(feeds.resume(request)))
 */
export function feedMemory(): FeedMemory {
  const lastIds = new Map<string, string>()
  // Bumped by forget(): a feed that a reset ends does not leave its id behind.
  let generation = 0
  return {
    resume(request) {
      if (!isEventStreamRequest(request)) return request
      const remembered = lastIds.get(request.url)
      lastIds.delete(request.url)
      if (remembered === undefined || request.headers.has('last-event-id')) return request
      const headers = new Headers(request.headers)
      headers.set('last-event-id', remembered)
      return new Request(request, { headers })
    },
    watch(request, response) {
      if (!isEventStreamRequest(request) || response.body === null || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response
      const started = generation
      const ids = lastEventIdReader()
      const body = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            ids.read(chunk)
            controller.enqueue(chunk)
          },
          // Called only when the routes end the feed (a client's close cancels instead).
          flush() {
            const id = ids.last()
            if (started === generation && id) lastIds.set(request.url, id)
          },
        }),
      )
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    },
    forget() {
      generation++
      lastIds.clear()
    },
  }
}

/** Follows the `id:` fields of an event stream as the browser does: the last one wins, an empty one clears it. */
function lastEventIdReader(): { read(chunk: Uint8Array): void; last(): string | undefined } {
  const decoder = new TextDecoder()
  let pending = ''
  let last: string | undefined
  return {
    read(chunk) {
      const lines = (pending + decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/)
      pending = lines.pop() ?? ''
      for (const line of lines) {
        if (line !== 'id' && !line.startsWith('id:')) continue
        const value = line.slice(3).replace(/^ /, '')
        if (!value.includes('\0')) last = value
      }
    },
    last: () => last,
  }
}
