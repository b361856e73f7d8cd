/**
 * The two kinds of msw handler mockyard takes (the `handlers` option, `use()`): request handlers
 * answer requests (through msw's getResponse), WebSocket handlers answer sockets, in process only
 * (node/intercept-instance.ts). Each reader keeps to its kind: msw 2's getResponse would run a
 * WebSocket handler as if it were a request one.
 */
import type { RequestHandler, WebSocketHandler } from 'msw'

/** An msw handler mockyard takes: a request handler (`http`, `graphql`), or a WebSocket one (`ws.link()`), which only the in-process surfaces run. */
export type MockHandler = RequestHandler | WebSocketHandler

/** Whether an msw handler is a WebSocket one (msw 3 and 2.x: `kind: 'websocket'`; older 2.x: `__kind: 'EventHandler'`). */
export function isSocketHandler(handler: unknown): boolean {
  const marks = handler as { kind?: unknown; __kind?: unknown } | null
  return marks?.kind === 'websocket' || marks?.__kind === 'EventHandler'
}
