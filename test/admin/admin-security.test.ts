/** docs/behaviour.md, "Security": the admin endpoints against forged Host, Origin and Sec-Fetch-Site, and whole-or-nothing route changes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { accessControlHeaders, captureLogs, named, rawRequest, removeTempDirs, writeMocks } from '../support/routes.js'

/** The session header, by the name the README gives it. */
const SESSION_HEADER = 'x-mockyard-session'

afterAll(removeTempDirs)

const routes = { 'v1/users': { file: 'one.json' }, 'v1/s': { get: [{ response: [{ file: 'one.json' }, { file: 'two.json' }] }] } }
const files = named('one.json', 'two.json')

describe('admin endpoints refuse what another web page could send', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })
    // Something in the log worth stealing.
    await fetch(`${server.url}/v1/users?token=abc`)
  })
  afterAll(() => server.stop())

  const admin = (headers: Record<string, string>, path = '/__mockyard/requests', method = 'GET') => rawRequest(server.url, path, { method, headers })

  it.each([
    ['evil.example'],
    ['evil.example:' + 0],
    ['localhost.evil.example'],
    ['127.0.0.1.evil.example'],
    ['10.0.0.1'],
    ['[::2]'],
  ])('Host: %s (DNS rebinding) -> 403 JSON, nothing read', async (host) => {
    const res = await admin({ host })
    expect(res.status).toBe(403)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const body = JSON.parse(res.body.toString()) as { error: string; message: string }
    expect(body.error).toBe('Forbidden')
    expect(body.message).toMatch(/^\[mockyard\] GET \/__mockyard\/requests refused: .*loopback/)
    expect(res.body.toString()).not.toContain('token=abc')
    expect(accessControlHeaders(res.headers)).toEqual([])
  })

  it.each(['localhost', 'localhost:1234', 'LOCALHOST:80', '127.0.0.1', '127.1.2.3:99', '[::1]', '[::1]:5'])('Host: %s (a loopback name or address, any port) -> 200', async (host) => {
    const res = await admin({ host })
    expect(res.status).toBe(200)
    expect(res.body.toString()).toContain('token=abc')
  })

  it('an absolute-form target names the host it addresses: another host -> 403 whatever the Host header says; a loopback one -> 200', async () => {
    // What a client configured to use the listener as a proxy sends: the target's authority wins over Host.
    for (const target of ['http://evil.example/__mockyard/requests', `http://evil.example:${server.port}/__mockyard/requests`, 'http://127.0.0.1.evil.example/__mockyard/requests']) {
      const res = await admin({ host: 'localhost' }, target)
      expect(res.status, target).toBe(403)
      expect(res.body.toString()).not.toContain('token=abc')
      expect((JSON.parse(res.body.toString()) as { error: string }).error).toBe('Forbidden')
    }
    const reset = await admin({ host: 'localhost' }, 'http://evil.example/__mockyard/reset', 'POST')
    expect(reset.status).toBe(403)
    const own = await admin({ host: 'evil.example' }, `http://127.0.0.1:${server.port}/__mockyard/requests`)
    expect(own.status).toBe(200)
    expect(own.body.toString()).toContain('token=abc')
  })

  it("an Origin other than the listener's own loopback origin -> 403", async () => {
    for (const origin of ['http://evil.test', 'null', `http://localhost:${server.port + 1}`, `https://127.0.0.1:${server.port}`, `http://evil.test:${server.port}`]) {
      const res = await admin({ origin })
      expect(res.status, origin).toBe(403)
      expect(accessControlHeaders(res.headers)).toEqual([])
    }
  })

  it('a page served by the listener itself may call them (its Origin is the listener origin)', async () => {
    for (const origin of [server.url, `http://localhost:${server.port}`]) {
      const res = await admin({ origin, 'sec-fetch-site': 'same-origin' }, '/__mockyard/reset', 'POST')
      expect(res.status, origin).toBe(200)
      expect(accessControlHeaders(res.headers)).toEqual([])
    }
  })

  it('Sec-Fetch-Site: cross-site or same-site -> 403; same-origin and none pass', async () => {
    expect((await admin({ 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await admin({ 'sec-fetch-site': 'same-site' })).status).toBe(403)
    expect((await admin({ 'sec-fetch-site': 'same-origin' })).status).toBe(200)
    expect((await admin({ 'sec-fetch-site': 'none' })).status).toBe(200)
  })

  it('a refused reset changes nothing', async () => {
    await rawRequest(server.url, '/__mockyard/reset', { method: 'POST' })
    expect(await (await fetch(`${server.url}/v1/s`)).json()).toEqual({ file: 'one.json' })
    expect((await admin({ host: 'evil.example' }, '/__mockyard/reset', 'POST')).status).toBe(403)
    expect((await admin({ 'sec-fetch-site': 'cross-site' }, '/__mockyard/reset', 'POST')).status).toBe(403)
    expect(await (await fetch(`${server.url}/v1/s`)).json()).toEqual({ file: 'two.json' })
  })

  it('admin.allowRemote lifts these checks', async () => {
    const open = await startMockServer({ routes: writeMocks(routes, files).routes, admin: { allowRemote: true }, logProvider: captureLogs().logProvider })
    try {
      expect((await rawRequest(open.url, '/__mockyard/requests', { headers: { host: 'evil.example', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } })).status).toBe(200)
    } finally {
      await open.stop()
    }
  })
})

