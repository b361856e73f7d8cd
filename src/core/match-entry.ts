import type { Candidate, CompiledMethod } from './compile-routes.js'
import { textOf } from './compile-condition.js'
import { OPERATION_PARAM, type GraphqlRequest } from './graphql-request.js'
import type { LiteralIndex } from './literal-index.js'
import { lookupPath } from './parse-request.js'

/** The values a request offers to `params` and `headers` conditions. */
export interface RequestValues {
  /** Read-only: the engine hands the same map to requests with the same query. */
  query: ReadonlyMap<string, string | string[]>
  /** The parsed body (JSON value or form tree), when the method takes params from the body. */
  body?: unknown
  headers: { get(name: string): string | null }
  /** The request's GraphQL operation, when it is a GraphQL request to a method with `operation` entries. */
  graphql?: GraphqlRequest
  /** Param values already looked up for this request (filled while scoring). */
  seen?: Map<string, unknown>
}

const ABSENT = Symbol('absent')

/**
 * The request's value for one configured param key (body first, then query). Alternatives
 * usually test the same keys: each key is looked up once per request.
 */
function paramValue(values: RequestValues, key: string, tokens: readonly string[]): unknown {
  if (key === OPERATION_PARAM) return values.graphql?.operation
  const seen = (values.seen ??= new Map())
  const known = seen.get(key)
  if (known !== undefined) return known === ABSENT ? undefined : known
  let value: unknown
  if (values.body !== undefined) value = lookupPath(values.body, tokens, key)
  if (value === undefined) value = values.query.get(key)
  seen.set(key, value === undefined ? ABSENT : value)
  return value
}

/**
 * Scores one candidate: every param and header condition adds hits and misses, or puts it out.
 * The packed score (hits first, then fewer misses), or `undefined` when the candidate is out.
 * The one scoring loop of the engine: on the hot path it allocates nothing; explanations pass
 * `reasons`, and the condition that puts the candidate out says why into it.
 */
export function scoreCandidate(candidate: Candidate, values: RequestValues, reasons?: string[]): number | undefined {
  let hits = 0
  let misses = 0
  for (const param of candidate.params) {
    const value = paramValue(values, param.key, param.tokens)
    const score = param.score(value)
    if (score === null) {
      reasons?.push(param.explain(value))
      return undefined
    }
    hits += score.hits
    misses += score.misses
  }
  for (const header of candidate.headers) {
    const raw = values.headers.get(header.key)
    const value = raw === null ? undefined : raw
    const score = header.score(value)
    if (score === null) {
      reasons?.push(header.explain(value))
      return undefined
    }
    hits += score.hits
    misses += score.misses
  }
  return hits * 1_000_000 - misses
}

/**
 * Picks the entry that answers a request among a method's candidates: the method's default
 * first, then its conditional entries in config order. Best: most hits, then fewest misses,
 * then the later one in the config (so an entry with no conditions beats the default).
 * With a literal index (many entries), only the entries the request's value can keep are scored.
 */
export function matchEntry(method: CompiledMethod, values: RequestValues): Candidate | undefined {
  let best: Candidate | undefined
  let bestScore = -Infinity
  if (method.default) {
    best = method.default
    bestScore = 0
  }
  const conditionals = method.conditionals
  const kept = method.index && keptByIndex(method.index, values)
  if (kept === undefined) {
    for (const candidate of conditionals) {
      const score = scoreCandidate(candidate, values)
      if (score !== undefined && score >= bestScore) {
        best = candidate
        bestScore = score
      }
    }
    return best
  }
  // The two ascending lists merged: the entries left are scored in config order, as without the index.
  const [bucket, rest] = kept
  let i = 0
  let j = 0
  while (i < bucket.length || j < rest.length) {
    const position = j >= rest.length || (i < bucket.length && bucket[i]! < rest[j]!) ? bucket[i++]! : rest[j++]!
    const candidate = conditionals[position]!
    const score = scoreCandidate(candidate, values)
    if (score !== undefined && score >= bestScore) {
      best = candidate
      bestScore = score
    }
  }
  return best
}

const NONE: readonly number[] = Object.freeze([])

/**
 * The entries a request can still choose among, by the index: those asking for the text of its
 * value and those with no literal condition on the key. `undefined` (score them all) when the
 * key is absent (every entry only misses it) or repeated (any of its values may hit).
 */
function keptByIndex(index: LiteralIndex, values: RequestValues): [readonly number[], readonly number[]] | undefined {
  const value = paramValue(values, index.key, index.tokens)
  if (value === undefined || Array.isArray(value)) return undefined
  const text = textOf(value)
  return [text === undefined ? NONE : (index.byText.get(text) ?? NONE), index.rest]
}
