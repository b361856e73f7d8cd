import type { Candidate } from './compile-routes.js'

/**
 * An index on the literal conditions of a method's entries, built once when the method is
 * compiled: for the one param key whose plain scalar conditions tell the entries apart best,
 * each literal text -> the entries that ask for it. A request whose value for that key is one
 * scalar can only keep the entries that ask for its text, and the entries with no literal
 * condition on the key; every other entry is certainly out (a present, different value puts an
 * entry out), so it is not scored at all. The entries left are scored exactly as without the
 * index, in config order: the index never changes an answer, only how many entries are scored.
 */
export interface LiteralIndex {
  /** The param key (a query name or a body path) the index is on. */
  readonly key: string
  readonly tokens: readonly string[]
  /** Literal text -> positions (in `conditionals`) of the entries that ask for it, ascending. */
  readonly byText: ReadonlyMap<string, readonly number[]>
  /** Positions of the entries without a literal condition on the key, ascending. */
  readonly rest: readonly number[]
}

/**
 * Below this many conditional entries a plain scan is as cheap as the index (measured with
 * `bench/` W2 and W3: the index pays off from a handful of entries on).
 */
export const INDEX_FROM = 8

/**
 * Builds the index of a method's conditional entries, or `undefined` when no param key has at
 * least two different literal values (nothing to prune) or there are fewer than `from` entries.
 */
export function indexLiterals(conditionals: readonly Candidate[], from = INDEX_FROM): LiteralIndex | undefined {
  if (conditionals.length < from) return undefined
  // key -> its literal texts and how many entries have one.
  const keys = new Map<string, { tokens: readonly string[]; texts: Set<string>; entries: number }>()
  for (const candidate of conditionals) {
    for (const param of candidate.params) {
      if (param.literal === undefined) continue
      let key = keys.get(param.key)
      if (!key) keys.set(param.key, (key = { tokens: param.tokens, texts: new Set(), entries: 0 }))
      key.texts.add(param.literal)
      key.entries++
    }
  }
  // The most telling key: the most distinct texts, then the most entries covered.
  let best: string | undefined
  let bestTexts = 1
  let bestEntries = 0
  for (const [name, key] of keys) {
    if (key.texts.size > bestTexts || (key.texts.size === bestTexts && best !== undefined && key.entries > bestEntries)) {
      best = name
      bestTexts = key.texts.size
      bestEntries = key.entries
    }
  }
  if (best === undefined) return undefined
  const byText = new Map<string, number[]>()
  const rest: number[] = []
  conditionals.forEach((candidate, position) => {
    const literal = candidate.params.find((param) => param.key === best)?.literal
    if (literal === undefined) return rest.push(position)
    let list = byText.get(literal)
    if (!list) byText.set(literal, (list = []))
    list.push(position)
  })
  return { key: best, tokens: keys.get(best)!.tokens, byText, rest }
}
