/**
 * The parts of a request's URL the engine reads, without a WHATWG parse when the URL is plain.
 *
 * `new URL()` was the largest single item of the engine in the listener's profiles (about 0.6 µs
 * a request; bench/README.md, "The request's URL, its query and the log's headers").
 * Almost every request a test sends is an absolute `http(s)` URL whose path and query hold only
 * characters the WHATWG parser leaves as they are: then the pathname and the search are slices
 * of the string, found in one pass. Anything else (percent
 * escapes or dot segments in the path, characters the parser would escape, a fragment, a
 * backslash) goes through `new URL()`, and so do `origin` and `href`, when asked for: the
 * answers are the parser's in every case (test/core/request-url.test.ts compares them).
 */

/** Whether a URL's host name (as WHATWG URL writes it) is a loopback name or address: `localhost`, `127.x.x.x`, `[::1]`. */
export function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

/** What the engine reads of a request's URL: `URL`'s fields of the same names. */
export interface RequestUrl {
  readonly pathname: string
  readonly search: string
  readonly origin: string
  readonly href: string
}

/** Bits of `KINDS`: where an ASCII character is kept byte for byte by the WHATWG parser. */
const HOST = 1
const PATH = 2
const QUERY = 4

/**
 * Per ASCII code, where the character may stand in a plain URL: in the host and port (no user
 * info, escapes, `\`, whitespace), in the path (no `%`, `\`, space, quote, `<>`, `` ` ``, `{}`,
 * `#`), in the query (as the path, with `%` and `?`, without `'`, which the parser escapes
 * there for special schemes). A constant table, filled once.
 */
const KINDS = ((): Uint8Array => {
  const kinds = new Uint8Array(128)
  const allow = (chars: string, bit: number) => {
    for (const char of chars) kinds[char.charCodeAt(0)]! |= bit
  }
  const alphanumeric = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  allow(`${alphanumeric}-._~:[]`, HOST)
  allow(`${alphanumeric}-._~!$&'()*+,;=:@/`, PATH)
  allow(`${alphanumeric}-._~!$&()*+,;=:@/?%`, QUERY)
  return kinds
})()

/** Whether the character at `index` may stand where `kind` says (false past the end, for non-ASCII). */
function kept(href: string, index: number, kind: number): boolean {
  const code = href.charCodeAt(index)
  return code < 128 && (KINDS[code]! & kind) !== 0
}

/** The fields of `new URL(href)`, each read once. */
class ParsedUrl implements RequestUrl {
  #url: URL | undefined
  constructor(
    readonly href0: string,
    readonly pathname: string,
    readonly search: string,
  ) {}
  #parsed(): URL {
    return (this.#url ??= new URL(this.href0))
  }
  get origin(): string {
    return this.#parsed().origin
  }
  get href(): string {
    return this.#parsed().href
  }
}

/**
 * The URL of a request. The adapters hand the engine URLs that parse (the listener checks the
 * Host, the others pass a Fetch `Request`'s); one that does not throws here, or, when only its
 * host is wrong, where its `origin` or `href` is read.
 *
 * @example
 * requestUrl('http://localhost:3000/v1/users?page=2').search // '?page=2'
 */
export function requestUrl(href: string): RequestUrl {
  const scheme = href.startsWith('http://') ? 7 : href.startsWith('https://') ? 8 : 0
  if (scheme === 0) return new URL(href)
  // One pass: the host and port up to the first `/`, the path up to `?`, the query.
  const length = href.length
  let i = scheme
  while (i < length && href.charCodeAt(i) !== 47) {
    if (!kept(href, i, HOST)) return new URL(href)
    i++
  }
  if (i === scheme || i === length) return new URL(href)
  const slash = i
  let mark = -1
  for (; i < length; i++) {
    const code = href.charCodeAt(i)
    if (code === 63) {
      mark = i
      break
    }
    if (!kept(href, i, PATH)) return new URL(href)
    // A `.` or `..` segment, which the parser removes.
    if (code === 46 && href.charCodeAt(i - 1) === 47) {
      let next = i + 1
      if (href.charCodeAt(next) === 46) next++
      const after = href.charCodeAt(next)
      if (next === length || after === 47 || after === 63) return new URL(href)
    }
  }
  if (mark === -1) return new ParsedUrl(href, href.slice(slash), '')
  for (let j = mark + 1; j < length; j++) if (!kept(href, j, QUERY)) return new URL(href)
  return new ParsedUrl(href, href.slice(slash, mark), mark + 1 === length ? '' : href.slice(mark))
}
