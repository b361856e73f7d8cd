import type { Candidate, CompiledMethod } from './compile-routes.js'
import { isSecretHeader, preview, REDACTED } from './redact.js'
import { lookupPath } from './request-data.js'

/** The values a request offers to `params` and `headers` conditions. */
export interface RequestValues {
  query: Map<string, string | string[]>
  /** The parsed body (JSON value or form tree), when the method takes params from the body. */
  body?: unknown
  headers: { get(name: string): string | null }
  /** Param values already looked up for this request (filled while scoring). */
  seen?: Map<string, unknown>
}

export interface CandidateScore {
  candidate: Candidate
  hits: number
  misses: number
  /** Why the candidate is out, when it is. */
  out?: string
}

export interface MatchResult {
  /** Every candidate's score, in config order (the default first), for explanations. */
  scores: CandidateScore[]
}

/** A request's value in an explanation: bounded in length. */
function describeValue(value: unknown): string {
  return preview(value)
}

const ABSENT = Symbol('absent')

/**
 * The request's value for one configured param key (body first, then query). Alternatives
 * usually test the same keys: each key is looked up once per request.
 */
function paramValue(values: RequestValues, key: string, tokens: readonly string[]): unknown {
  const seen = (values.seen ??= new Map())
  const known = seen.get(key)
  if (known !== undefined) return known === ABSENT ? undefined : known
  let value: unknown
  if (values.body !== undefined) value = lookupPath(values.body, tokens, key)
  if (value === undefined) value = values.query.get(key)
  seen.set(key, value === undefined ? ABSENT : value)
  return value
}

/** Scores one candidate: every param and header condition adds hits and misses, or puts it out. */
export function scoreCandidate(candidate: Candidate, values: RequestValues): CandidateScore {
  let hits = 0
  let misses = 0
  for (const param of candidate.params) {
    const value = paramValue(values, param.key, param.tokens)
    const score = param.score(value)
    if (score === null) return { candidate, hits, misses, out: `param "${param.key}" is ${describeValue(value)}, expected ${param.expected}` }
    hits += score.hits
    misses += score.misses
  }
  for (const header of candidate.headers) {
    const raw = values.headers.get(header.key)
    const value = raw === null ? undefined : raw
    const score = header.score(value)
    if (score === null) {
      // A secret header's value is never shown, neither the request's nor the configured one.
      const secret = isSecretHeader(header.key)
      return { candidate, hits, misses, out: `header "${header.key}" is ${secret ? REDACTED : describeValue(value)}, expected ${secret ? REDACTED : header.expected}` }
    }
    hits += score.hits
    misses += score.misses
  }
  return { candidate, hits, misses }
}

/**
 * The packed score of a candidate, or `undefined` when it is out: hits first, then fewer
 * misses. The hot path: no objects, no reason text (explanations use `scoreCandidate`).
 */
function quickScore(candidate: Candidate, values: RequestValues): number | undefined {
  let hits = 0
  let misses = 0
  for (const param of candidate.params) {
    const score = param.score(paramValue(values, param.key, param.tokens))
    if (score === null) return undefined
    hits += score.hits
    misses += score.misses
  }
  for (const header of candidate.headers) {
    const raw = values.headers.get(header.key)
    const score = header.score(raw === null ? undefined : raw)
    if (score === null) return undefined
    hits += score.hits
    misses += score.misses
  }
  return hits * 1_000_000 - misses
}

/**
 * Picks the entry that answers a request among a method's candidates: the method's default
 * first, then its conditional entries in config order. Best: most hits, then fewest misses,
 * then the later one in the config (so an entry with no conditions beats the default).
 */
export function matchEntry(method: CompiledMethod, values: RequestValues): Candidate | undefined {
  let best: Candidate | undefined
  let bestScore = -Infinity
  if (method.default) {
    best = method.default
    bestScore = 0
  }
  for (const candidate of method.conditionals) {
    const score = quickScore(candidate, values)
    if (score !== undefined && score >= bestScore) {
      best = candidate
      bestScore = score
    }
  }
  return best
}

/** Every candidate's score with the reason of those that are out, in config order: for explanations. */
export function scoreAll(method: CompiledMethod, values: RequestValues): CandidateScore[] {
  const all = method.default ? [method.default, ...method.conditionals] : method.conditionals
  return all.map((candidate) => scoreCandidate(candidate, values))
}
