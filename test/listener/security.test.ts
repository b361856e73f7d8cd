/** docs/behaviour.md, "Security" (and the sessions of "Sequences" over HTTP). */
import { writeFileSync } from 'node:fs'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, memoryFiles, type RoutesConfig } from 'mockyard'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { accessControlHeaders, captureLogs, engineFor, named, rawRequest, removeTempDirs, send, tempDir, writeMocks, type Mocks } from '../support/routes.js'

/** The session header, by the name the README gives it. */
const SESSION_HEADER = 'x-mockyard-session'

afterAll(removeTempDirs)

const SECRET = 'TOP-SECRET-OUTSIDE-THE-DATA-FOLDER'

describe('data files stay inside their data folder', () => {
  let server: RunningServer
  let mocks: Mocks
  beforeAll(async () => {
    const root = tempDir()
    mocks = writeMocks(
      {
        'v1/users': { file: 'users.json' },
        'v1/users/:id': { file: 'user.json' },
        'v1/files/*': { file: 'users.json' },
        'v1/encoded': { file: '%2e%2e/secret.txt' },
      },
      named('users.json', 'user.json'),
      join(root, 'mocks'),
    )
    // The secret lives beside the data folder and one level further up.
    writeFileSync(join(mocks.dir, 'secret.txt'), SECRET)
    writeFileSync(join(root, 'secret.txt'), SECRET)
    server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
  })
  afterAll(() => server.stop())

  it.each([
    '/../secret.txt',
    '/v1/../../secret.txt',
    '/v1/users/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/v1/%2e%2e/%2e%2e/secret.txt',
    '/v1/users/..%2f..%2fsecret.txt',
    '/v1/files/..%2f..%2f..%2fsecret.txt',
    '/v1/files/../../secret.txt',
    '/..%5csecret.txt',
    '/secret.txt',
    '/data/../secret.txt',
  ])('a request for %s never reaches a file outside', async (path) => {
    const res = await rawRequest(server.url, path)
    expect(res.body.toString('latin1')).not.toContain(SECRET)
    expect(res.status).not.toBe(500)
  })

  it('a file value written with encoded dots is a plain name, never decoded into ..', async () => {
    const res = await fetch(server.url + '/v1/encoded')
    expect(res.status).toBe(404)
    expect(await res.text()).not.toContain(SECRET)
  })

  it('routes added at run time cannot name a file outside either', async () => {
    const put = await rawRequest(server.url, '/__mockyard/routes', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ 'v1/leak': { file: '../secret.txt' }, 'v1/leak2': { get: [{ params: {}, response: [{ file: '../../secret.txt' }] }] } }),
    })
    expect(put.status).toBe(400)
    for (const path of ['/v1/leak', '/v1/leak2']) {
      const res = await fetch(server.url + path)
      expect(res.status).toBe(404)
      expect(await res.text()).not.toContain(SECRET)
    }
  })
})

