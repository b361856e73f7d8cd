/**
 * The known key closest to a misspelt one in a routes file (`fiel` -> `file`), for warnings and
 * explanations. Isomorphic (the browser validates routes too), and small: the keys compared are a
 * dozen short words, so a plain Levenshtein distance is enough. Close enough: at most 1 edit for
 * keys up to 3 characters, 2 up to 8, 3 beyond (the rule of the options' `closestName`); case is
 * ignored.
 *
 * @example
 * closestKey('fiel', ['file', 'url', 'status']) // 'file'
 * closestKey('bogus', ['file', 'url'])          // undefined
 */
export function closestKey(key: string, known: Iterable<string>): string | undefined {
  const wanted = key.toLowerCase()
  const allowed = wanted.length <= 3 ? 1 : wanted.length <= 8 ? 2 : 3
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const d = distance(wanted, candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return bestDistance <= allowed ? best : undefined
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
