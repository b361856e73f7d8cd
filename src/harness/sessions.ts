/**
 * The bound on per-session state of a listener (docs/behaviour.md, "Sessions"): at most `limit`
 * sessions live at once; touching one makes it the most recently used; a new one past the limit
 * drops the least recently used, whose state the owner then forgets.
 */
export interface SessionBound {
  /** Marks a session as used now (`''`, the shared state, is never counted nor dropped). */
  touch(session: string): void
  /** Forgets a session without dropping it (its state was reset). */
  forget(session?: string): void
  /** How many sessions are live. */
  readonly size: number
}

/** The default `sessions.limit`. */
export const DEFAULT_SESSION_LIMIT = 1000

/**
 * @example
 * const sessions = createSessionBound(1000, (session) => engine.reset(session))
 * sessions.touch(sessionOf(request.headers))
 */
export function createSessionBound(limit: number, drop: (session: string) => void): SessionBound {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const live = new Map<string, true>()
  return {
    touch(session) {
      if (session === '') return
      if (live.delete(session)) {
        live.set(session, true)
        return
      }
      live.set(session, true)
      while (live.size > limit) {
        const oldest = live.keys().next().value as string
        live.delete(oldest)
        drop(oldest)
      }
    },
    forget(session) {
      if (session === undefined) live.clear()
      else live.delete(session)
    },
    get size() {
      return live.size
    },
  }
}
