/**
 * The parts of a request's URL the engine reads, without a WHATWG parse when the URL is plain.
 *
 * `new URL()` was the largest single item of the engine in the listener's profiles (about 0.6 µs
 * a request; bench/README.md, "The request's URL"). Almost every request a test sends is an
 * absolute `http(s)` URL whose path and query hold only characters the WHATWG parser leaves as
 * they are: then the pathname and the search are slices of the string. Anything else (percent
 * escapes or dot segments in the path, characters the parser would escape, a fragment, a
 * backslash) goes through `new URL()`, and so do `origin` and `href`, when asked for: the
 * answers are the parser's in every case (test/core/request-url.test.ts compares them).
 */

/** What the engine reads of a request's URL: `URL`'s fields of the same names. */
export interface RequestUrl {
  readonly pathname: string
  readonly search: string
  readonly origin: string
  readonly href: string
}

/** A path the WHATWG parser keeps byte for byte: no `%`, `\`, space, quote, `<>`, `` ` ``, `{}`, `#`, `?`, non-ASCII. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/
/** A dot segment (`.`, `..`), which the parser removes. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/
/** A query the parser keeps byte for byte (for special schemes it escapes `'`). */
const PLAIN_QUERY = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/
/** A host and port with nothing the parser would read otherwise (no user info, escapes, `\\`, `?`, `#`, whitespace). */
const PLAIN_AUTHORITY = /^[A-Za-z0-9\-._~:[\]]+$/

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
  if (scheme !== 0) {
    const slash = href.indexOf('/', scheme)
    if (slash > scheme && PLAIN_AUTHORITY.test(href.slice(scheme, slash))) {
      const mark = href.indexOf('?', slash)
      const path = mark === -1 ? href.slice(slash) : href.slice(slash, mark)
      const query = mark === -1 ? '' : href.slice(mark + 1)
      if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && PLAIN_QUERY.test(query)) {
        return new ParsedUrl(href, path, query === '' ? '' : `?${query}`)
      }
    }
  }
  return new URL(href)
}
