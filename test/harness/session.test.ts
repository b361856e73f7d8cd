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
})
