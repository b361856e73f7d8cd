/**
 * expectCalled() and the unused-routes list, on the HTTP listener's handle (startMockServer),
 * with real requests over loopback; the runners' handles share the same code (test/runners).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { RouteUsage, routeKeysOf, unusedRoutesWarning } from '../../src/harness/route-usage.js'

const routes = {
  'v1/users': { status: 200 },
  'v1/payments': { post: { status: 201 }, get: { status: 200 } },
  'v1/orders': { status: 200, delete: { status: 204 } },
}

let server: RunningServer
beforeAll(async () => {
  server = await startMockServer({ routes })
})
afterAll(() => server.stop())

const thrown = (fn: () => void) => {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('it did not throw')
}

describe('expectCalled()', () => {
  it('passes on the count of a route key or a path, with or without a method; without a count, at least one', async () => {
    server.reset()
    await fetch(`${server.url}/v1/payments`, { method: 'POST' })
    await fetch(`${server.url}/v1/payments`, { method: 'POST' })
    await fetch(`${server.url}/v1/payments`)
    server.expectCalled('POST v1/payments', 2)
    server.expectCalled('post v1/payments', 2)
    server.expectCalled('v1/payments', 3)
    server.expectCalled('GET /v1/payments', 1)
    server.expectCalled('v1/payments')
    server.expectCalled('v1/users', 0)
  })

  it('fails with the count and the requests made per route, unanswered ones by path', async () => {
    server.reset()
    await fetch(`${server.url}/v1/users`)
    await fetch(`${server.url}/v1/users`)
    await fetch(`${server.url}/v1/nothing`)
    const error = thrown(() => server.expectCalled('GET v1/users', 1))
    expect(error.message).toBe(
      '[mockyard] expected GET v1/users to be called 1 time since the last reset; it was called 2 times.\nRequests since the last reset, per route:\n  GET v1/users: 2\n  GET /v1/nothing (no route): 1',
    )
    // The failure points at the caller, not into mockyard.
    expect(error.stack!.split('\n').find((line) => line.trimStart().startsWith('at '))).toContain('route-usage.test.ts')
    expect(thrown(() => server.expectCalled('DELETE v1/orders')).message).toContain('expected DELETE v1/orders to be called since the last reset; it was called 0 times.')
  })

  it('says so when no request was made', () => {
    server.reset()
    expect(thrown(() => server.expectCalled('v1/users', 2)).message).toBe('[mockyard] expected v1/users to be called 2 times since the last reset; it was called 0 times.\nNo request was made since the last reset.')
  })

  it('refuses a count that is not a whole number of 0 or more, and an empty target', () => {
    expect(thrown(() => server.expectCalled('v1/users', -1))).toBeInstanceOf(TypeError)
    expect(thrown(() => server.expectCalled('v1/users', 1.5)).message).toContain('the count must be a whole number, 0 or more')
    expect(thrown(() => server.expectCalled(' '))).toBeInstanceOf(TypeError)
  })
})

describe('expectCalled() when the bounded log dropped records', () => {
  it('says so, on the handle and through the admin client of a session, with the limit to raise', async () => {
    const small = await startMockServer({ routes, requestLog: { limit: 5 } })
    try {
      await fetch(`${small.url}/v1/payments`, { method: 'POST', headers: { 'x-mockyard-session': 's1' } })
      for (let i = 0; i < 7; i++) await fetch(`${small.url}/v1/users`)
      const note = 'The request log keeps the latest 5 records (requestLog.limit), all sessions together, and 3 older records were dropped since it was last reset: the requests looked for may be among them. Raise requestLog.limit.'
      expect(thrown(() => small.expectCalled('POST v1/payments')).message.split('\n').at(-1)).toBe(note)
      const { createAdminClient } = await import('mockyard/playwright')
      const error = await createAdminClient(small.url, { session: 's1' }).expectCalled('POST v1/payments').then(() => undefined, (failure: Error) => failure)
      expect(error?.message).toBe(`[mockyard] expected POST v1/payments to be called in this session since its last reset; it was called 0 times.\nNo request was made in this session since its last reset.\n${note}`)
      // A session reset after the log overflowed has lost nothing since: no such line for it.
      const fresh = createAdminClient(small.url, { session: 's2' })
      await fresh.reset()
      const own = await fresh.expectCalled('POST v1/payments').then(() => undefined, (failure: Error) => failure)
      expect(own?.message).toBe('[mockyard] expected POST v1/payments to be called in this session since its last reset; it was called 0 times.\nNo request was made in this session since its last reset.')
      // A reset of everything starts the count again: nothing was dropped since.
      small.reset()
      expect(thrown(() => small.expectCalled('POST v1/payments')).message).not.toContain('requestLog.limit')
    } finally {
      await small.stop()
    }
  })
})

describe('the unused routes (reportUnused)', () => {
  it("lists each method key of a route, a route without method keys as any method, and a route's own answer beside method keys as other methods", () => {
    expect(routeKeysOf(routes)).toEqual(['v1/users (any method)', 'GET v1/payments', 'POST v1/payments', 'DELETE v1/orders', 'v1/orders (other methods)'])
    // Method keys and nothing the route answers by itself: no other methods to list.
    expect(routeKeysOf({ 'v1/a': { get: 'a.json', latency: 5 } })).toEqual(['GET v1/a'])
  })

  it('keeps what requests used across resets; a HEAD uses the get key', async () => {
    const usage = new RouteUsage()
    server.reset()
    await fetch(`${server.url}/v1/users`, { method: 'PUT' })
    usage.add(server.requests())
    server.reset()
    await fetch(`${server.url}/v1/payments`, { method: 'HEAD' })
    usage.add(server.requests())
    expect(usage.unused(routes)).toEqual(['POST v1/payments', 'DELETE v1/orders', 'v1/orders (other methods)'])
    expect(unusedRoutesWarning(usage.unused(routes), 'in this file')).toBe(
      '[mockyard] 3 routes were not used by any test in this file (reportUnused):\n  - POST v1/payments\n  - DELETE v1/orders\n  - v1/orders (other methods)\nRemove them if no test needs them, or add a test that uses them.',
    )
    expect(unusedRoutesWarning([], 'in this file')).toBeUndefined()
  })

  it("the route's own answer beside method keys: unused until a method without a key of its own gets it", async () => {
    const usage = new RouteUsage()
    server.reset()
    // DELETE has its key: the route's own answer (status 200) is still unused.
    await fetch(`${server.url}/v1/orders`, { method: 'DELETE' })
    usage.add(server.requests())
    expect(usage.unused(routes)).toContain('v1/orders (other methods)')
    expect(usage.unused(routes)).not.toContain('DELETE v1/orders')
    server.reset()
    await fetch(`${server.url}/v1/orders`)
    usage.add(server.requests())
    expect(usage.unused(routes)).not.toContain('v1/orders (other methods)')
  })

  it('a HEAD is the get key\'s when the route has one; a key with conditional entries only falls back to the route\'s answer', async () => {
    const own = {
      'v1/a': { status: 200, get: { status: 203 } },
      'v1/b': { status: 200, get: [{ params: { q: '1' }, status: 201 }] },
    }
    const small = await startMockServer({ routes: own })
    try {
      const usage = new RouteUsage()
      await fetch(`${small.url}/v1/a`, { method: 'HEAD' })
      await fetch(`${small.url}/v1/b?q=1`)
      usage.add(small.requests())
      expect(usage.unused(own)).toEqual(['v1/a (other methods)', 'v1/b (other methods)'])
      await fetch(`${small.url}/v1/b?q=2`)
      usage.add(small.requests())
      expect(usage.unused(own)).toEqual(['v1/a (other methods)'])
    } finally {
      await small.stop()
    }
  })
})
