import type { Candidate } from './compile-routes.js'
import { sequenceItemAt } from './routes-model.js'

/**
 * Sequence positions (`response` arrays), per session and per route/method/entry. Items are
 * served in order, one per matching request; `repeat: R` serves an item R times in a row; after
 * the last item the sequence starts over from the first.
 */
export interface SequenceState {
  /** Advances the sequence and returns the index of the item that answers this request. */
  next(session: string, key: string, candidate: Candidate): number
  /** Restarts the sequences of one session, or of every session. */
  reset(session?: string): void
  /** Restarts the sequences whose keys start with one of `prefixes` (`sequencePrefix`), in one session or in every session. */
  forget(prefixes: readonly string[], session?: string): void
  /** How many requests each sequence of a session has answered (`route METHOD label` -> count). */
  counts(session: string): ReadonlyMap<string, number>
  /** How many sessions have a position kept (a session costs one small map of counts, nothing more). */
  readonly sessions: number
}

/**
 * The index of the item that answers a sequence's next request after `count` earlier ones: what
 * the engine serves and what an explanation says comes next.
 */
export function sequenceItem(candidate: Candidate, count: number): number {
  return sequenceItemAt(count, candidate.repeats!)
}

/**
 * The key a sequence's position is kept under, in a session: one per route, method and entry.
 * The engine advances it; an explanation reads it.
 */
export function sequenceKey(routeKey: string, method: string, label: string): string {
  return `${sequencePrefix(routeKey, method)}${label}`
}

/** The start of the keys of every sequence of one route and method (`forget` takes it). */
export function sequencePrefix(routeKey: string, method: string): string {
  return `${routeKey} ${method} `
}

export function createSequenceState(): SequenceState {
  const sessions = new Map<string, Map<string, number>>()
  return {
    next(session, key, candidate) {
      let counts = sessions.get(session)
      if (!counts) sessions.set(session, (counts = new Map()))
      const count = counts.get(key) ?? 0
      counts.set(key, count + 1)
      return sequenceItem(candidate, count)
    },
    counts(session) {
      return sessions.get(session) ?? new Map()
    },
    reset(session) {
      if (session === undefined) sessions.clear()
      else sessions.delete(session)
    },
    forget(prefixes, session) {
      const all = session === undefined ? sessions.values() : [sessions.get(session) ?? new Map<string, number>()]
      for (const counts of all) {
        for (const key of counts.keys()) if (prefixes.some((prefix) => key.startsWith(prefix))) counts.delete(key)
      }
    },
    get sessions() {
      return sessions.size
    },
  }
}
