/**
 * The WebSocket script every surface runs (docs/behaviour.md, "WebSocket"): the listener (the
 * `ws` package), the in-process interception and the browser worker (the interceptors' and msw's
 * WebSocket classes) each adapt their socket to a `SocketPort`, and this module sends the route's
 * steps on open, replies to client messages that match, records the connection and every message
 * in the request log, and closes the socket with 1012 when its session's lifetime ends (a
 * reset, a dropped session, the surface stopping). Isomorphic: timers and Fetch globals only.
 */
import type { CompiledRoute } from '../core/compile-routes.js'
import { formatMessage } from '../core/errors.js'
import { explainMessage, matchMessage, messageText, outText, type CompiledSocket, type OutMessage, type SocketStep } from '../core/websocket.js'
import type { LogEntry, RequestInput } from './request-log.js'
import { realClearTimeout, realSetTimeout } from '../core/real-clock.js'

/** What a surface offers the script for one open socket. */
export interface SocketPort {
  /** Sends one message (text, or bytes for a data file that is not UTF-8 text). */
  send(data: string | Uint8Array): void
  /** Closes from the server side with a close frame. */
  close(code: number, reason?: string): void
  /** Ends the connection without a close frame. */
  drop(): void
  /** A promise while the client has not drained enough of what was sent (the next message waits for it). */
  ready?(): Promise<void> | undefined
}

/** What the surface tells a running script. */
export interface OpenSocket {
  /** A client message arrived (binary messages as their UTF-8 text). */
  message(text: string): void
  /** The socket closed, from either side: pending steps are dropped. */
  closed(): void
}

/** A route with `websocket` steps that a connection opened on: accept it with the surface's port. */
export interface SocketScript {
  readonly kind: 'script'
  /** The route key (`v1/chat`). */
  readonly route: string
  accept(port: SocketPort): OpenSocket
}

/** What the script needs of the pipeline: the log and the session's lifetime. */
export interface SocketContext {
  readonly route: CompiledRoute
  readonly socket: CompiledSocket
  /** The URL the socket was opened on (`ws://host/v1/chat`). */
  readonly url: string
  readonly session: string
  /** The upgrade request's headers, as the log takes them. */
  readonly headers: RequestInput['headers']
  /** Adds a record to the request log (the pipeline fills in the session and the time). */
  record(input: SocketRecord): LogEntry
  /** Aborts when the socket must close (reset of its session or everyone's, a dropped session, stop). */
  readonly lifetime: AbortSignal
  /** Where a data file that cannot be read is reported. */
  readonly logError?: (message: string) => void
}

/** The fields of one WebSocket record the script decides. */
export interface SocketRecord {
  direction?: 'in' | 'out'
  url: string
  headers: RequestInput['headers']
  body: string | Uint8Array | null
  matched: boolean
  route: string
  entry?: string
  file?: string
  explanation?: () => string
}

/** The close code of a socket ended by a reset or a stop: "Service Restart" (RFC 6455, 7.4.1). */
export const RESET_CLOSE_CODE = 1012

const NO_HEADERS: readonly string[] = Object.freeze([])

/** The bytes of a data file as a message: text when it is valid UTF-8, else the bytes. */
function fileMessage(bytes: Uint8Array): string | Uint8Array {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return bytes
  }
}

/**
 * Runs a route's steps over one socket. `accept` sends the steps without `on` in order (each
 * `delay` after the previous send), then each client message gets the reply that matches (its
 * `delay` counted from the message), or is recorded as unmatched with the closest step.
 */
