import { closestKey } from '../core/closest-key.js'

/**
 * The known name closest to a misspelt one, when one is close enough to be a likely typo
 * (`latancy` -> `latency`, `rotues` -> `routes`, `prot` -> `port`), else `undefined`: the core's
 * `closestKey` (the routes validator's), so options, flags, route keys and paths all follow one
 * rule. Case is ignored; close enough: at most 1 edit for names up to 3 characters, 2 up to 8, 3
 * beyond (a swap of two letters counts 2). Ties go to the first candidate.
 *
 * @example
 * closestName('latancy', ['latency', 'limit']) // 'latency'
 * closestName('bogus', ['latency', 'limit'])   // undefined
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  return closestKey(name, candidates)
}

/**
 * The file name closest to a missing one, compared without the extension they share, so that
 * the extension does not widen what counts as close (`userz.json` -> `users.json`, but not
 * `orders.json` -> `users.json`). Names with another extension are compared whole
 * (`users.jsn` -> `users.json`).
 *
 * @example
 * closestFileName('userz.json', ['users.json', 'orders.json']) // 'users.json'
 */
export function closestFileName(name: string, names: readonly string[]): string | undefined {
  const dot = name.lastIndexOf('.')
  const extension = dot > 0 ? name.slice(dot) : ''
  const same = names.filter((candidate) => extension !== '' && candidate.endsWith(extension) && candidate.length > extension.length)
  const stem = closestName(name.slice(0, name.length - extension.length), same.map((candidate) => candidate.slice(0, candidate.length - extension.length)))
  if (stem !== undefined) return stem + extension
  return closestName(name, names.filter((candidate) => !same.includes(candidate)))
}
