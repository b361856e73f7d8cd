import { describe, expect, it } from 'vitest'
import { sessionOf, SESSION_HEADER } from '../../src/harness/session.js'

describe('sessionOf', () => {
  it('reads the session from Fetch headers and from node headers alike', () => {
    expect(SESSION_HEADER).toBe('x-mockyard-session')
    expect(sessionOf(new Headers({ 'X-Mockyard-Session': 'w1' }))).toBe('w1')
    expect(sessionOf({ 'x-mockyard-session': 'w2' })).toBe('w2')
    expect(sessionOf({ 'x-mockyard-session': ['w3', 'w4'] })).toBe('w3')
  })

  it('is the empty session when the header is absent', () => {
    expect(sessionOf(new Headers())).toBe('')
    expect(sessionOf({})).toBe('')
  })

  it('falls back to the mockyard-session cookie when the header is absent; the header wins', () => {
    expect(sessionOf({ cookie: 'theme=dark; mockyard-session=c1; other=2' })).toBe('c1')
    expect(sessionOf(new Headers({ cookie: 'mockyard-session=c%202' }))).toBe('c 2')
    expect(sessionOf({ cookie: 'mockyard-session=c3', 'x-mockyard-session': 'h1' })).toBe('h1')
    expect(sessionOf(new Headers({ cookie: 'mockyard-session=c3', 'x-mockyard-session': 'h2' }))).toBe('h2')
    // Only that cookie's name counts, not one that ends or starts with it.
    expect(sessionOf({ cookie: 'my-mockyard-session=x; mockyard-session-old=y' })).toBe('')
    expect(sessionOf({ cookie: 'mockyard-session=%E0%A4%A' })).toBe('%E0%A4%A')
  })
})
