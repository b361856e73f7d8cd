import { closestKey } from '../core/closest-key.js'

/**
 * The known name closest to a misspelt one (`latancy` -> `latency`, `prot` -> `port`), else
 * `undefined`: the core's `closestKey`, so options, flags, paths and route keys follow one rule.
 */
export const closestName: (name: string, candidates: readonly string[]) => string | undefined = closestKey

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
