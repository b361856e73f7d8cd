/**
 * The admin client of `mockyard/playwright` against a real listener: `requests(filter)` takes the
 * Vitest handle's filter, and each record names the file that answered.
 */
import { startMockServer, type RunningServer } from 'mockyard/node'
import { createAdminClient } from 'mockyard/playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXAMPLES_DATA, EXAMPLES_ROUTES } from '../contract/cases.js'

let server: RunningServer

beforeAll(async () => {
  server = await startMockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA })
})
afterAll(() => server.stop())

describe('createAdminClient(url, { session }).requests(filter)', () => {
  it('filters as the Vitest handle does, and records carry file', async () => {
    const session = 'filter-test'
    const admin = createAdminClient(server.url, { session })
    const headers = { 'x-mockyard-session': session }
    await fetch(`${server.url}/v1/claims?status=open`, { headers })
    await fetch(`${server.url}/v1/payments`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"method":{"type":"card"}}' })
    await fetch(`${server.url}/v1/jobs/42`, { headers })
    await fetch(`${server.url}/v1/users`, { headers: { 'x-mockyard-session': 'someone-else' } })

    expect((await admin.requests()).map((r) => r.file)).toEqual(['claims-open.json', 'payment-card.json', 'job-running.json'])
    expect(await admin.requests({ method: 'post' })).toMatchObject([{ route: 'v1/payments', entry: 'post[0]', file: 'payment-card.json' }])
    expect(await admin.requests({ path: '/v1/claims' })).toMatchObject([{ file: 'claims-open.json', status: 200 }])
    expect((await admin.requests({ path: /^\/v1\/(jobs|payments)/ })).map((r) => r.route)).toEqual(['v1/payments', 'v1/jobs/42'])
    expect((await admin.requests({ route: 'v1/jobs/42' })).map((r) => [r.status, r.file])).toEqual([[202, 'job-running.json']])
    expect(await admin.requests({ route: 'v1/users' })).toEqual([])
    // Without a session the client sees every session's records.
    expect((await createAdminClient(server.url).requests({ session: 'someone-else' })).map((r) => r.file)).toEqual(['users.json'])
  })
})

describe('the records of requests nothing answered', () => {
  it('carry matched: false and the explanation (what the fixture fails a test with); answered ones carry neither', async () => {
    const session = 'unanswered-test'
    const headers = { 'x-mockyard-session': session }
    await fetch(`${server.url}/v1/users`, { headers })
    await fetch(`${server.url}/v1/nope`, { headers })
    const [answered, unanswered] = await createAdminClient(server.url, { session }).requests()
    expect(answered).not.toHaveProperty('matched')
    expect(answered).not.toHaveProperty('explanation')
    expect(unanswered).toMatchObject({ route: null, status: 404, matched: false })
    expect(unanswered!.explanation).toMatch(/^\[mockyard\] no route answers GET \/v1\/nope: no route has the path \/v1\/nope\.\nClosest routes:/)
  })
})

describe('createAdminClient(url, { session }).expectCalled(route, count)', () => {
  it("counts this session's requests per route, and rejects with what was called instead", async () => {
    const session = 'count-test'
    const admin = createAdminClient(server.url, { session })
    const headers = { 'x-mockyard-session': session }
    await fetch(`${server.url}/v1/users`, { headers })
    await fetch(`${server.url}/v1/users`, { headers })
    await fetch(`${server.url}/v1/claims?status=open`, { headers })
    await fetch(`${server.url}/v1/users`, { headers: { 'x-mockyard-session': 'another' } })

    await admin.expectCalled('GET v1/users', 2)
    await admin.expectCalled('v1/claims')
    const error = await admin.expectCalled('GET v1/users', 3).catch((caught: Error) => caught)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain('expected GET v1/users to be called 3 times in this session since its last reset; it was called 2 times.')
    expect((error as Error).message).toContain('v1/claims: 1')
    await expect(admin.expectCalled('POST v1/payments')).rejects.toThrow('it was called 0 times')
  })
})

describe('createAdminClient(url, { session }) with a session no header can carry', () => {
  it('throws a TypeError naming it at once, not an unreachable listener at the first call', () => {
    for (const session of ['checkout — happy path', 'two\nlines', ' padded']) {
      expect(() => createAdminClient(server.url, { session })).toThrow(TypeError)
    }
    expect(() => createAdminClient(server.url, { session: 'checkout — happy path' })).toThrow(
      '[mockyard] session "checkout — happy path": not a value a header can carry (visible ASCII, spaces inside). Use an ASCII name, or encodeURIComponent() it.',
    )
    // Spaces inside are fine, as any header value.
    expect(createAdminClient(server.url, { session: 'checkout happy path' }).session).toBe('checkout happy path')
  })
})
