import { isSecretHeader, preview, REDACTED } from './redact.js'
import { patternFlags } from './routes-model.js'
import type { ParamCondition, PatternCondition } from './types.js'

/** What a condition makes of a request: counts of hits and misses, or `OUT` (different). */
export interface Score {
  hits: number
  misses: number
}
export const OUT = null
const HIT: Score = Object.freeze({ hits: 1, misses: 0 })
const MISS: Score = Object.freeze({ hits: 0, misses: 1 })

/** Where a condition reads the request: a param (body, then query) or a header. */
export type ConditionKind = 'param' | 'header'

/**
 * A compiled `params` or `headers` condition: built once at load, scored per request, and able
 * to say why a value puts its entry out (mockttp's matchers have `matches()` and `explain()`).
 */
export interface Condition {
  readonly kind: ConditionKind
  /** The configured key (a query name, a body path or a header name). */
  readonly key: string
  /** The condition as configured, for explanations. */
  readonly expected: string
  /**
   * Scores the request's value for this key (`undefined` when the key is absent; arrays stand
   * for repeated parameters or JSON arrays). `null` means the entry is out.
   */
  score(value: unknown): Score | null
  /**
   * Why `value` puts the entry out, for explanations: `param "code" is "7", expected "5"`. A
   * secret header's values are never shown, neither the request's nor the configured one.
   */
  explain(value: unknown): string
  /**
   * The text a plain scalar condition (`"open"`, `37`, `true`) compares with: the one kind of
   * condition a value either equals or is out by, so the literal index can pick entries by it.
   */
  readonly literal?: string
}

/** The `explain` of a condition: the request's value and the configured one, bounded in length. */
export function explainCondition(kind: ConditionKind, key: string, expected: string): (value: unknown) => string {
  if (kind === 'header' && isSecretHeader(key)) return () => `header "${key}" is ${REDACTED}, expected ${REDACTED}`
  return (value) => `${kind} "${key}" is ${preview(value)}, expected ${expected}`
}
function isPattern(value: unknown): value is PatternCondition {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'pattern' in value
}

/** The text form every scalar is compared by: `1`, `"1"` and `?a=1` are all `"1"`. */
export function textOf(value: unknown): string | undefined {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
      return value
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value)
    default:
      return undefined
  }
}

/**
 * Deep equality of a configured value and a request's value, walked along the configured one:
 * the work is bounded by the config, never by how deep the request's body is nested. Form
 * bodies parse into null-prototype objects; they compare as plain ones.
 */
function sameValue(expected: unknown, actual: unknown): boolean {
  if (expected === actual) return true
  if (expected === null || actual === null || typeof expected !== 'object' || typeof actual !== 'object') return false
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false
    for (let i = 0; i < expected.length; i++) if (!sameValue(expected[i], actual[i])) return false
    return true
  }
  if (Array.isArray(actual)) return false
  const keys = Object.keys(expected)
  let count = 0
  for (const key in actual) {
    if (!Object.prototype.hasOwnProperty.call(actual, key)) continue
    if (++count > keys.length) return false
  }
  if (count !== keys.length) return false
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(actual, key)) return false
    if (!sameValue((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key])) return false
  }
  return true
}

function valuesOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value]
}

/**
 * Builds the regular expression of a pattern condition. Flags absent or empty mean `i`; the
 * stateful flags `g` and `y` are dropped so that one RegExp can be reused for every request.
 */
export function compilePattern(condition: PatternCondition): RegExp {
  return new RegExp(condition.pattern, patternFlags(condition.flags))
}

/** A condition from its parts: the explanation follows from the kind, key and expected value. */
function conditionOf(kind: ConditionKind, key: string, expected: string, score: Condition['score']): Condition {
  return { kind, key, expected, explain: explainCondition(kind, key, expected), score }
}

/**
 * Compiles one configured condition (docs/behaviour.md, "Selecting the entry"):
 * - a scalar is a hit when the value (or any of a repeated value) has the same text form;
 * - an array scores each configured value on its own: present -> hit, absent -> miss, and the
 *   entry is out when the key is present but holds none of them; extra values are ignored;
 * - a `{ pattern, flags }` object is a hit when the value (or any repeated value) fits;
 * - any other object is compared by deep equality (JSON bodies).
 * An absent key is always a miss; a present but different value puts the entry out.
 */
export function compileCondition(key: string, condition: ParamCondition, kind: ConditionKind = 'param'): Condition {
  if (isPattern(condition)) {
    const regex = compilePattern(condition)
    const expected = `/${condition.pattern}/${regex.flags}`
    return conditionOf(kind, key, expected, (value) => {
      if (value === undefined) return MISS
      if (!Array.isArray(value)) {
        const text = textOf(value)
        return text !== undefined && regex.test(text) ? HIT : OUT
      }
      for (const v of value) {
        const text = textOf(v)
        if (text !== undefined && regex.test(text)) return HIT
      }
      return OUT
    })
  }
  const expected = JSON.stringify(condition)
  if (Array.isArray(condition)) {
    const wanted = condition.map((v) => textOf(v) ?? '')
    const distinct = new Set(wanted)
    return conditionOf(kind, key, expected, (value) => {
      if (value === undefined) return { hits: 0, misses: wanted.length }
      // One pass over the request's values, stopping once every wanted value is seen.
      const found = new Set<string>()
      for (const v of valuesOf(value)) {
        const text = textOf(v)
        if (text !== undefined && distinct.has(text)) {
          found.add(text)
          if (found.size === distinct.size) break
        }
      }
      let hits = 0
      for (const w of wanted) if (found.has(w)) hits++
      return hits === 0 ? OUT : { hits, misses: wanted.length - hits }
    })
  }
  if (typeof condition === 'object' && condition !== null) {
    return conditionOf(kind, key, expected, (value) => {
      if (value === undefined) return MISS
      return sameValue(condition, value) ? HIT : OUT
    })
  }
  const text = textOf(condition) ?? ''
  const scalar = conditionOf(kind, key, expected, (value) => {
    if (value === undefined) return MISS
    if (!Array.isArray(value)) return textOf(value) === text ? HIT : OUT
    for (const v of value) if (textOf(v) === text) return HIT
    return OUT
  })
  return { ...scalar, literal: text }
}
