/** Headers as they travel between two connections: what the proxy and the recorder both forward. */

/** Hop-by-hop headers: they describe one connection, never a resource (RFC 9110, section 7.6.1). */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

/** The names a `Connection` header adds to the hop-by-hop set. */
export function connectionTokens(pairs: Iterable<[string, string]>): Set<string> {
  const tokens = new Set<string>()
  for (const [name, value] of pairs) {
    if (name.toLowerCase() === 'connection') for (const token of value.split(',')) tokens.add(token.trim().toLowerCase())
  }
  return tokens
}

/** Pairs from node's flat `rawHeaders` list. */
export function pairsOf(raw: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!])
  return pairs
}
