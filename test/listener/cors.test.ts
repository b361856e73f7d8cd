/** docs/behaviour.md, "CORS". */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { http } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMiddleware, startMockServer, type Middleware, type RunningServer } from 'mockyard/node'
import { accessControlHeaders, captureLogs, engineFor, named, rawRequest, removeTempDirs, send, writeMocks } from '../support/routes.js'

const ORIGIN = 'http://app.test'

describe('CORS headers (core)', () => {
  const engine = engineFor(
    {
      'v1/users': { file: 'users.json' },
      'v1/jobs': { status: 202, responseHeader: { Location: '/v1/jobs/1', 'X-Total-Count': '3', Vary: 'Accept' } },
      'v1/payments': { post: 'users.json' },
    },
    named('users.json'),
  )

  it('with an Origin: that origin, credentials allowed, Vary: Origin', async () => {
    const res = await send(engine, '/v1/users', { headers: { origin: ORIGIN } })
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN)
    expect(res.headers['access-control-allow-credentials']).toBe('true')
    expect(res.headers['vary']?.split(/\s*,\s*/)).toContain('Origin')
  })

  it('Vary: Origin is added to a Vary the config sets', async () => {
    const res = await send(engine, '/v1/jobs', { headers: { origin: ORIGIN } })
    expect(res.headers['vary']?.split(/\s*,\s*/).sort()).toEqual(['Accept', 'Origin'])
  })

  it('without an Origin: *, and no credentials', async () => {
    const res = await send(engine, '/v1/users')
    expect(res.headers['access-control-allow-origin']).toBe('*')
    expect(res.headers['access-control-allow-credentials']).toBeUndefined()
  })

  it('Access-Control-Expose-Headers lists the headers the response sets', async () => {
    const res = await send(engine, '/v1/jobs', { headers: { origin: ORIGIN } })
    const exposed = (res.headers['access-control-expose-headers'] ?? '').toLowerCase().split(/\s*,\s*/)
    expect(exposed).toEqual(expect.arrayContaining(['location', 'x-total-count']))
  })

  it('a 400 carries them too', async () => {
    const res = await send(engine, '/v1/payments', { method: 'POST', body: '{', headers: { 'content-type': 'application/json', origin: ORIGIN } })
    expect(res.status).toBe(400)
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN)
  })
})

function expectPreflight(status: number, headers: Headers) {
  expect(status).toBe(204)
  expect(headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE')
  expect(headers.get('access-control-allow-headers')).toBe('x-requested-with,content-type')
  expect(Number(headers.get('access-control-max-age'))).toBeGreaterThan(0)
  expect(headers.get('access-control-allow-origin')).toBe(ORIGIN)
}
const preflight = { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'x-requested-with,content-type' } }

describe('CORS over HTTP', () => {
  let server: RunningServer
  let middleware: Middleware
  let app: Server
  let appUrl: string

  beforeAll(async () => {
    const mocks = writeMocks(
      {
        'v1/users': { file: 'users.json' },
        'v1/missing': { file: 'missing.json' },
        'v1/help': { url: 'https://example.test/help' },
        'v1/payments': { post: 'users.json' },
      },
      named('users.json'),
    )
    server = await startMockServer({
      routes: mocks.routes,
      limit: 10,
      logProvider: captureLogs().logProvider,
      handlers: [
        http.get('*/v1/boom', () => {
          throw new Error('kaput')
        }),
      ],
    })
    middleware = await createMiddleware({ routes: mocks.routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const expressApp = express()
    expressApp.use(middleware)
    app = createServer(expressApp)
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await server.stop()
    app.closeAllConnections()
    await new Promise((resolve) => app.close(resolve))
    await middleware.close()
    removeTempDirs()
  })

  it('OPTIONS preflight on the listener, any path: 204, methods, echoed headers, max-age', async () => {
    for (const path of ['/v1/users', '/not/configured/at/all', '/']) {
      const res = await fetch(server.url + path, preflight)
      expectPreflight(res.status, res.headers)
    }
  })

  it('OPTIONS preflight on the middleware, any path', async () => {
    for (const path of ['/v1/users', '/not/configured/at/all']) {
      const res = await fetch(appUrl + path, preflight)
      expectPreflight(res.status, res.headers)
    }
  })

  it.each([
    ['a 404 (no route)', '/v1/nothing', {}, 404],
    ['a 404 (wrong method)', '/v1/payments', { method: 'GET' }, 404],
    ['a 404 (missing file)', '/v1/missing', {}, 404],
    ['a 400 (malformed body)', '/v1/payments', { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } }, 400],
    ['a 413 (over the limit)', '/v1/payments', { method: 'POST', body: '{"a":"0123456789"}', headers: { 'content-type': 'application/json' } }, 413],
    ['a 500 (exception)', '/v1/boom', {}, 500],
    ['a redirect', '/v1/help', { redirect: 'manual' }, 302],
    ['GET /', '/', {}, 200],
  ] as Array<[string, string, RequestInit, number]>)('%s carries them', async (_what, path, init, status) => {
    const res = await fetch(server.url + path, { ...init, headers: { ...(init.headers as Record<string, string>), origin: ORIGIN } })
    expect(res.status).toBe(status)
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
  })

  it('the admin endpoints are the exception: no CORS headers, even to a preflight', async () => {
    const requests = await rawRequest(server.url, '/__mockyard/requests')
    expect(requests.status).toBe(200)
    expect(accessControlHeaders(requests.headers)).toEqual([])
    const options = await rawRequest(server.url, '/__mockyard/reset', { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } })
    expect(options.status).toBeGreaterThanOrEqual(400)
    expect(accessControlHeaders(options.headers)).toEqual([])
  })
})