export function socketScript(context: SocketContext): SocketScript {
  const { route, socket, url, lifetime } = context
  return {
    kind: 'script',
    route: route.key,
    accept(port) {
      let open = true
      const timers = new Set<ReturnType<typeof setTimeout>>()
      const wait = (ms: number) =>
        new Promise<boolean>((resolve) => {
          if (ms <= 0) return resolve(open)
          const timer = realSetTimeout(() => {
            timers.delete(timer)
            resolve(open)
          }, ms)
          timers.add(timer)
        })
      const end = () => {
        if (!open) return
        open = false
        for (const timer of timers) realClearTimeout(timer)
        timers.clear()
        lifetime.removeEventListener('abort', onAbort)
      }
      const onAbort = () => {
        if (!open) return
        end()
        port.close(RESET_CLOSE_CODE, 'mockyard reset')
      }

      /** One message of a step: its text, or a data file's contents (read when sent). */
      const render = async (out: OutMessage, message: unknown): Promise<{ data: string | Uint8Array; file?: string } | undefined> => {
        if (!('file' in out)) return { data: outText(out, message) }
        const bytes = socket.files.readCached?.(out.file) ?? (await socket.files.read(out.file))
        if (bytes === undefined) {
          context.logError?.(formatMessage(`the data file "${out.file}" of route ${route.key} (websocket) is missing from ${socket.files.label}: the message is not sent.`))
          return undefined
        }
        return { data: fileMessage(bytes), file: out.file }
      }

      /** After a step's messages: closes or drops if it says so; false once the socket is closed. */
      const finish = (step: SocketStep): boolean => {
        if (step.drop) {
          end()
          port.drop()
          return false
        }
        if (step.close !== undefined) {
          end()
          port.close(step.close)
          return false
        }
        return open
      }
      const sent = (step: SocketStep, data: string | Uint8Array, file?: string) => {
        port.send(data)
        context.record({ direction: 'out', url, headers: NO_HEADERS, body: data, matched: true, route: route.key, entry: step.label, file })
      }

      /** Sends a step's messages one at a time, each once the client has drained enough; false once the socket is closed. */
      const deliver = async (step: SocketStep, message: unknown): Promise<boolean> => {
        for (const out of step.send) {
          // A client that does not read holds the queue here, not in the socket's buffers.
          const ready = port.ready?.()
          if (ready) await ready
          if (!open) return false
          const rendered = await render(out, message)
          if (!open) return false
          if (rendered !== undefined) sent(step, rendered.data, rendered.file)
        }
        return finish(step)
      }

      /**
       * The socket's one queue of sends: steps leave in the order they fall due, one message at
       * a time, so what waits for a slow client is a step to send, never its rendered messages.
       * With nothing queued, a step of texts goes at once, without a promise (the common reply).
       */
      let outbox: Promise<boolean> = Promise.resolve(true)
      let queued = 0
      const send = (step: SocketStep, message: unknown): boolean | Promise<boolean> => {
        if (!open) return false
        if (queued === 0 && step.inline && port.ready?.() === undefined) {
          for (const out of step.send) sent(step, outText(out as Exclude<OutMessage, { file: string }>, message))
          return finish(step)
        }
        queued++
        const done = outbox.then(
          () => deliver(step, message),
          () => false,
        )
        outbox = done
        const settled = () => {
          queued--
        }
        done.then(settled, settled)
        return done
      }
      /** Sends a step after its delay (counted from now), in turn; false once the socket is closed. */
      const run = (step: SocketStep, message?: unknown): boolean | Promise<boolean> =>
        step.delay > 0 ? wait(step.delay).then((ok) => ok && send(step, message)) : send(step, message)

      const failed = (error: unknown) => context.logError?.(formatMessage(`the WebSocket script of route ${route.key} failed: ${(error as Error)?.message ?? String(error)}`))

      context.record({ url, headers: context.headers, body: null, matched: true, route: route.key, entry: 'websocket' })
      if (lifetime.aborted) queueMicrotask(onAbort)
      else lifetime.addEventListener('abort', onAbort, { once: true })
      void (async () => {
        for (const step of socket.open) if (!(await run(step))) return
      })().catch(failed)

      return {
        message(text) {
          if (!open) return
          const reply = matchMessage(socket, text)
          if (!reply) {
            context.record({ direction: 'in', url, headers: NO_HEADERS, body: text, matched: false, route: route.key, explanation: () => formatMessage(explainMessage(socket, route.key, text)) })
            return
          }
          context.record({ direction: 'in', url, headers: NO_HEADERS, body: text, matched: true, route: route.key, entry: reply.step.label })
          const replied = run(reply.step, reply.message)
          if (replied instanceof Promise) replied.catch(failed)
        },
        closed: end,
      }
    },
  }
}

/** A WebSocket opened where no route has `websocket` steps: explained, and recorded once the surface knows what it did. */
export interface UnmatchedSocket {
  readonly kind: 'unmatched'
  explanation(): string
  /** Records the attempt: the status the surface answered the upgrade with (0: it went to the network). */
  settle(status: number): LogEntry
}

/** What `openSocket` needs of a pipeline. */
export interface SocketOpening {
  /** The table of the opening's session (its overrides included). */
  readonly table: { lookup(pathname: string): { route: CompiledRoute } | undefined }
  readonly session: string
  readonly url: string
  readonly headers: RequestInput['headers']
  add(input: RequestInput): LogEntry
  readonly lifetime: AbortSignal
  /** Why no route answers the path (the engine's explanation of a WebSocket's GET there). */
  explainPath(): string
  readonly logError?: (message: string) => void
}

/**
 * The script for a WebSocket opened on `url`, or why none (no route there, or a route without
 * `websocket` steps). Every record is a `kind: 'websocket'` one, status 101 (the connection and
 * its messages) or the status the surface answered a refused upgrade with.
 */
