/** docs/behaviour.md, "Errors and limits" (the listener's answers; config errors: config-errors.test.ts). */
import { Agent, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { http } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMiddleware, startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, named, rawRequest, removeTempDirs, timed, writeMocks, type CapturedLogs } from '../support/routes.js'

afterAll(removeTempDirs)

interface ErrorBody {
  error: string
  message: string
  [key: string]: unknown
}

describe('unmatched requests (listener)', () => {
  let server: RunningServer
  beforeAll(async () => {
    const mocks = writeMocks(
      {
        'v1/users': { file: 'users.json' },
        'v1/orders': { file: 'users.json' },
        'v2/zebra/stripes': { file: 'users.json' },
        'v1/x': { get: 'users.json', post: 'users.json' },
        'v1/jobs': { get: [{ params: { id: '1' }, response: [{ status: 202, repeat: 2 }, { status: 200 }] }] },
      },
      named('users.json'),
    )
    server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
  })
  afterAll(() => server.stop())

  /** The explanation of `/v1/user` (no such path), as every body below carries it. */
  const closest = (method: string, query = '') =>
    [
      `[mockyard] no route answers ${method} /v1/user${query}: no route has the path /v1/user.`,
      'Closest routes:',
      '  - v1/users (GET, POST, PUT, PATCH, DELETE)',
      '  - v1/orders (GET, POST, PUT, PATCH, DELETE)',
      '  - v1/x (GET, POST)',
      'Add a route to your routes file, for example "v1/user": { "file": "user.json" }.',
    ].join('\n')
  const escaped = (text: string) => text.replaceAll('"', '&#34;')

  it('404 JSON by default: { error, message, method, url }, the message naming the method, the path and the closest routes', async () => {
    const res = await fetch(server.url + '/v1/user?x=1', { method: 'DELETE' })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.json()).toEqual({ error: 'Not Found', message: closest('DELETE', '?x=1'), method: 'DELETE', url: `${server.url}/v1/user?x=1` })
  })

  it('404 JSON when the client asks for JSON', async () => {
    const res = await fetch(server.url + '/v1/user', { headers: { accept: 'application/json' } })
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.json()).toEqual({ error: 'Not Found', message: closest('GET'), method: 'GET', url: `${server.url}/v1/user` })
  })

  it('an HTML page when the client prefers text/html', async () => {
    const res = await fetch(server.url + '/v1/user', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await res.text()).toBe(
      '<!doctype html><html><head><title>404 Not Found: mockyard</title></head><body><h1>404 Not Found</h1>' +
        `<pre>${escaped(closest('GET'))}</pre></body></html>\n`,
    )
  })

  it.each(['application/xml', 'text/xml'])('XML when the client prefers XML (%s)', async (accept) => {
    const res = await fetch(server.url + '/v1/user', { headers: { accept } })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^(application|text)\/xml/)
    expect(await res.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        `<error><status>404</status><error>Not Found</error><message>${escaped(closest('GET'))}</message></error>\n`,
    )
  })

  it('preference follows q-values, not only the order', async () => {
    const res = await fetch(server.url + '/v1/user', { headers: { accept: 'text/html;q=0.5, application/json' } })
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  })

  it('a method the route does not answer: 404, explained ("v1/x answers GET and POST, not PATCH")', async () => {
    const res = await fetch(server.url + '/v1/x', { method: 'PATCH' })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({
      error: 'Not Found',
      message: '[mockyard] no route answers PATCH /v1/x: v1/x answers GET and POST, not PATCH.\nAdd a "patch" key (or a route-level "file") to "v1/x" in your routes file.',
      method: 'PATCH',
      url: `${server.url}/v1/x`,
    })
  })

  it("every entry out: the reason of each, and where its sequence stands in the request's session", async () => {
    const session = { 'x-mockyard-session': 'tab-2' }
    expect((await fetch(server.url + '/v1/jobs?id=1', { headers: session })).status).toBe(202)
    const res = await fetch(server.url + '/v1/jobs?id=2', { headers: session })
    expect(res.status).toBe(404)
    expect(((await res.json()) as ErrorBody).message).toBe(
      [
        '[mockyard] no route answers GET /v1/jobs?id=2: every entry of v1/jobs (GET) is out:',
        '  - get[0]: param "id" is "2", expected "1"',
        '    sequence: item 1 of 2 next, after 1 request in session "tab-2"',
        'Add an entry without params to "v1/jobs" as the default, or send a request that fits one of the entries.',
      ].join('\n'),
    )
  })
})

