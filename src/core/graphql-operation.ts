/**
 * The operation a GraphQL document holds, found by a small scanner rather than a full parser
 * (decisions/0021-graphql-operation-scanner.md): skip strings, block strings and comments, keep
 * track of braces and parentheses, and at the top level count the operations (`query`,
 * `mutation`, `subscription`, or a bare selection set `{ ... }`) and note the name after each
 * keyword. An engine loads this module with its first GraphQL request (`loadOperationScanner`
 * in graphql-request.ts), so a test file that sends none never loads it.
 *
 * Bounded: it reads at most `GRAPHQL_TOKEN_LIMIT` tokens; a longer document has no name (it is
 * not read past the limit), whatever its size in bytes.
 */

/** The most tokens of a document read to find its operation (graphql-js's `maxTokens` guards the same way). */
export const GRAPHQL_TOKEN_LIMIT = 10_000

/** What the scanner found: the one operation's name, or why there is none. */
export interface ScannedDocument {
  /** The name of the document's one operation; absent for an anonymous, multi-operation or unreadable document. */
  readonly name?: string
  /** Why there is no name, for explanations: `anonymous`, `2 operations`, `unreadable`, `over the token limit`. */
  readonly why?: string
}

/** Whether the name from `start` to `end` is `query`, `mutation` or `subscription`. */
function isOperationKeyword(document: string, start: number, end: number): boolean {
  const length = end - start
  return (length === 5 && document.startsWith('query', start)) || (length === 8 && document.startsWith('mutation', start)) || (length === 12 && document.startsWith('subscription', start))
}

/** A letter or `_` (`code | 32` folds upper case onto lower case and nothing else onto a-z). */
function isNameStart(code: number): boolean {
  const folded = code | 32
  return (folded >= 97 && folded <= 122) || code === 95
}

function isNamePart(code: number): boolean {
  const folded = code | 32
  return (folded >= 97 && folded <= 122) || code === 95 || (code >= 48 && code <= 57)
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

/** GraphQL's punctuators but for `...` (read with numbers): ! $ & ( ) : = @ [ ] { | } */
const PUNCTUATORS: ReadonlySet<number> = new Set([33, 36, 38, 40, 41, 58, 61, 64, 91, 93, 123, 124, 125])

/** A document with a character GraphQL has no token for: it does not read, and names no operation. */
function unreadable(document: string, at: number): ScannedDocument {
  const character = String.fromCodePoint(document.codePointAt(at)!)
  return { why: `unreadable (the character ${JSON.stringify(character)} at ${at} is not GraphQL)` }
}

function isNumberPart(code: number): boolean {
  return (code >= 48 && code <= 57) || code === 46 || code === 43 || code === 45 || code === 101 || code === 69
}

/**
 * The operation of a GraphQL document. Fragments, directives, variable definitions and default
 * values are skipped; type-system definitions are not expected in a request and do not count.
 *
 * @example
 * scanOperation('query GetUser($id: ID!) { user(id: $id) { id } }') // { name: 'GetUser' }
 * scanOperation('{ user { id } }')                                 // { why: 'anonymous' }
 */
export function scanOperation(document: string, tokenLimit = GRAPHQL_TOKEN_LIMIT): ScannedDocument {
  const length = document.length
  let at = 0
  let tokens = 0
  let braces = 0
  let parens = 0
  /** After a top-level keyword, until its selection set opens: keywords there are names. */
  let header = false
  /** The keyword just read expects the operation's name next. */
  let nameNext = false
  /** The token before was `$` or `@`: the name after it is a variable or a directive. */
  let prefixed = false
  let operations = 0
  let name: string | undefined
  let anonymous = false
  while (at < length) {
    const code = document.charCodeAt(at)
    // Ignored tokens: white space, line terminators, commas, the byte order mark, comments.
    // (Other control characters are not valid GraphQL: skipped as white space too.)
    if (code <= 32 || code === 44 || code === 0xfeff) {
      at++
      continue
    }
    if (code === 35) {
      while (at < length && document.charCodeAt(at) !== 10 && document.charCodeAt(at) !== 13) at++
      continue
    }
    if (++tokens > tokenLimit) return { why: `over the limit of ${tokenLimit} tokens` }
    if (code === 34) {
      const end = stringEnd(document, at)
      if (end === -1) return { why: 'unreadable (a string does not end)' }
      at = end
      nameNext = false
      prefixed = false
      continue
    }
    if (isNameStart(code)) {
      const start = at++
      while (at < length && isNamePart(document.charCodeAt(at))) at++
      // Only a name at the top level is ever read; inside a selection set a name is skipped unread.
      if (nameNext && !prefixed) {
        if (operations === 1 && !anonymous) name = document.slice(start, at)
        nameNext = false
      } else if (braces === 0 && parens === 0 && !header && !prefixed) {
        if (isOperationKeyword(document, start, at)) {
          operations++
          nameNext = true
        }
        header = true
      }
      prefixed = false
      continue
    }
    nameNext = false
    // A number, or the spread `...`: one token however many characters. A `-` starts only a
    // negative number and a `.` only `...`: anything else there is no GraphQL (`GetUser-Admin`).
    if ((code >= 48 && code <= 57) || code === 45 || code === 46) {
      if (code === 45 && !isDigit(document.charCodeAt(at + 1))) return unreadable(document, at)
      if (code === 46 && document.slice(at, at + 3) !== '...') return unreadable(document, at)
      at++
      while (at < length && isNumberPart(document.charCodeAt(at))) at++
      prefixed = false
      continue
    }
    // Any character that is no punctuator is no GraphQL: the document does not read (`GetUserÜber`).
    if (!PUNCTUATORS.has(code)) return unreadable(document, at)
    prefixed = code === 36 || code === 64
    if (code === 123) {
      if (braces === 0 && parens === 0) {
        if (!header) {
          operations++
          if (operations === 1) anonymous = true
        }
        header = false
      }
      braces++
    } else if (code === 125) {
      if (--braces < 0) return { why: 'unreadable (a "}" without its "{")' }
    } else if (code === 40) parens++
    else if (code === 41) {
      if (--parens < 0) return { why: 'unreadable (a ")" without its "(")' }
    }
    at++
  }
  if (braces !== 0 || parens !== 0) return { why: 'unreadable (unbalanced braces)' }
  if (operations === 0) return { why: 'unreadable (no operation)' }
  if (operations > 1) return { why: `${operations} operations` }
  return name === undefined ? { why: 'anonymous' } : { name }
}

/** Where a string token that starts at `start` (a `"`) ends, or -1 when it does not. */
function stringEnd(document: string, start: number): number {
  if (document.startsWith('"""', start)) {
    let at = start + 3
    for (;;) {
      const close = document.indexOf('"""', at)
      if (close === -1) return -1
      // `\"""` inside a block string is an escaped triple quote.
      if (document.charCodeAt(close - 1) === 92) {
        at = close + 3
        continue
      }
      return close + 3
    }
  }
  for (let at = start + 1; at < document.length; at++) {
    const code = document.charCodeAt(at)
    if (code === 92) at++
    else if (code === 34) return at + 1
    else if (code === 10 || code === 13) return -1
  }
  return -1
}
