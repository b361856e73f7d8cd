import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Instance } from '../config/instance.js'
import { summarize } from './dashboard-snapshot.js'

/** How often new records go out, at most (one batch per interval, never one event per request). */
export const BATCH_MS = 250
/** Records in one batch; more new records than this since the last batch: the page reloads the log. */
export const BATCH_LIMIT = 200
/**
 * Bytes a client may leave unread in the listener (its socket's write buffer) before it is dropped:
 * its connection is closed and what it had not read is freed; the page reconnects by itself and
 * reloads the log. Exported for the tests.
 */
export const SLOW_BYTES = 256 * 1024
/** A comment line now and then keeps proxies and the browser from closing an idle stream. */
const HEARTBEAT_MS = 15_000

/** The event stream's response headers (a `HEAD` gets them too). */
const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
}

interface Client {
  res: ServerResponse
}

interface Hub {
  clients: Set<Client>
  timer?: NodeJS.Timeout
  lastId: number
  clears: number
  streamEnds: number
  reloads: number
  beat: number
}

const hubs = new WeakMap<Instance, Hub>()

/**
 * The dashboard's live feed, as server-sent events (docs/behaviour.md, "The dashboard").
 *
 * Bounded so that a flood of requests cannot slow the listener or the page: the request path
 * does no work for it (a timer reads the log's newest id every `BATCH_MS` while a page is
 * open); at most one `requests` event per interval, with at most `BATCH_LIMIT` records, else a
 * `resync` (the page reloads the log, which is bounded itself); each event is serialised once,
 * whatever the number of clients; a client that leaves more than `SLOW_BYTES` unread is
 * dropped (its connection closed), so a hung tab costs at most that much.
 *
 * Events: `requests` (summaries, oldest first), `cleared` (a reset emptied the log or part
 * of it), `reload` (the live-reload status changed), `resync` (also when a streamed answer
 * ended: its record changed).
 *
 * `head`: a `HEAD` request gets the stream's headers and its end at once, and joins no feed.
 */
export function openEventStream(instance: Instance, _req: IncomingMessage, res: ServerResponse, head = false): void {
  if (head) {
    // Node sends no body for HEAD and holds the headers back until the first body byte or the
    // end: a stream left open would answer nothing, ever, and keep a client on the feed.
    res.writeHead(200, STREAM_HEADERS)
    res.end()
    return
  }
  let hub = hubs.get(instance)
  if (!hub) {
    hub = { clients: new Set(), lastId: instance.log.lastId, clears: instance.log.clears, streamEnds: instance.log.streamEnds, reloads: instance.reloads.count, beat: 0 }
    hubs.set(instance, hub)
  }
  if (hub.clients.size === 0) {
    // Nobody listened until now: start from the present.
    hub.lastId = instance.log.lastId
    hub.clears = instance.log.clears
    hub.streamEnds = instance.log.streamEnds
    hub.reloads = instance.reloads.count
  }
  res.writeHead(200, STREAM_HEADERS)
  res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ lastId: hub.lastId })}\n\n`)
  const client: Client = { res }
  hub.clients.add(client)
  const drop = () => {
    hub.clients.delete(client)
    if (hub.clients.size === 0 && hub.timer) {
      clearInterval(hub.timer)
      hub.timer = undefined
    }
  }
  res.on('close', drop)
  if (!hub.timer) {
    const current = hub
    hub.timer = setInterval(() => tick(instance, current), BATCH_MS)
    hub.timer.unref()
  }
}

/**
 * Sends `text` to a client, or drops the client when it left more than `SLOW_BYTES` unread: what
 * the kernel would not take waits in the socket's buffer, which would otherwise grow with every
 * batch for as long as the client does not read (a suspended tab, a hung script).
 */
function write(client: Client, text: string): void {
  const res = client.res
  if (res.destroyed) return
  // The response's writableLength counts its socket's buffer too (what the kernel did not take).
  if (res.writableLength > SLOW_BYTES) {
    res.destroy()
    return
  }
  res.write(text)
}

/** One event to every client, serialised once. */
function broadcast(hub: Hub, event: string, data: unknown): void {
  const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
  for (const client of hub.clients) write(client, text)
}

function tick(instance: Instance, hub: Hub): void {
  const log = instance.log
  if (log.clears !== hub.clears) {
    hub.clears = log.clears
    broadcast(hub, 'cleared', { lastId: log.lastId })
  }
  if (instance.reloads.count !== hub.reloads) {
    hub.reloads = instance.reloads.count
    broadcast(hub, 'reload', { ...instance.reloads })
  }
  const lastId = log.lastId
  // A streamed answer ended: its record changed (`stream: "ended"`), so the page reads the log afresh.
  const streamEnded = log.streamEnds !== hub.streamEnds
  hub.streamEnds = log.streamEnds
  if (lastId > hub.lastId || streamEnded) {
    if (streamEnded || lastId - hub.lastId > BATCH_LIMIT) {
      broadcast(hub, 'resync', { lastId })
      hub.lastId = lastId
      hub.beat = 0
      return
    }
    broadcast(hub, 'requests', log.since(hub.lastId).map(summarize))
    hub.lastId = lastId
    hub.beat = 0
    return
  }
  hub.beat += BATCH_MS
  if (hub.beat >= HEARTBEAT_MS) {
    hub.beat = 0
    for (const client of hub.clients) write(client, ': keep-alive\n\n')
  }
}

/**
 * Ends every open event stream of an instance: a stopping listener must not wait for them as it
 * waits for requests in flight (the pages reconnect to the next listener on their own).
 */
export function closeEventStreams(instance: Instance): void {
  const hub = hubs.get(instance)
  if (!hub) return
  for (const client of hub.clients) client.res.end()
  hub.clients.clear()
  if (hub.timer) clearInterval(hub.timer)
  hub.timer = undefined
}