describe('bodies: limit and malformed', () => {
  const routes = { 'v1/upload': { post: 'ok.json' } }
  const files = named('ok.json')
  const post = (base: string, body: BodyInit, type = 'application/json') => fetch(base + '/v1/upload', { method: 'POST', body, headers: { 'content-type': type } })
  const jsonOf = (size: number) => JSON.stringify({ pad: 'x'.repeat(size - 10) }) // exactly `size` bytes

  it('limit as a string ("1kb"): 413 JSON past it, 200 within it', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, limit: '1kb', logProvider: captureLogs().logProvider })
    try {
      expect(jsonOf(1024)).toHaveLength(1024)
      expect((await post(server.url, jsonOf(1024))).status).toBe(200)
      const res = await post(server.url, jsonOf(1025))
      expect(res.status).toBe(413)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(((await res.json()) as ErrorBody).error).toBe('Payload Too Large')
    } finally {
      await server.stop()
    }
  })

  it('a request refused before the routes (413 over limit, 400 bad Host, 417 Expect) gets a log line like an answered one, and no request log record', async () => {
    const logs = captureLogs()
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, limit: '1kb', logProvider: logs.logProvider })
    try {
      expect((await post(server.url, jsonOf(2048))).status).toBe(413)
      expect((await rawRequest(server.url, '/v1/upload?x=1', { headers: { host: 'bad host' } })).status).toBe(400)
      expect((await rawRequest(server.url, '/v1/upload', { headers: { expect: '200-ok' } })).status).toBe(417)
      expect((await post(server.url, jsonOf(10))).status).toBe(200)
      expect(logs.info.map((line) => line.replace(/ [\d.]+ms$/, ' Nms'))).toEqual([
        'POST /v1/upload 413 refused: body over the 1024-byte limit Nms',
        'GET /v1/upload?x=1 400 refused: the Host header "bad host" is not a host name or address with an optional port Nms',
        'GET /v1/upload 417 refused: the Expect header cannot be met Nms',
        'POST /v1/upload 200 ok.json Nms',
      ])
      expect(server.requests().map((record) => record.status)).toEqual([200])
    } finally {
      await server.stop()
    }
  })

  it('limit as a number of bytes', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, limit: 100, logProvider: captureLogs().logProvider })
    try {
      expect((await post(server.url, jsonOf(100))).status).toBe(200)
      expect((await post(server.url, jsonOf(101))).status).toBe(413)
    } finally {
      await server.stop()
    }
  })

  it('a chunked body (no content-length) past the limit: 413', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, limit: 100, logProvider: captureLogs().logProvider })
    try {
      const chunk = new TextEncoder().encode('x'.repeat(60))
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk)
          controller.enqueue(chunk)
          controller.close()
        },
      })
      const res = await fetch(server.url + '/v1/upload', { method: 'POST', body: stream, headers: { 'content-type': 'text/plain' }, duplex: 'half' } as RequestInit)
      expect(res.status).toBe(413)
    } finally {
      await server.stop()
    }
  })

  it('the middleware honours limit too', async () => {
    const middleware = await createMiddleware({ routes: writeMocks(routes, files).routes, limit: '100b', latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const app = express()
    app.use(middleware)
    const server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      expect((await post(base, jsonOf(100))).status).toBe(200)
      const res = await post(base, jsonOf(101))
      expect(res.status).toBe(413)
      expect(((await res.json()) as ErrorBody).error).toBe('Payload Too Large')
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await middleware.close()
    }
  })

  it('a malformed multipart body: 400 JSON naming the problem', async () => {
    const server = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })
    try {
      for (const [body, type] of [
        ['--XYZ\r\nthis is not a part\r\n', 'multipart/form-data; boundary=XYZ'],
        ['kind=wire', 'multipart/form-data'],
      ]) {
        const res = await post(server.url, body!, type)
        expect(res.status).toBe(400)
        expect(res.headers.get('content-type')).toMatch(/^application\/json/)
        const error = (await res.json()) as ErrorBody
        expect(error.error).toBe('Bad Request')
        expect(error.message).toMatch(/multipart/i)
      }
    } finally {
      await server.stop()
    }
  })
})

