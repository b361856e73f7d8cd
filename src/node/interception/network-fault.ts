/**
 * The errors of a network fault in process (docs/behaviour.md, "Faults"): what Node's own
 * clients give when a real server resets or closes the connection, so retry libraries (which
 * look at `code`) retry. The figures come from the real listener: fetch (undici) rejects with
 * `TypeError: fetch failed` whose `cause` is `read ECONNRESET` (`code: 'ECONNRESET'`) for a reset,
 * `other side closed` (`code: 'UND_ERR_SOCKET'`) for a close and a body cut short; `http` emits
 * `read ECONNRESET` for a reset and `socket hang up` (`code: 'ECONNRESET'`) for a close.
 */

/** A fault that fails the request before any answer: `reset`, `close`, or a hang ended at reset (a reset). */
export type FailingFault = 'reset' | 'close'

/** The error of a socket the server reset: `read ECONNRESET`. */
export function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' })
}

/** undici's error when the server ends the connection (before the answer or mid-body). */
export function otherSideClosed(): Error {
  const error = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })
  error.name = 'SocketError'
  return error
}

/**
 * Thrown by the resolver of an interception for a request that fails with a fault: each client
 * turns it into its own error (`forFetch`, `forSocket`).
 */
export class NetworkFault extends Error {
  override name = 'NetworkFault'
  constructor(readonly fault: FailingFault) {
    super(`the mock plays the fault "${fault}"`)
  }

  /** fetch's rejection: `TypeError: fetch failed` with the socket's error as `cause`. */
  forFetch(): TypeError {
    return new TypeError('fetch failed', { cause: this.fault === 'reset' ? connectionReset() : otherSideClosed() })
  }

  /** The `error` of an `http` request (and axios' `code`); XMLHttpRequest fires `error`. */
  forSocket(): Error {
    return this.fault === 'reset' ? connectionReset() : Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
  }
}

/** The error a body cut short fails with when read through fetch: `TypeError: terminated`. */
export function terminated(): TypeError {
  return new TypeError('terminated', { cause: otherSideClosed() })
}