describe('PUT /__mockyard/routes: validated whole before anything applies', () => {
  let server: RunningServer
  beforeAll(async () => {
    const mocks = writeMocks(routes, files)
    server = await startMockServer({ routes: mocks.routes, data: mocks.data, limit: '10kb', logProvider: captureLogs().logProvider })
  })
  afterAll(() => server.stop())

  const put = (body: string, session?: string) =>
    rawRequest(server.url, '/__mockyard/routes', { method: 'PUT', headers: { 'content-type': 'application/json', ...(session ? { [SESSION_HEADER]: session } : {}) }, body })
  const routesNow = async (session?: string) => {
    const res = await rawRequest(server.url, '/__mockyard/routes', { headers: session ? { [SESSION_HEADER]: session } : {} })
    return { status: res.status, body: res.body.toString() }
  }

  it('a 100,000-deep body: 400, and GET routes still answers 200, unchanged (everyone and the session)', async () => {
    const before = await routesNow()
    const deep = `{"v1/new":{"file":"one.json","get":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`
    // Over the 10kb limit: a 413, nothing read further.
    expect((await put(deep)).status).toBe(413)
    const big = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })
    try {
      const res = await rawRequest(big.url, '/__mockyard/routes', { method: 'PUT', headers: { 'content-type': 'application/json', [SESSION_HEADER]: 'S' }, body: deep })
      expect(res.status).toBe(400)
      expect((JSON.parse(res.body.toString()) as { message: string }).message).toContain('deeper than 64 levels')
      for (const session of ['S', undefined]) {
        const now = await rawRequest(big.url, '/__mockyard/routes', { headers: session ? { [SESSION_HEADER]: session } : {} })
        expect(now.status).toBe(200)
        expect(now.body.toString()).not.toContain('v1/new')
      }
      expect((await fetch(`${big.url}/v1/new`, { headers: { [SESSION_HEADER]: 'S' } })).status).toBe(404)
    } finally {
      await big.stop()
    }
    expect(await routesNow()).toEqual(before)
  })

  it('a body that is not an object (a string would name a file on this machine): 400, no file read, nothing changes', async () => {
    const before = await routesNow()
    const routesFile = writeMocks({ 'v1/users': { status: 418 } }).routes
    for (const [body, what] of [[JSON.stringify(routesFile), 'a string'], [JSON.stringify('/etc/passwd'), 'a string'], ['null', 'null'], ['[]', 'an array'], ['5', 'a number']]) {
      const res = await put(body!)
      expect(res.status).toBe(400)
      expect(JSON.parse(res.body.toString())).toEqual({
        error: 'Bad Request',
        message: `[mockyard] the routes body is ${what}, not an object of routes. Send a routes.json-shaped JSON object; nothing was changed.`,
      })
    }
    expect(await routesNow()).toEqual(before)
  })

  it('65 levels: 400; 64 levels of a valid shape are not refused for depth', async () => {
    const nest = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)
    // Root object, route, method entry, params: 4 levels, then the condition's own.
    const at = (depth: number) => `{"v1/deep":{"post":{"file":"one.json","params":{"x":${nest(depth - 4)}}}}}`
    const refused = await put(at(65))
    expect(refused.status).toBe(400)
    expect(refused.body.toString()).toContain('deeper than 64 levels')
    expect((await routesNow()).body).not.toContain('v1/deep')
    expect((await put(at(64), 'D')).status).toBe(200)
    expect((await routesNow('D')).body).toContain('v1/deep')
  })

  it('a body over limit: 413, nothing changes', async () => {
    const body = JSON.stringify({ 'v1/big': { file: 'one.json', padding: 'x'.repeat(20_000) } })
    const res = await put(body)
    expect(res.status).toBe(413)
    expect((JSON.parse(res.body.toString()) as { error: string }).error).toBe('Payload Too Large')
    expect(accessControlHeaders(res.headers)).toEqual([])
    expect((await routesNow()).body).not.toContain('v1/big')
  })

  it('a body over limit sent to any admin endpoint: 413 JSON, and the endpoint does nothing (a reset does not reset)', async () => {
    const padding = 'x'.repeat(20_000)
    expect(await (await fetch(`${server.url}/v1/s`)).json()).toEqual({ file: 'one.json' })
    for (const [method, path] of [['POST', '/__mockyard/reset'], ['GET', '/__mockyard/requests'], ['GET', '/__mockyard/routes'], ['GET', '/__mockyard/dashboard/state'], ['POST', '/__mockyard/nothing-here']]) {
      const res = await rawRequest(server.url, path!, { method, headers: { 'content-length': String(padding.length) }, body: padding })
      expect(res.status, `${method} ${path}`).toBe(413)
      expect((JSON.parse(res.body.toString()) as { error: string }).error).toBe('Payload Too Large')
      expect(accessControlHeaders(res.headers)).toEqual([])
    }
    // The refused reset did not restart the sequence.
    expect(await (await fetch(`${server.url}/v1/s`)).json()).toEqual({ file: 'two.json' })
  })

  it.each([
    ['not JSON', '{"v1/x":'],
    ['an array', '[1,2]'],
    ['null', 'null'],
    ['an invalid route', '{"v1/ok":{"file":"one.json"},"v1/bad":{"latency":"slow"}}'],
  ])('%s: 400, nothing changes', async (_what, body) => {
    const res = await put(body)
    expect(res.status).toBe(400)
    const now = await routesNow()
    expect(now.status).toBe(200)
    expect(now.body).not.toContain('v1/ok')
  })
})