describe('a configured file that does not exist', () => {
  let server: RunningServer
  let logs: CapturedLogs
  let routesPath: string
  beforeAll(async () => {
    const mocks = writeMocks({ 'v1/gone': { file: 'gone.json' }, 'v1/also': { get: [{ params: { q: '1' }, file: 'also-gone.json' }] }, 'v1/ok': { file: 'ok.json' } }, named('ok.json'))
    routesPath = mocks.routes
    logs = captureLogs()
    server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider })
  })
  afterAll(() => server.stop())

  it('a warning at load names every missing file', () => {
    const warnings = logs.warn.join('\n')
    expect(warnings).toContain('gone.json')
    expect(warnings).toContain('also-gone.json')
    expect(warnings).toContain(routesPath)
    expect(warnings).not.toContain('ok.json')
  })

  it('at request time: 404 JSON naming the file and the route, plus an error in the log', async () => {
    const errorsBefore = logs.error.length
    const res = await fetch(server.url + '/v1/gone')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await res.json()) as ErrorBody
    expect(body.error).toBe('Not Found')
    expect(body.message).toContain('gone.json')
    expect(body.message).toContain('v1/gone')
    const logged = logs.error.slice(errorsBefore).join('\n')
    expect(logged).toContain('gone.json')
  })
})

describe('an exception inside the server', () => {
  it('500 JSON, and the server keeps serving', async () => {
    const logs = captureLogs()
    const mocks = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
    const server = await startMockServer({
      routes: mocks.routes,
      logProvider: logs.logProvider,
      handlers: [
        http.get('*/v1/boom', () => {
          throw new Error('kaput.')
        }),
      ],
    })
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(server.url + '/v1/boom')
        expect(res.status).toBe(500)
        expect(res.headers.get('content-type')).toMatch(/^application\/json/)
        const body = (await res.json()) as ErrorBody
        expect(body.error).toBe('Internal Server Error')
        expect(body.message).toBe('[mockyard] GET /v1/boom failed inside mockyard: kaput. The server keeps serving; see its log for the stack')
        const users = await fetch(server.url + '/v1/users')
        expect(users.status).toBe(200)
        expect(await users.json()).toEqual({ file: 'users.json' })
      }
      expect(logs.error.some((e) => e.includes('kaput'))).toBe(true)
    } finally {
      await server.stop()
    }
  })
})

describe('stop()', () => {
  it('resolves promptly while a keep-alive connection is open', async () => {
    const mocks = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    const agent = new Agent({ keepAlive: true })
    try {
      const res = await rawRequest(server.url, '/v1/users', { agent })
      expect(res.status).toBe(200)
      expect(res.headers['connection']).toBe('keep-alive')
      // The connection stays open in the agent's pool (the server's keep-alive timeout is seconds).
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(1)
      const { ms } = await timed(() => server.stop())
      expect(ms).toBeLessThan(1000)
      await expect(fetch(server.url + '/v1/users')).rejects.toThrow()
    } finally {
      agent.destroy()
    }
  })
})
