/**
 * The in-process surface (msw handlers): docs/behaviour.md, "Reset" (msw's resetHandlers restarts
 * sequences) and "CORS" (OPTIONS answered only on a configured route; others fall through).
 */
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandlers } from 'mockyard/node'
import { named, removeTempDirs, writeMocks } from '../support/routes.js'

const BASE = 'http://api.rules.test'
let server: ReturnType<typeof setupServer>

beforeAll(async () => {
  const mocks = writeMocks(
    {
      'v1/users': { file: 'users.json' },
      'v1/s': { get: [{ params: { k: 'x' }, response: [{ file: 'x1.json' }, { file: 'x2.json' }] }] },
      'v1/t': { post: [{ response: [{ file: 'p1.json' }, { file: 'p2.json' }] }] },
    },
    named('users.json', 'x1.json', 'x2.json', 'p1.json', 'p2.json'),
  )
  const handlers = await createHandlers({ routes: mocks.routes, logProvider: () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error }) })
  // The next handler: what a request mockyard does not answer falls through to.
  server = setupServer(...handlers, http.all(`${BASE}/*`, () => HttpResponse.text('fell through', { status: 299 })))
  server.listen()
})

afterAll(() => {
  server.close()
  removeTempDirs()
})

const file = async (path: string, init?: RequestInit) => ((await (await fetch(BASE + path, init)).json()) as { file: string }).file

describe('in process', () => {
  it("msw's resetHandlers() restarts every sequence of mockyard's handlers", async () => {
    expect(await file('/v1/s?k=x')).toBe('x1.json')
    expect(await file('/v1/t', { method: 'POST' })).toBe('p1.json')
    server.resetHandlers()
    expect(await file('/v1/s?k=x')).toBe('x1.json')
    expect(await file('/v1/t', { method: 'POST' })).toBe('p1.json')
  })

  it('an OPTIONS request on a configured route is answered as a preflight', async () => {
    const res = await fetch(BASE + '/v1/users', { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-custom' } })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE')
    expect(res.headers.get('access-control-allow-headers')).toBe('x-custom')
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test')
  })

  it('an OPTIONS request on any other path falls through to the next handler', async () => {
    const res = await fetch(BASE + '/not/configured', { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'PUT' } })
    expect(res.status).toBe(299)
    expect(await res.text()).toBe('fell through')
  })

  it('an unmatched request falls through too (no 404 in process)', async () => {
    const res = await fetch(BASE + '/v1/nothing')
    expect(res.status).toBe(299)
  })
})