export function openSocket(opening: SocketOpening): SocketScript | UnmatchedSocket {
  const { session, url } = opening
  const started = performance.now()
  const time = Date.now()
  const found = opening.table.lookup(new URL(url).pathname)
  const socket = found?.route.websocket
  if (!found || !socket) {
    const explanation = () =>
      found
        ? formatMessage(`a WebSocket opened on ${new URL(url).pathname}, but route ${found.route.key} has no "websocket" steps. Add "websocket": [ { "send": ... } ] to the route.`)
        : opening.explainPath()
    return {
      kind: 'unmatched',
      explanation,
      settle: (status) =>
        opening.add({ time, method: 'GET', url, headers: opening.headers, body: null, session, durationMs: Math.round((performance.now() - started) * 100) / 100, status, matched: false, kind: 'websocket', explanation }),
    }
  }
  return socketScript({
    route: found.route,
    socket,
    url,
    session,
    headers: opening.headers,
    lifetime: opening.lifetime,
    logError: opening.logError,
    record: (record) =>
      opening.add({
        ...record,
        time: Date.now(),
        method: record.direction ? 'MESSAGE' : 'GET',
        session,
        durationMs: 0,
        status: 101,
        kind: 'websocket',
      }),
  })
}

/**
 * The client side of an intercepted socket, as @mswjs/interceptors (in process) and msw's `ws`
 * API (in the browser) hand it over: a mock `WebSocket` the page or test holds.
 */
export interface ClientConnection {
  readonly url: URL
  /** The client's `WebSocket` object (its events). */
  readonly socket: EventTarget
  send(data: string | Uint8Array): void
  close(code?: number, reason?: string): void
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void
  addEventListener(type: 'close', listener: (event: Event) => void): void
}

/**
 * Closes an intercepted client as a lost connection does: code 1006 and `wasClean: false`, as the
 * listener's `drop` gives. msw's interceptor closes every socket cleanly (its close event is built
 * inside, with `wasClean: true`), so the one close event of this socket is marked on its way out
 * as not clean; every listener, `onclose` included, gets it so.
 */
function closeUncleanly(client: ClientConnection): void {
  const socket = client.socket as EventTarget & { dispatchEvent(event: Event): boolean }
  const dispatch = socket.dispatchEvent
  socket.dispatchEvent = function (this: EventTarget, event: Event): boolean {
    if (event.type !== 'close') return dispatch.call(this, event)
    // The socket's own method again (the patch lived on the instance only, for this one event).
    delete (socket as { dispatchEvent?: unknown }).dispatchEvent
    // The event itself is marked (Node 22 has no global CloseEvent to build another with).
    Object.defineProperty(event, 'wasClean', { value: false, configurable: true, enumerable: true })
    return dispatch.call(this, event)
  }
  client.close(1006)
}

/** Runs a route's script on an intercepted client: what the in-process interception and the worker share. */
export function driveClient(script: SocketScript, client: ClientConnection): void {
  // The steps start once the client's socket is open: a message sent while it connects would wait
  // for the open event, and a close meanwhile would drop it. What the client sends before the
  // script starts (in its own open listener) waits for it.
  let running: OpenSocket | undefined
  const early: string[] = []
  const received = (text: string) => (running ? running.message(text) : early.push(text))
  // Messages are handled in the order they came: behind a Blob still being read, the next ones wait.
  let pending: Promise<void> | undefined
  client.addEventListener('message', (event) => {
    const text = messageText(event.data as string | ArrayBuffer | Blob)
    if (typeof text === 'string' && pending === undefined) return received(text)
    const after = (pending ?? Promise.resolve()).then(() => text).then(received)
    const settled = after.then(
      () => {
        if (pending === settled) pending = undefined
      },
      () => {
        if (pending === settled) pending = undefined
      },
    )
    pending = settled
  })
  let closed = false
  client.addEventListener('close', () => {
    closed = true
    running?.closed()
  })
  const start = () => {
    if (closed) return
    // The interceptor delivers a message in a microtask, and drops it if the socket is closing
    // by then: a close waits for the messages sent before it.
    running = script.accept({
      send: (data) => client.send(data),
      close: (code, reason) => queueMicrotask(() => client.close(code, reason)),
      drop: () =>
        queueMicrotask(() => {
          client.socket.dispatchEvent(new Event('error'))
          closeUncleanly(client)
        }),
    })
    for (const text of early.splice(0)) running.message(text)
  }
  const socket = client.socket as EventTarget & { readyState?: number }
  if (socket.readyState === 0) socket.addEventListener('open', start, { once: true })
  else start()
}
