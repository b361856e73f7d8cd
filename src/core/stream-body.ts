/**
 * Bodies sent on a schedule (docs/behaviour.md, "Streams and Server-Sent Events"): a file cut
 * into pieces (`stream`), and Server-Sent Events (`events`). Both become one `ReadableStream`
 * whose chunks are enqueued when due, so every surface sends them the same way: the listener
 * writes and flushes each chunk as it comes, in process and in the worker the client reads the
 * stream itself. Isomorphic: Fetch globals only.
 */
import { realClearTimeout, realSetTimeout } from './real-clock.js'

/**
 * How long after the client took what a `truncate` sends the body fails (a file's first half, a
 * stream's first half of its pieces). Through the page's service worker those bytes still have a
 * way to go (msw's transfer to the worker, then Chromium's loader): an error sent at once can
 * overtake them, and Chromium then drops the bytes the page's fetch had not read yet. A client
 * reading through a socket of its own (msw 3's interceptors in Node) also gets them first, as
 * from a real server.
 */
export const CUT_DELAY_MS = 100

/** One chunk of a timed body and the wait before it (ms, after the previous one). */
export interface TimedPiece {
  readonly bytes: Uint8Array
  readonly delay: number
}

/** What ends an open body early: the session's lifetime (reset, stop) and the client's own signal. */
export interface TimedBodyOptions {
  /** After the last piece, stay open (an event feed with nothing new) until the client or the lifetime ends it. */
  readonly keepOpen: boolean
  /** Aborted at the session's reset and when the surface stops: the body ends (closes) at once. */
  readonly lifetime?: AbortSignal
  /** The client's own signal (a fetch's `AbortSignal` in process): the body errors with its reason, as a real one does. */
  readonly signal?: AbortSignal
  /** A `truncate` fault: after the last piece the body fails (`TypeError: terminated`), as a connection that ends mid-body. */
  readonly cut?: boolean
}

export interface TimedBody {
  readonly stream: ReadableStream<Uint8Array>
  /** Resolves when the body ends: everything sent, the client cancelled or left, or the lifetime ended. */
  readonly ended: Promise<void>
}

// The real clock (real-clock.ts): fake timers never freeze a mock's stream.
const realNow = performance.now.bind(performance)

/**
 * The pieces of a timed body, by index: an array of them, or a body cut on demand
 * (`cutPieces`), so a long body is not copied into thousands of pieces before the first is sent.
 */
export interface TimedPieces {
  readonly length: number
  at(index: number): TimedPiece | undefined
}

/**
 * A stream that enqueues each piece when due, and when the reader has room for it: the first
 * after its own delay (0: at once), each next `delay` ms after the one before, on a schedule kept
 * from the start (a late timer or a slow reader does not push the rest later; what fell due
 * meanwhile is sent as fast as it is read). Nothing is queued ahead of the reader (the stream's
 * `pull`), so a client that does not read holds one piece, not the body. Every timer is cleared
 * when the body ends, however it ends.
 *
 * @example
 * const { stream } = timedBody([{ bytes: a, delay: 0 }, { bytes: b, delay: 50 }], { keepOpen: false })
 */
export function timedBody(pieces: TimedPieces, options: TimedBodyOptions): TimedBody {
  let timer: ReturnType<typeof setTimeout> | undefined
  /** Settles the `pull` that waits for a timer, when the body ends first. */
  let wake: (() => void) | undefined
  let done = false
  let finished!: () => void
  const ended = new Promise<void>((resolve) => (finished = resolve))
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const { lifetime, signal } = options

  const end = (how: 'close' | 'error' | 'cancel', reason?: unknown) => {
    if (done) return
    done = true
    if (timer !== undefined) realClearTimeout(timer)
    timer = undefined
    wake?.()
    wake = undefined
    lifetime?.removeEventListener('abort', onLifetimeEnd)
    signal?.removeEventListener('abort', onClientAbort)
    try {
      if (how === 'close') controller.close()
      else if (how === 'error') controller.error(reason)
    } catch {
      // Already closed or errored by the reader: nothing more to end.
    }
    finished()
  }
  const onLifetimeEnd = () => end('close')
  const onClientAbort = () => end('error', signal!.reason)

  /** Every piece of a cut body (`cut`) is sent: it fails once they are read. */
  let cutting = false
  let index = 0
  /** When the last piece sent was due (the schedule is kept from there, not from when its timer fired). */
  let due = 0
  /** Sends a piece; true when it gave the reader bytes. After the last one the body closes (or is cut). */
  const send = (piece: TimedPiece): boolean => {
    index++
    // An empty piece only waits (the delay of a `close` item).
    const sent = piece.bytes.byteLength > 0
    if (sent) controller.enqueue(piece.bytes)
    if (index >= pieces.length) {
      if (options.cut) cutting = true
      else if (!options.keepOpen) end('close')
    }
    return sent
  }
  /** The reader has room: the next piece when it is due, after any that are due and empty. */
  const next = (): Promise<void> | undefined => {
    while (!done && index < pieces.length) {
      const piece = pieces.at(index)!
      const at = due + piece.delay
      // One reading of the clock: a wait computed from a second one could come out negative (Node warns).
      const wait = at - realNow()
      if (piece.delay > 0 && wait > 0) {
        return new Promise<void>((resolve) => {
          wake = resolve
          timer = realSetTimeout(() => {
            timer = undefined
            wake = undefined
            due = at
            if (send(piece) || done) return resolve()
            // An empty piece (a close's delay) gave the reader nothing: on to the next.
            const later = next()
            if (later) void later.then(resolve)
            else resolve()
          }, wait)
        })
      }
      due = at
      if (send(piece)) return undefined
    }
    return undefined
  }

  const stream = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController
      if (lifetime?.aborted) return end('close')
      if (signal?.aborted) return end('error', signal.reason)
      lifetime?.addEventListener('abort', onLifetimeEnd, { once: true })
      signal?.addEventListener('abort', onClientAbort, { once: true })
      due = realNow()
      // A body with no pieces (an events list of a close alone) ends at once.
      if (pieces.length === 0) {
        if (options.cut) cutting = true
        else if (!options.keepOpen) end('close')
      }
    },
    pull() {
      if (done) return
      // A cut body fails once what was sent is read (an error drops the pieces still queued),
      // CUT_DELAY_MS later, as a connection that drops after the last bytes it carried.
      if (cutting) {
        return new Promise<void>((resolve) =>
          realSetTimeout(() => {
            end('error', new TypeError('terminated'))
            resolve()
          }, CUT_DELAY_MS),
        )
      }
      return next()
    },
    cancel() {
      end('cancel')
    },
  })
  return { stream, ended }
}

