/**
 * WebSocket upgrades on the listener's own port (docs/behaviour.md, "WebSocket"): the `ws`
 * package, imported with the first upgrade, accepts a socket opened on a route with `websocket`
 * steps and hands it to the pipeline's script (src/harness/websocket.ts). The session is the
 * upgrade's `x-mockyard-session` header, else its `mockyard-session` cookie, as for HTTP. Bounded:
 * a message larger than `limit` closes the socket with 1009 (`maxPayload`), at most
 * `sessions.limit` sockets are open at once, and a client that does not read has its own
 * messages left unread, and the replies due to it wait unrendered, until what mockyard sent it
 * has drained.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket, WebSocketServer } from 'ws'
import { ADMIN_PREFIX } from '../admin/admin.js'
import { errorResponse } from '../core/build-response.js'
import { formatMessage, withoutPrefix } from '../core/errors.js'
import type { Instance } from '../config/instance.js'
import { sessionOf } from '../harness/session.js'
import type { SocketPort, SocketScript } from '../harness/websocket.js'
import { logLine } from './node-handler.js'
import { requestTarget } from './wire.js'

/** The close code of the sockets `stop()` ends: "Going Away" (RFC 6455, 7.4.1). */
export const STOP_CLOSE_CODE = 1001

/**
 * Bytes sent but not yet handed to the network (`bufferedAmount`) past which a socket's own messages are left
 * unread (`ws.pause()`): a client that does not read cannot make mockyard queue replies without
 * bound. Reading resumes when half of it has drained.
 */
export const SOCKET_HIGH_WATER = 1024 * 1024

export interface SocketServer {
  /** Handles the listener's `upgrade` event. */
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void
  /** Closes every open socket (1001), each ended without a close frame after `graceMs` if it stays open. */
  close(graceMs: number): void
  /** How many sockets are open. */
  readonly size: number
}

/** Answers an upgrade with an HTTP error on the raw socket, then closes it. */
function refuse(socket: Duplex, status: number, message: string): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body = errorResponse(status, STATUS_CODES[status] ?? 'Error', message).body as string
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
  setTimeout(() => socket.destroy(), 1000).unref()
}

/**
 * The listener's WebSocket side.
 *
 * @example
 * const sockets = createSocketServer(instance, { limit: bodyLimitOf(instance), maxSockets: 1000 })
 * server.on('upgrade', (req, socket, head) => sockets.handle(req, socket, head))
 */
export function createSocketServer(instance: Instance, options: { limit: number; maxSockets: number }): SocketServer {
  let server: WebSocketServer | Promise<WebSocketServer> | undefined
  const open = new Set<WebSocket>()
  let closing = false

  /** The `ws` server, loaded with the first upgrade (docs/behaviour.md, "Load on first use"). */
  const wsServer = (): WebSocketServer | Promise<WebSocketServer> =>
    (server ??= import('ws').then(({ WebSocketServer }) => {
      const created = new WebSocketServer({ noServer: true, maxPayload: options.limit, clientTracking: false, perMessageDeflate: false })
      server = created
      return created
    }))

  function attach(ws: WebSocket, script: SocketScript): void {
    open.add(ws)
    // Backpressure (SOCKET_HIGH_WATER): past it, the client's messages are left unread and the
    // script's next send waits; checked every 20 ms while paused, never on the hot path.
    let paused = false
    /** What the script's next send waits for while paused: one promise per pause, however often it asks. */
    let drained: Promise<void> | undefined
    let resolveDrained: (() => void) | undefined
    const release = () => {
      resolveDrained?.()
      drained = undefined
      resolveDrained = undefined
    }
    const watch = () => {
      if (ws.readyState !== ws.OPEN) return release()
      if (ws.bufferedAmount > SOCKET_HIGH_WATER / 2) {
        setTimeout(watch, 20).unref()
        return
      }
      paused = false
      ws.resume()
      release()
    }
    const port: SocketPort = {
      send(data) {
        if (ws.readyState !== ws.OPEN) return
        ws.send(data)
        if (!paused && ws.bufferedAmount > SOCKET_HIGH_WATER) {
          paused = true
          ws.pause()
          setTimeout(watch, 20).unref()
        }
      },
      close(code, reason) {
        if (ws.readyState === ws.CLOSED) return
        ws.close(code, reason)
        // A client that never answers the close frame is let go of.
        setTimeout(() => ws.terminate(), 1000).unref()
      },
      drop: () => ws.terminate(),
      ready: () => (paused ? (drained ??= new Promise<void>((resolve) => (resolveDrained = resolve))) : undefined),
    }
    const running = script.accept(port)
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8')
      running.message(text)
    })
    // A message over `limit` is an error of `ws`, which closes with 1009 itself.
    ws.on('error', () => {})
    ws.on('close', () => {
      open.delete(ws)
      running.closed()
      release()
    })
  }

  function upgrade(ws: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, script: SocketScript, path: string): void {
    if (closing) return refuse(socket, 503, 'the listener is stopping')
    const started = performance.now()
    ws.handleUpgrade(req, socket, head, (client) => {
      attach(client, script)
      // The CLI's line per request: the connection, as it opened.
      logLine(instance, 'GET', path, 101, `${script.route} (websocket)`, Math.round((performance.now() - started) * 100) / 100)
    })
  }

  return {
    handle(req, socket, head) {
      socket.on('error', () => socket.destroy())
      const target = requestTarget(req)
      if (target.problem !== undefined) return refuse(socket, 400, `WebSocket upgrade refused: ${target.problem}. Open the socket on a path such as /v1/chat with a Host header`)
      const path = target.path
      if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return refuse(socket, 400, `upgrade to ${JSON.stringify(req.headers.upgrade ?? '')} refused: mockyard upgrades to websocket only`)
      if (path.startsWith(ADMIN_PREFIX)) return refuse(socket, 404, `GET ${path}: the admin endpoints take no WebSocket connections`)
      if (closing) return refuse(socket, 503, 'the listener is stopping')
      // `http://` becomes `ws://`, `https://` `wss://`.
      const url = target.origin.replace(/^http/, 'ws') + path
      if (open.size >= options.maxSockets) {
        return refuse(socket, 503, `WebSocket ${path} refused: ${options.maxSockets} sockets are open, the most this listener keeps (sessions.limit). Close sockets, or raise sessions.limit`)
      }
      const opened = instance.openSocket({ url, logHeaders: req.rawHeaders }, { session: sessionOf(req.headers) })
      if (opened.kind === 'unmatched') {
        const explanation = opened.explanation()
        instance.logger.warn(explanation)
        opened.settle(404)
        return refuse(socket, 404, withoutPrefix(explanation))
      }
      const ws = wsServer()
      if (ws instanceof Promise) {
        ws.then(
          (loaded) => upgrade(loaded, req, socket, head, opened, path),
          (error: unknown) => {
            instance.logger.error(formatMessage(`the ws package could not be loaded for WebSocket ${path}: ${(error as Error)?.message ?? String(error)}`))
            refuse(socket, 500, 'the ws package could not be loaded')
          },
        )
      } else upgrade(ws, req, socket, head, opened, path)
    },
    close(graceMs) {
      closing = true
      for (const ws of open) {
        ws.close(STOP_CLOSE_CODE, 'mockyard stopping')
        setTimeout(() => ws.terminate(), graceMs).unref()
      }
    },
    get size() {
      return open.size
    },
  }
}
