/**
 * docs/behaviour.md, "WebSocket" (on the listener): the session of any request is its
 * `x-mockyard-session` header, else its `mockyard-session` cookie.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { startMockServer } from 'mockyard/node'
import { sessionCookie, sessionOf } from '../../src/harness/session.js'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

describe('sessionOf', () => {
  it('reads the header, else the cookie, from node headers and Fetch headers alike', () => {
    expect(sessionOf({ cookie: 'a=1; mockyard-session=w2; b=2' })).toBe('w2')
    expect(sessionOf({ 'x-mockyard-session': 'h', cookie: 'mockyard-session=c' })).toBe('h')
    expect(sessionOf(new Headers({ cookie: 'mockyard-session=w%203' }))).toBe('w 3')
    expect(sessionOf(new Headers({ 'x-mockyard-session': 'h', cookie: 'mockyard-session=c' }))).toBe('h')
    expect(sessionOf({})).toBe('')
  })

  it('takes only the cookie of that exact name', () => {
    expect(sessionCookie('my-mockyard-session=x')).toBe('')
    expect(sessionCookie('my-mockyard-session=x; mockyard-session=y')).toBe('y')
    expect(sessionCookie('mockyard-session="quoted"')).toBe('quoted')
    expect(sessionCookie('other=1')).toBe('')
    expect(sessionCookie(undefined)).toBe('')
  })

  it('keeps a value that decodes to control characters as sent (a NUL would cut the log record)', () => {
    expect(sessionCookie('mockyard-session=tab%001')).toBe('tab%001')
    expect(sessionCookie('mockyard-session=a%0Ab')).toBe('a%0Ab')
    expect(sessionCookie('mockyard-session=tab%201')).toBe('tab 1')
  })
})

it('a plain request over the listener belongs to the session its cookie names', async () => {
  const mocks = writeMocks({ 'v1/jobs': { get: [{ params: { x: '1' }, response: [{ status: 202 }, { status: 200 }] }] } })
  const server = await startMockServer({ routes: mocks.routes })
  try {
    const get = (cookie: string) => fetch(`${server.url}/v1/jobs?x=1`, { headers: { cookie } }).then((r) => r.status)
    // Each session has its own sequence position.
    expect(await get('mockyard-session=a')).toBe(202)
    expect(await get('mockyard-session=a')).toBe(200)
    expect(await get('mockyard-session=b')).toBe(202)
    expect(server.requests({ session: 'a' })).toHaveLength(2)
    // A cookie that decodes to a NUL: its own session, recorded whole.
    expect(await get('mockyard-session=tab%001')).toBe(202)
    expect(server.requests({ session: 'tab%001' })).toMatchObject([{ session: 'tab%001', status: 202, headers: { cookie: '<redacted>' } }])
  } finally {
    await server.stop()
  }
})