/**
 * Cuts a body into `stream` pieces: lines (each with its newline) or `by` bytes at a time. Each
 * piece is copied when it is sent, so a client gets chunks of its own (never views of a cached
 * data file), and a body waiting for a slow client holds no copies.
 */
export function cutPieces(body: Uint8Array, by: 'line' | number, delay: number): TimedPieces {
  // Where each piece starts: lines are found once, a fixed size needs no list.
  let starts: number[] | undefined
  if (by === 'line') {
    starts = []
    for (let start = 0; start < body.byteLength; ) {
      starts.push(start)
      const newline = body.indexOf(10, start)
      start = newline === -1 ? body.byteLength : newline + 1
    }
  }
  const size = by === 'line' ? 0 : Math.max(1, Math.floor(by))
  const length = starts ? starts.length : Math.ceil(body.byteLength / size)
  return {
    length,
    at(index) {
      if (index < 0 || index >= length) return undefined
      const start = starts ? starts[index]! : index * size
      const end = starts ? (starts[index + 1] ?? body.byteLength) : Math.min(body.byteLength, start + size)
      return { bytes: body.slice(start, end), delay: index === 0 ? 0 : delay }
    },
  }
}

/** An item of `events` as written (validated at load). */
interface EventItem {
  data?: unknown
  event?: unknown
  id?: unknown
  retry?: unknown
  delay?: unknown
  close?: unknown
}

/** What an `events` list answers a request: a `204` (a stopped stream's reconnect), or the pieces to send. */
export type EventsPlan = { readonly stop: true } | { readonly stop: false; readonly pieces: TimedPiece[]; readonly keepOpen: boolean }

const CONTEXT = '${context}'
const encoder = new TextEncoder()

/**
 * The events a request gets (docs/behaviour.md, "Streams and Server-Sent Events"): from the
 * start, or after the event whose id is `lastEventId` (an unknown id: from the start), skipping a
 * `close: true` that ended the stream there before when more events follow it. Everything up to the next `close` item is
 * sent; without one, the stream stays open after the last event. When the first item to send is
 * a `close: "stop"`, the answer is `204`, which makes an `EventSource` stop reconnecting.
 */
export function planEvents(list: readonly unknown[], lastEventId: string | null, context: string): EventsPlan {
  const items = list as readonly EventItem[]
  let start = 0
  if (lastEventId !== null) {
    const found = items.findIndex((item) => item !== null && typeof item === 'object' && item.id !== undefined && String(item.id) === lastEventId)
    if (found !== -1) {
      start = found + 1
      // The close that ended the stream after that event has been seen: go on after it, when
      // more events follow it. A close that is the list's last item ends the reconnect too: the
      // feed has ended (`close: "stop"` also stops the client's reconnecting).
      let next = start
      while (next < items.length && items[next]?.close === true) next++
      if (next < items.length) start = next
    }
  }
  if (items[start]?.close === 'stop') return { stop: true }
  const pieces: TimedPiece[] = []
  for (let i = start; i < items.length; i++) {
    const item = items[i]!
    const delay = typeof item.delay === 'number' ? item.delay : 0
    if (item.close !== undefined && item.close !== false) {
      // The close's own delay: the stream ends that much after the last event.
      if (delay > 0) pieces.push({ bytes: new Uint8Array(0), delay })
      return { stop: false, pieces, keepOpen: false }
    }
    pieces.push({ bytes: encoder.encode(formatEvent(item, context)), delay })
  }
  return { stop: false, pieces, keepOpen: true }
}

/** One event on the wire: `event:`, `id:`, `retry:`, then the data (JSON on one line; a string's lines each as a `data:` line), then a blank line. */
export function formatEvent(item: EventItem, context: string): string {
  let text = ''
  if (item.event !== undefined) text += `event: ${String(item.event)}\n`
  if (item.id !== undefined) text += `id: ${String(item.id)}\n`
  if (typeof item.retry === 'number') text += `retry: ${item.retry}\n`
  if (item.data !== undefined) {
    const data =
      typeof item.data === 'string'
        ? item.data.replaceAll(CONTEXT, context)
        : // In JSON, `${context}` is replaced inside its strings, escaped as a JSON string's content.
          JSON.stringify(item.data).replaceAll(CONTEXT, JSON.stringify(context).slice(1, -1))
    for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`
  }
  return text + '\n'
}
