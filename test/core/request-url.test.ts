import { describe, expect, it } from 'vitest'
import { parseQuery } from '../../src/core/parse-request.js'
import { requestUrl } from '../../src/core/request-url.js'
import { random } from '../support/random.js'

/** What the engine reads of a URL, from `requestUrl` and from the WHATWG parser. */
function fields(url: { pathname: string; search: string; origin: string; href: string }) {
  return { pathname: url.pathname, search: url.search, origin: url.origin, href: url.href }
}

describe('requestUrl (the engine reads a URL without a WHATWG parse when it is plain)', () => {
  it('gives the parser’s pathname, search, origin and href for URLs of every kind', () => {
    const next = random(21)
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
    const origins = ['http://localhost:3000', 'http://127.0.0.1:80', 'https://EXAMPLE.test', 'https://example.test:443', 'http://[::1]:4000', 'http://a.b-c_d~e:8080', 'http://user@host', 'http://ho%41st', 'HTTP://upper.test']
    // Characters the parser keeps, escapes, decodes or reads as structure.
    const pieces = ['a', 'Z', '9', 'v1', '/', '//', '.', '..', '/./', '/../', '-', '_', '~', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '=', ':', '@', '%', '%20', '%2e', '%2E', ' ', '"', '<', '>', '`', '{', '}', '|', '^', '\\', '#', 'é', '\t', '?', '[', ']']
    const piece = (n: number) => Array.from({ length: n }, () => pick(pieces)).join('')
    let plain = 0
    for (let i = 0; i < 20_000; i++) {
      const href = `${pick(origins)}/${piece(Math.floor(next() * 6))}${next() < 0.6 ? `?${piece(Math.floor(next() * 6))}` : ''}`
      let expected: ReturnType<typeof fields>
      try {
        expected = fields(new URL(href))
      } catch {
        continue
      }
      const url = requestUrl(href)
      if (!(url instanceof URL)) plain++
      expect(fields(url), href).toEqual(expected)
    }
    // Both ways are exercised: the slices and the parser.
    expect(plain).toBeGreaterThan(2_000)
    expect(plain).toBeLessThan(18_000)
  })

  it('slices a plain URL instead of parsing it, and parses the rest', () => {
    expect(requestUrl('http://localhost:3000/v1/users?page=2')).not.toBeInstanceOf(URL)
    expect(requestUrl('http://localhost:3000/v1/users?page=2').search).toBe('?page=2')
    expect(requestUrl('http://localhost:3000/v1/users?').search).toBe('')
    expect(requestUrl('http://localhost:3000/v1/a%20b')).toBeInstanceOf(URL)
    expect(requestUrl('http://localhost:3000/v1/./users').pathname).toBe('/v1/users')
    expect(requestUrl('http://localhost:3000/v1/users?q=a b').search).toBe('?q=a%20b')
    expect(requestUrl('http://localhost:3000/v1/users#top').pathname).toBe('/v1/users')
  })

  it('throws for a URL the parser refuses', () => {
    expect(() => requestUrl('not a url')).toThrow(TypeError)
    expect(() => requestUrl('/v1/users')).toThrow(TypeError)
  })
})

describe('parseQuery (the engine’s query params)', () => {
  /** What URLSearchParams gives, in parseQuery's shape. */
  function expected(search: string): Map<string, string | string[]> {
    const query = new Map<string, string | string[]>()
    for (const [name, value] of new URLSearchParams(search)) {
      const existing = query.get(name)
      query.set(name, existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value])
    }
    return query
  }

  it('gives URLSearchParams’ pairs for queries of every kind', () => {
    const next = random(37)
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
    const pieces = ['a', 'b', 'id', '=', '==', '&', '&&', '?', '%', '%20', '%3D', '%26', '%zz', '+', ' ', 'é', '.', '[]', '0']
    let split = 0
    for (let i = 0; i < 20_000; i++) {
      const search = `${next() < 0.8 ? '?' : ''}${Array.from({ length: Math.floor(next() * 8) }, () => pick(pieces)).join('')}`
      if (!search.includes('%') && !search.includes('+')) split++
      expect(parseQuery(search), search).toEqual(expected(search))
    }
    expect(split).toBeGreaterThan(2_000)
  })

  it('keeps repeated names as lists, in order', () => {
    expect(parseQuery('?tag=a&tag=b&tag=c&x')).toEqual(new Map<string, string | string[]>([['tag', ['a', 'b', 'c']], ['x', '']]))
  })
})
