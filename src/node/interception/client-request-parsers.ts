/**
 * A workaround for a leak of @mswjs/interceptors 0.41's ClientRequest interception (what
 * `http.get` through mockyard goes through).
 *
 * @see https://github.com/mswjs/interceptors/blob/v0.41.0/src/interceptors/ClientRequest/MockHttpSocket.ts
 */
interface ClosableParser {
  close(): void
}

/**
 * Works around a leak of @mswjs/interceptors 0.41's ClientRequest interception: each request's
 * mock socket makes two `HTTPParser`s and only `free()`s them, which is meant for parsers going
 * back to Node's pool; a parser outside the pool must be `close()`d, else its native object and
 * its JS wrapper live forever (heap per http/https request, never released, not even by
 * dispose(); figures in bench/README.md). Once the socket has closed, close both parsers
 * (after the stack has unwound, as Node does). `requestParser`/`responseParser` are fields of 0.41's MockHttpSocket; when they are
 * missing (another version) this does nothing.
 */
export function closeParsersWithSocket(rawRequest: unknown): void {
  const raw = rawRequest as { socket?: unknown } | undefined
  const socket = raw?.socket as
    | { once?(event: string, listener: () => void): unknown; requestParser?: Partial<ClosableParser>; responseParser?: Partial<ClosableParser> }
    | null
    | undefined
  if (!socket || typeof socket.once !== 'function') return
  const parsers = [socket.requestParser, socket.responseParser].filter(
    (parser): parser is ClosableParser => typeof parser?.close === 'function',
  )
  if (parsers.length === 0) return
  socket.once('close', () => {
    setImmediate(() => {
      for (const parser of parsers) parser.close()
    })
  })
}
