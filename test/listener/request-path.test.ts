/**
 * One request path for every node surface: the engine decides CORS and preflights
 * (docs/behaviour.md, "CORS"), and a request is recorded once, with the status it was sent.
 */
import { http, HttpResponse } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, named, removeTempDirs, writeMocks } from '../support/routes.js'

const ORIGIN = 'http://app.test'

describe('the listener writes what the engine decided', () => {
  let server: RunningServer

  beforeAll(async () => {
    const mocks = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
    server = await startMockServer({
      routes: mocks.routes,
      logProvider: captureLogs().logProvider,
      handlers: [http.get('*/v1/handled', () => HttpResponse.json({ ok: true }, { headers: { 'x-handler': 'yes' } }))],
    })
  })

  afterAll(async () => {
    await server.stop()
    removeTempDirs()
  })

  it("an msw handler's answer carries the CORS headers, its own headers exposed", async () => {
    const res = await fetch(`${server.url}/v1/handled`, { headers: { origin: ORIGIN } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-handler')).toBe('yes')
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(res.headers.get('access-control-expose-headers')).toContain('x-handler')
  })

  it('a 404 is recorded once, with its status and headers, before a waiter hears of it', async () => {
    const waited = server.waitForRequest((record) => record.url.endsWith('/v1/nothing'), { timeout: 5000 })
    const res = await fetch(`${server.url}/v1/nothing`, { headers: { origin: ORIGIN } })
    expect(res.status).toBe(404)
    const record = await waited
    expect(record).toMatchObject({ status: 404, matched: false })
    expect(record.responseHeaders?.['access-control-allow-origin']).toBe(ORIGIN)
    expect(record.explanation).toBe(
      [
        '[mockyard] no route answers GET /v1/nothing: no route has the path /v1/nothing.',
        'Closest routes:',
        '  - v1/users (GET, POST, PUT, PATCH, DELETE)',
        'Add a route to your routes file, for example "v1/nothing": { "file": "nothing.json" }.',
      ].join('\n'),
    )
    expect(server.requests({ path: '/v1/nothing' })).toHaveLength(1)
  })

  it('a preflight on a path no route has is answered by the engine and recorded as one', async () => {
    const res = await fetch(`${server.url}/not/configured`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'PUT' } })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(server.requests({ path: '/not/configured' })).toMatchObject([{ method: 'OPTIONS', status: 204, entry: 'preflight' }])
  })
})
