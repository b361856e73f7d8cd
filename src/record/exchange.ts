import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'

/** One request and the answer it got, as the recorder and the HAR import hand it to the writer. */
export interface RecordedExchange {
  method: string
  /** The absolute URL the client asked for (its path and query are what get recorded). */
  url: string
  /** Header pairs, names in any case. */
  requestHeaders: Array<[string, string]>
  requestBody: Uint8Array | null
  status: number
  responseHeaders: Array<[string, string]>
  /** The body as the client would read it (content-encoding already undone), or `null`. */
  responseBody: Uint8Array | null
  /**
   * Where the back end's own absolute links start (default: the origin of `url`): a `Location`
   * under it is written as a path, so the client stays on the mock.
   */
  origin?: string
}

/** Hop-by-hop headers: they describe one connection, never a resource (RFC 9110, section 7.6.1). */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

/** Headers whose values are secrets: never written to disk, whatever `--redact` says. */
export const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])

/** The names a `Connection` header adds to the hop-by-hop set. */
export function connectionTokens(pairs: Iterable<[string, string]>): Set<string> {
  const tokens = new Set<string>()
  for (const [name, value] of pairs) {
    if (name.toLowerCase() === 'connection') for (const token of value.split(',')) tokens.add(token.trim().toLowerCase())
  }
  return tokens
}

/**
 * Undoes a `Content-Encoding` (gzip, deflate, br) so the data file holds what the client
 * read. A body that does not decode is kept as it came.
 */
export function decodeBody(bytes: Uint8Array, encoding: string | undefined): Uint8Array {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
  let body: Uint8Array = bytes
  try {
    for (const coding of codings.reverse()) {
      if (coding === 'gzip' || coding === 'x-gzip') body = gunzipSync(body)
      else if (coding === 'deflate') body = inflateSync(body)
      else if (coding === 'br') body = brotliDecompressSync(body)
      else return bytes
    }
  } catch {
    return bytes
  }
  return body
}

/** Pairs from node's flat `rawHeaders` list. */
export function pairsOf(raw: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!])
  return pairs
}