describe('route keys such as __proto__ cannot pollute objects', () => {
  const text = `{
    "__proto__": { "file": "evil.json", "status": 500, "get": "evil.json" },
    "constructor": { "file": "evil.json" },
    "v1/a": { "file": "a.json", "__proto__": { "status": 500, "latency": 5000 }, "get": { "__proto__": { "status": 500 } } },
    "v1/b": { "get": [ { "params": { "__proto__": "x" }, "file": "a.json" } ] }
  }`
  const before = Object.getOwnPropertyNames(Object.prototype).sort()
  const clean = () => {
    const probe = {} as Record<string, unknown>
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before)
    for (const key of ['file', 'status', 'get', 'latency', 'polluted']) expect(probe[key]).toBeUndefined()
  }

  it('in the core: compiling and serving', async () => {
    const routes = JSON.parse(text) as RoutesConfig
    const files = memoryFiles(named('a.json', 'evil.json'))
    // Merged twice: the deep merge meets the same keys again.
    const engine = createEngine(compileRoutes([{ file: 'one.json', routes, files }, { file: 'two.json', routes: JSON.parse(text) as RoutesConfig, files }]))
    clean()
    const res = await send(engine, '/v1/a')
    expect([res.status, res.file]).toEqual([200, 'a.json'])
    // A __proto__ param is the literal query key __proto__.
    expect((await send(engine, '/v1/b?__proto__=x')).file).toBe('a.json')
    expect((await send(engine, '/v1/b?__proto__=y')).matched).toBe(false)
    for (const path of ['/toString', '/hasOwnProperty', '/valueOf']) expect((await send(engine, path)).matched).toBe(false)
    clean()
  })

  it('in request bodies', async () => {
    const engine = engineFor({ 'v1/a': { post: [{ params: { 'x.y': '1' }, file: 'a.json' }] } }, named('a.json'))
    await send(engine, '/v1/a', { method: 'POST', body: '__proto__[polluted]=yes&a[__proto__][polluted]=yes&constructor[prototype][polluted]=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    await send(engine, '/v1/a', { method: 'POST', body: '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}', headers: { 'content-type': 'application/json' } })
    const body = new FormData()
    body.set('__proto__[polluted]', 'yes')
    await send(engine, '/v1/a', { method: 'POST', body })
    await send(engine, '/v1/a?__proto__[polluted]=yes&__proto__=x')
    clean()
  })

  it('over HTTP: loading the file, and putting routes at run time', async () => {
    const mocks = writeMocks(text, named('a.json', 'evil.json'))
    // data given: the routes put at run time read their files from the same folder.
    const server = await startMockServer({ routes: mocks.routes, data: mocks.data, logProvider: captureLogs().logProvider })
    try {
      clean()
      const res = await fetch(server.url + '/v1/a')
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ file: 'a.json' })
      const put = await rawRequest(server.url, '/__mockyard/routes', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text })
      expect(put.status).toBeLessThan(500)
      const again = await fetch(server.url + '/v1/a')
      expect(again.status).toBe(200)
      expect(await again.json()).toEqual({ file: 'a.json' })
      clean()
    } finally {
      await server.stop()
    }
  })
})

