/**
 * The known key closest to a misspelt one in a routes file (`fiel` -> `file`), for warnings and
 * explanations. Isomorphic (the browser validates routes too), and small: the keys compared are a
 * dozen short words, so a plain edit distance is enough (a swap of neighbouring letters is one
 * edit; a tie goes to the name the key begins like). Close enough: at most 1 edit for keys up to
 * 3 characters, 2 up to 8, 3 beyond (the rule of the options' `closestName`); case is ignored.
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
    const lower = candidate.toLowerCase()
    const d = distance(wanted, lower)
    // A tie goes to the name the key begins like (`rout`: `routes`, not `host`): a name cut short.
    if (d < bestDistance || (d === bestDistance && best !== undefined && sharedStart(wanted, lower) > sharedStart(wanted, best.toLowerCase()))) {
      best = candidate
      bestDistance = d
    }
  }
  return bestDistance <= allowed ? best : undefined
}

/** How many leading characters two names share. */
function sharedStart(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/** Edits between two names, a swap of two neighbouring letters counting as one (`prot` -> `port`). */
function distance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1)
    }
    rows.push(row)
  }
  return rows[a.length]![b.length]!
}
