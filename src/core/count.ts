/**
 * A count with its noun in the right number, for every message that counts something:
 * `1 route`, `2 routes`, `2 clashes`, `3 entries`, `1 byte`. Irregular nouns take their plural.
 *
 * @example
 * countOf(2, 'clash')  // '2 clashes'
 * countOf(1, 'entry')  // '1 entry'
 * countOf(0, 'byte')   // '0 bytes'
 */
export function countOf(count: number, noun: string, plural = pluralOf(noun)): string {
  return `${count} ${count === 1 ? noun : plural}`
}

/**
 * Names in a sentence: `a`, `a and b`, `a, b and c`.
 *
 * @example
 * listOf(['check', 'init', 'record']) // 'check, init and record'
 */
export function listOf(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** The English plural of a regular noun: `clash` -> `clashes`, `entry` -> `entries`, `route` -> `routes`. */
export function pluralOf(noun: string): string {
  if (/(s|sh|ch|x|z)$/.test(noun)) return `${noun}es`
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`
  return `${noun}s`
}