describe('admin endpoints', () => {
  const routes = { 'v1/s': { get: [{ response: [{ file: 'one.json' }, { file: 'two.json' }] }] }, 'v1/users': { file: 'one.json' } }
  const files = named('one.json', 'two.json')

  const externalAddress = () => {
    for (const list of Object.values(networkInterfaces())) {
      for (const address of list ?? []) if (address.family === 'IPv4' && !address.internal) return address.address
    }
    throw new Error('this test needs a non-loopback IPv4 interface to play a remote client')
  }

  it('answer loopback clients only (a remote client gets 403; the routes still answer it)', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, host: '0.0.0.0', logProvider: captureLogs().logProvider })
    try {
      const remote = `http://${externalAddress()}:${server.port}`
      for (const [path, method] of [
        ['/__mockyard/requests', 'GET'],
        ['/__mockyard/routes', 'GET'],
        ['/__mockyard/reset', 'POST'],
      ] as const) {
        expect((await rawRequest(remote, path, { method })).status).toBe(403)
        expect((await rawRequest(`http://127.0.0.1:${server.port}`, path, { method })).status).toBe(200)
      }
      expect((await rawRequest(remote, '/v1/users')).status).toBe(200)
    } finally {
      await server.stop()
    }
  })

  it('admin.allowRemote opens them to other clients', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, host: '0.0.0.0', admin: { allowRemote: true }, logProvider: captureLogs().logProvider })
    try {
      expect((await rawRequest(`http://${externalAddress()}:${server.port}`, '/__mockyard/requests')).status).toBe(200)
    } finally {
      await server.stop()
    }
  })

  it('refuse a request with another Origin than their own (and do nothing)', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })
    try {
      expect(await (await fetch(server.url + '/v1/s')).json()).toEqual({ file: 'one.json' })
      const reset = await rawRequest(server.url, '/__mockyard/reset', { method: 'POST', headers: { origin: 'http://evil.test' } })
      expect(reset.status).toBe(403)
      expect(accessControlHeaders(reset.headers)).toEqual([])
      // The reset did not happen: the sequence goes on.
      expect(await (await fetch(server.url + '/v1/s')).json()).toEqual({ file: 'two.json' })
      for (const [path, method] of [
        ['/__mockyard/requests', 'GET'],
        ['/__mockyard/routes', 'GET'],
        ['/__mockyard/routes', 'PUT'],
      ] as const) {
        const res = await rawRequest(server.url, path, { method, headers: { origin: 'null', 'content-type': 'application/json' }, body: method === 'PUT' ? '{"v1/new":{"file":"one.json"}}' : undefined })
        expect(res.status).toBe(403)
        expect(res.body.toString()).not.toContain('v1/users')
      }
      expect((await fetch(server.url + '/v1/new')).status).toBe(404)
    } finally {
      await server.stop()
    }
  })

  it('send no CORS headers', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })
    try {
      for (const [path, method] of [
        ['/__mockyard/requests', 'GET'],
        ['/__mockyard/routes', 'GET'],
        ['/__mockyard/reset', 'POST'],
        ['/__mockyard/nothing', 'GET'],
      ] as const) {
        const res = await rawRequest(server.url, path, { method })
        expect(accessControlHeaders(res.headers)).toEqual([])
      }
    } finally {
      await server.stop()
    }
  })

  it(`${SESSION_HEADER} isolates sequences and the request log`, async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })
    const as = (session: string) => ({ [SESSION_HEADER]: session })
    const file = async (session: string) => ((await (await fetch(server.url + '/v1/s', { headers: as(session) })).json()) as { file: string }).file
    const logged = async (session: string) =>
      ((JSON.parse((await rawRequest(server.url, '/__mockyard/requests', { headers: as(session) })).body.toString()) as { requests: Array<{ url: string; session: string }> }).requests)
    try {
      expect([await file('A'), await file('A')]).toEqual(['one.json', 'two.json'])
      expect(await file('B')).toBe('one.json')
      expect((await logged('A')).map((r) => r.session)).toEqual(['A', 'A'])
      expect((await logged('B')).map((r) => r.session)).toEqual(['B'])
      // Resetting session A leaves B where it is.
      expect((await rawRequest(server.url, '/__mockyard/reset', { method: 'POST', headers: as('A') })).status).toBe(200)
      expect(await file('A')).toBe('one.json')
      expect(await file('B')).toBe('two.json')
      expect(await logged('A')).toHaveLength(1)
      expect(await logged('B')).toHaveLength(2)
    } finally {
      await server.stop()
    }
  })
})

describe('the request log', () => {
  it('redacts Authorization, Cookie and Set-Cookie values', async () => {
    const server = await startMockServer({ routes: writeMocks({ 'v1/users': { file: 'one.json' } }, named('one.json')).routes, logProvider: captureLogs().logProvider })
    try {
      await rawRequest(server.url, '/v1/users', { headers: { authorization: 'Bearer s3cr3t', cookie: 'sid=s3cr3t', 'set-cookie': 'sid=s3cr3t', 'x-visible': 'shown' } })
      const [record] = server.requests()
      expect(record!.headers['x-visible']).toBe('shown')
      for (const name of ['authorization', 'cookie', 'set-cookie']) {
        expect(record!.headers[name]).toBe('<redacted>')
      }
      const viaAdmin = (await rawRequest(server.url, '/__mockyard/requests')).body.toString()
      expect(viaAdmin).toContain('x-visible')
      expect(viaAdmin).not.toContain('s3cr3t')
    } finally {
      await server.stop()
    }
  })

  it('is bounded (requestLog.limit keeps the latest records)', async () => {
    const server = await startMockServer({ routes: writeMocks({ 'v1/users': { file: 'one.json' } }, named('one.json')).routes, requestLog: { limit: 3 }, logProvider: captureLogs().logProvider })
    try {
      for (let i = 1; i <= 5; i++) await fetch(`${server.url}/v1/users?n=${i}`)
      expect(server.requests().map((r) => new URL(r.url).searchParams.get('n'))).toEqual(['3', '4', '5'])
    } finally {
      await server.stop()
    }
  })
})
