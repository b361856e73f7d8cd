/** docs/behaviour.md, "Requests on the wire" and the 413 of "Errors and limits": exact bytes over raw sockets. */
import { connect } from 'node:net'
import { connect as http2Connect, constants as http2Constants, createServer as createHttp2Server } from 'node:http2'
import { networkInterfaces } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AddressInfo } from 'node:net'
import express from 'express'
import connectApp from 'connect'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createMiddleware, MockServer, startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, named, rawRequest, removeTempDirs, writeMocks } from '../support/routes.js'
import { createInstance } from '../../src/config/instance.js'
import { listen } from '../../src/listener/server.js'

afterAll(removeTempDirs)

interface WireResponse {
  status: number
  head: string
  body: string
  /** The socket error the client met, if any (EPIPE, ECONNRESET). */
  error?: string
}

function parse(text: string): Omit<WireResponse, 'error'> {
  const end = text.indexOf('\r\n\r\n')
  const head = end === -1 ? text : text.slice(0, end)
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0)
  return { status, head: head.toLowerCase(), body: end === -1 ? '' : text.slice(end + 4) }
}

/** Writes exact bytes and reads until the server closes the connection. */
function exchange(port: number, bytes: string | Buffer): Promise<WireResponse> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    let error: string | undefined
    socket.on('data', (chunk) => (text += chunk.toString('latin1')))
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
    socket.on('close', () => resolve({ ...parse(text), error }))
    socket.write(bytes)
    // Connection: close in every request below: the server ends the exchange.
  })
}

/**
 * Sends headers announcing a body, then writes `total` bytes of it in chunks as fast as the
 * socket takes them, reading the answer all along; resolves once the server has closed.
 */
function upload(port: number, head: string, total: number, chunked = false): Promise<WireResponse & { written: number }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    let error: string | undefined
    let written = 0
    let closed = false
    socket.on('data', (chunk) => (text += chunk.toString('latin1')))
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message))
    socket.on('close', () => {
      closed = true
      resolve({ ...parse(text), error, written })
    })
    const piece = Buffer.alloc(64 * 1024, 'a')
    const pump = () => {
      while (!closed && written < total) {
        const size = Math.min(piece.length, total - written)
        const data = chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece.subarray(0, size), Buffer.from('\r\n')]) : piece.subarray(0, size)
        written += size
        if (!socket.write(data)) return void socket.once('drain', pump)
      }
      if (!closed && chunked) socket.write('0\r\n\r\n')
    }
    socket.write(head, pump)
  })
}

let server: RunningServer
let port: number
beforeAll(async () => {
  const mocks = writeMocks(
    { 'v1/simple': { file: 'simple.json' }, 'v1/links': { file: 'links.json' }, 'v1/upload': { post: 'simple.json' } },
    { ...named('simple.json'), 'links.json': '{"self":"${context}/v1/links"}' },
  )
  server = await startMockServer({ routes: mocks.routes, limit: '1kb', logProvider: captureLogs().logProvider })
  port = server.port
})
afterAll(() => server.stop())

const get = (target: string, headers: string) => `GET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`

describe('the path of the request target alone picks the route', () => {
  it('a Host carrying a path and a fragment is refused (400 JSON), never routed by it', async () => {
    const res = await exchange(port, get('/nope', 'Host: 127.0.0.1/v1/simple#\r\n'))
    expect(res.status).toBe(400)
    expect(res.head).toContain('content-type: application/json')
    const body = JSON.parse(res.body) as { error: string; message: string }
    expect(body.error).toBe('Bad Request')
    expect(body.message).toMatch(/^\[mockyard\] GET request refused: the Host header .* is not a host name/)
    expect(res.body).not.toContain('simple.json')
  })

  it('any valid Host serves the path; the Host only forms ${context}', async () => {
    const res = await exchange(port, get('/v1/links', 'Host: api.example.test:8080\r\n'))
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body)).toEqual({ self: 'http://api.example.test:8080/v1/links' })
    expect((await exchange(port, get('/v1/simple', 'Host: [::1]:9\r\n'))).status).toBe(200)
  })

  it.each([
    ['no Host (HTTP/1.1)', 'GET /v1/simple HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['no Host (HTTP/1.0)', 'GET /v1/simple HTTP/1.0\r\n\r\n'],
    ['two Host headers', get('/v1/simple', 'Host: localhost\r\nHost: evil.test\r\n')],
    ['a Host with a space', get('/v1/simple', 'Host: local host\r\n')],
    ['a Host with user info', get('/v1/simple', 'Host: user@localhost\r\n')],
    ['a Host with a bad port', get('/v1/simple', 'Host: localhost:99999\r\n')],
    ['an empty Host', get('/v1/simple', 'Host: \r\n')],
    ['a target that is neither a path nor a URL', get('v1/simple', 'Host: localhost\r\n')],
  ])('%s: 400 JSON, not a 500', async (_what, bytes) => {
    const res = await exchange(port, bytes)
    expect(res.status).toBe(400)
    expect((JSON.parse(res.body) as { error: string }).error).toBe('Bad Request')
  })

  it('an absolute-form target (what a client sends to a proxy) is served by its path', async () => {
    const res = await exchange(port, get(`http://127.0.0.1:${port}/v1/simple?x=1`, 'Host: 127.0.0.1\r\n'))
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body)).toEqual({ file: 'simple.json' })
    // Its origin is the one the client addressed.
    const links = await exchange(port, get('http://mock.example:81/v1/links', 'Host: mock.example:81\r\n'))
    expect(JSON.parse(links.body)).toEqual({ self: 'http://mock.example:81/v1/links' })
    // An unknown path in absolute form is a plain 404.
    expect((await exchange(port, get(`http://127.0.0.1:${port}/v1/nope`, 'Host: 127.0.0.1\r\n'))).status).toBe(404)
  })

  it('bytes that are not HTTP: a 400 JSON, and the server keeps serving', async () => {
    const res = await exchange(port, Buffer.from([0x00, 0x01, 0x47, 0x45, 0x54, 0x0d, 0x0a, 0xff, 0xfe, 0x0d, 0x0a, 0x0d, 0x0a]))
    expect(res.status).toBe(400)
    expect((JSON.parse(res.body) as { error: string }).error).toBe('Bad Request')
    const garbage = await exchange(port, 'GET /v1/simple HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\n\r\n')
    expect(garbage.status).toBe(400)
    expect((await fetch(`${server.url}/v1/simple`)).status).toBe(200)
  })

  it('a request read before bad bytes on the same connection (pipelined, its latency running) gets its own answer, then the connection closes', async () => {
    const slow = await startMockServer({ routes: writeMocks({ 'v1/slow': { file: 'simple.json', latency: 300 } }, named('simple.json')).routes, logProvider: captureLogs().logProvider })
    try {
      const socket = connect(slow.port, '127.0.0.1')
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('error', () => {})
      await new Promise<void>((resolve) => socket.on('close', () => resolve()) && socket.write('GET /v1/slow HTTP/1.1\r\nHost: localhost\r\n\r\nBOGUS\r\n\r\n'))
      // Never the 400 in its place (which the client would read as the answer to its request).
      expect(text.match(/^HTTP\/1\.1 \d{3} .*$/gm)?.[0]).toBe('HTTP/1.1 200 OK')
      expect(text).toContain('{"file":"simple.json"}')
      expect(slow.requests({ path: '/v1/slow' })).toMatchObject([{ status: 200 }])
    } finally {
      await slow.stop()
    }
  })
})

describe('asterisk and authority targets', () => {
  it('OPTIONS * (what the server as a whole answers): 204 with Allow and the preflight headers', async () => {
    const res = await exchange(port, 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
    expect(res.status).toBe(204)
    expect(res.head).toContain('\r\nallow: get, head, put, patch, post, delete, options')
    expect(res.head).toContain('access-control-allow-methods: get,head,put,patch,post,delete')
    expect(res.body).toBe('')
  })

  it('OPTIONS * with a port in the Host: the same 204, not a 500', async () => {
    const res = await exchange(port, `OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)
    expect(res.status).toBe(204)
    expect(res.head).toContain('\r\nallow: get, head, put, patch, post, delete, options')
  })

  it('* with any other method, or OPTIONS * without a Host: 400 JSON', async () => {
    for (const bytes of ['GET * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 'OPTIONS * HTTP/1.1\r\nConnection: close\r\n\r\n']) {
      const res = await exchange(port, bytes)
      expect(res.status).toBe(400)
      expect((JSON.parse(res.body) as { error: string }).error).toBe('Bad Request')
    }
  })

  it('CONNECT host:port (a tunnel request): 400 JSON naming it, not a dropped connection; the server keeps serving', async () => {
    const res = await exchange(port, 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n')
    expect(res.status).toBe(400)
    expect(res.head).toContain('content-type: application/json')
    const body = JSON.parse(res.body) as { error: string; message: string }
    expect(body.error).toBe('Bad Request')
    expect(body.message).toMatch(/^\[mockyard\] CONNECT "example\.test:443" refused: mockyard is not a proxy/)
    expect((await fetch(`${server.url}/v1/simple`)).status).toBe(200)
  })
})

describe('Bodies over `limit`: the client reads the 413', () => {
  const post = (headers: string) => `POST /v1/upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\n${headers}\r\n`

  it('a declared length over the limit, with the client still writing: 413 JSON, no broken pipe', async () => {
    const total = 4 * 1024 * 1024
    const res = await upload(port, post(`Content-Length: ${total}\r\n`), total)
    expect(res.error).toBeUndefined()
    expect(res.status).toBe(413)
    expect(res.head).toContain('connection: close')
    const body = JSON.parse(res.body) as { error: string; message: string; limit: number }
    expect(body).toMatchObject({ error: 'Payload Too Large', limit: 1024 })
    expect(body.message).toContain('POST /v1/upload')
  })

  it('a chunked body that grows past the limit: the same', async () => {
    const res = await upload(port, post('Transfer-Encoding: chunked\r\n'), 4 * 1024 * 1024, true)
    expect(res.error).toBeUndefined()
    expect(res.status).toBe(413)
    expect((JSON.parse(res.body) as { error: string }).error).toBe('Payload Too Large')
  })

  it('Expect: 100-continue with a declared length over the limit: the 413 comes instead of the 100', async () => {
    const res = await exchange(port, post('Content-Length: 5000000\r\nExpect: 100-continue\r\n'))
    expect(res.status).toBe(413)
    expect(res.head).not.toContain('100 continue')
  })

  it('a preflight (OPTIONS) carrying a body over the limit: the same 413, not a 204', async () => {
    const res = await upload(port, `OPTIONS /v1/simple HTTP/1.1\r\nHost: localhost\r\nOrigin: http://app.test\r\nContent-Length: ${64 * 1024}\r\n\r\n`, 64 * 1024)
    expect(res.status).toBe(413)
    expect((JSON.parse(res.body) as { error: string }).error).toBe('Payload Too Large')
    expect(res.head).toContain('access-control-allow-origin: http://app.test')
  })

  it('chunk extensions over node\'s bound: 413 JSON saying so, not "not valid HTTP"', async () => {
    const res = await exchange(port, `POST /v1/upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`)
    expect(res.status).toBe(413)
    const body = JSON.parse(res.body) as { error: string; message: string }
    expect(body.error).toBe('Payload Too Large')
    expect(body.message).toBe('[mockyard] the extensions of a chunk of the body are too large (HPE_CHUNK_EXTENSIONS_OVERFLOW). Send the body without chunk extensions')
  })

  it('an Expect other than 100-continue: 417 JSON with the CORS headers, not node\'s bare 417', async () => {
    const res = await exchange(port, 'POST /v1/upload HTTP/1.1\r\nHost: localhost\r\nOrigin: http://app.test\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}')
    expect(res.status).toBe(417)
    expect(res.head).toContain('content-type: application/json')
    expect(res.head).toContain('access-control-allow-origin: http://app.test')
    expect(JSON.parse(res.body)).toEqual({
      error: 'Expectation Failed',
      message: '[mockyard] POST /v1/upload refused: the Expect header "200-ok" is not one mockyard can meet (only 100-continue is). Send the request without it',
    })
  })

  it('a body within the limit is served, and the server still serves after refusing', async () => {
    const res = await rawRequest(server.url, '/v1/upload', { method: 'POST', body: 'x'.repeat(1000) })
    expect(res.status).toBe(200)
  })
})

describe('methods a Fetch Request cannot carry', () => {
  it('TRACE with msw handlers installed: the routes answer it (a 404 naming the methods), not a 500', async () => {
    const { http, HttpResponse } = await import('msw')
    const withHandlers = await startMockServer({
      routes: writeMocks({ 'v1/simple': { file: 'simple.json' } }, named('simple.json')).routes,
      handlers: [http.get('*/v1/other', () => HttpResponse.json({ other: true }))],
      logProvider: captureLogs().logProvider,
    })
    try {
      const res = await exchange(withHandlers.port, 'TRACE /v1/simple HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
      expect(res.status).toBe(404)
      expect((JSON.parse(res.body) as { message: string }).message).toContain('v1/simple answers GET, POST, PUT, PATCH and DELETE, not TRACE.')
      expect(await (await fetch(`${withHandlers.url}/v1/other`)).json()).toEqual({ other: true })
    } finally {
      await withHandlers.stop()
    }
  })
})

describe('upgrades and HEAD /', () => {
  it('the HTTP/2 preface (prior knowledge): a 400 saying the listener speaks HTTP/1.1, and the server keeps serving', async () => {
    const res = await exchange(port, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')
    expect(res.status).toBe(400)
    expect((JSON.parse(res.body) as { message: string }).message).toBe('[mockyard] HTTP/2 with prior knowledge (the HTTP/2 preface) is not served: the listener speaks HTTP/1.1. Send HTTP/1.1 (curl: drop --http2-prior-knowledge)')
    expect((await fetch(`${server.url}/v1/simple`)).status).toBe(200)
  })

  it('Upgrade: h2c (curl --http2, Java\'s HttpClient) is answered over HTTP/1.1, as the request it also is', async () => {
    const res = await exchange(port, 'GET /v1/simple HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n')
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body)).toEqual({ file: 'simple.json' })
    // What is not a WebSocket upgrade is recorded like any request.
    expect(server.requests({ path: '/v1/simple' }).at(-1)).toMatchObject({ status: 200, file: 'simple.json' })
  })

  it('HEAD / answers as GET / does (the package info), without a body', async () => {
    const head = await exchange(port, 'HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
    const got = await exchange(port, get('/', 'Host: localhost\r\n'))
    expect({ status: head.status, body: head.body }).toEqual({ status: 200, body: '' })
    expect(head.head).toContain('content-type: application/json; charset=utf-8')
    expect(JSON.parse(got.body)).toMatchObject({ name: 'mockyard' })
  })
})

describe('the middleware follows the same rules', () => {
  it('a bad Host is a 400 JSON; an absolute-form target is served by its path', async () => {
    const middleware = await createMiddleware({ routes: writeMocks({ 'v1/simple': { file: 'simple.json' } }, named('simple.json')).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const app = express()
    app.use('/mock', middleware)
    const listener = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => listener.once('listening', resolve))
    const appPort = (listener.address() as AddressInfo).port
    try {
      const bad = await exchange(appPort, get('/mock/nope', 'Host: 127.0.0.1/mock/v1/simple#\r\n'))
      expect(bad.status).toBe(400)
      expect((JSON.parse(bad.body) as { error: string }).error).toBe('Bad Request')
      const good = await exchange(appPort, get('/mock/v1/simple', 'Host: localhost\r\n'))
      expect(JSON.parse(good.body)).toEqual({ file: 'simple.json' })
    } finally {
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
      await middleware.close()
    }
  })

  it('a request no route could answer goes on with its body unread: a body parser or a proxy after the middleware reads it', async () => {
    const middleware = await createMiddleware({ routes: writeMocks({ 'v1/simple': { post: [{ params: { kind: 'a' }, file: 'simple.json' }] } }, named('simple.json')).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const app = express()
    app.use(middleware)
    app.post('/real/json', express.json(), (req, res) => void res.json({ got: req.body as unknown }))
    // A handler that reads the stream itself, as a dev server's proxy does.
    app.post('/real/raw', (req, res) => {
      let text = ''
      req.on('data', (chunk: Buffer) => (text += chunk.toString()))
      req.on('end', () => void res.send(`raw: ${text}`))
    })
    const listener = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => listener.once('listening', resolve))
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`
    try {
      const json = await fetch(`${base}/real/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal: AbortSignal.timeout(5000) })
      expect(await json.json()).toEqual({ got: { a: 1 } })
      const raw = await fetch(`${base}/real/raw`, { method: 'POST', body: 'hello', signal: AbortSignal.timeout(5000) })
      expect(await raw.text()).toBe('raw: hello')
      // Still recorded, as answered by no one; the routes still read bodies.
      expect(middleware.requests({ path: '/real/raw' })).toMatchObject([{ method: 'POST', status: 0, matched: false }])
      const mocked = await fetch(`${base}/v1/simple`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kind":"a"}' })
      expect(await mocked.json()).toEqual({ file: 'simple.json' })
    } finally {
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
      await middleware.close()
    }
  })

  it('a request the routes read and do not answer goes on with its body put back: whatever reads it after the middleware gets every byte', async () => {
    const middleware = await createMiddleware({
      routes: writeMocks({ 'v1/search': { post: [{ params: { q: 'mocked' }, file: 'simple.json' }] }, 'v1/only-get': { get: 'simple.json' } }, named('simple.json')).routes,
      latency: 0,
      watch: false,
      logProvider: captureLogs().logProvider,
    })
    // A handler after the middleware that reads the stream itself (a dev server's proxy, a bare app).
    const echo = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => res.end(`app got ${Buffer.concat(chunks).length} bytes: ${Buffer.concat(chunks).subarray(0, 20).toString()}`))
    }
    const app = express()
    app.use(middleware)
    app.use(express.json({ limit: '5mb' }))
    app.post('/v1/search', (req, res) => void res.json({ app: req.body as unknown }))
    app.put('/v1/only-get', (req, res) => void res.json({ app: req.body as unknown }))
    const hosts = {
      express: createServer(app),
      connect: createServer(connectApp().use(middleware).use(echo)),
      'node:http': createServer((req, res) => middleware(req, res, () => echo(req, res))),
    }
    const big = JSON.stringify({ q: 'real', pad: 'x'.repeat(1024 * 1024) })
    try {
      for (const [name, host] of Object.entries(hosts)) {
        await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
        const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`
        const post = (path: string, body: string, method = 'POST') => fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5000) }).then(async (res) => `${res.status} ${await res.text()}`)
        const answers = [await post('/v1/search', '{"q":"mocked"}'), await post('/v1/search', '{"q":"real"}'), await post('/v1/only-get', '{"q":"put"}', 'PUT'), await post('/v1/search', big)]
        if (name === 'express') {
          expect(answers).toEqual(['200 {"file":"simple.json"}', '200 {"app":{"q":"real"}}', '200 {"app":{"q":"put"}}', `200 ${JSON.stringify({ app: JSON.parse(big) })}`])
        } else {
          expect([name, ...answers]).toEqual([name, '200 {"file":"simple.json"}', '200 app got 12 bytes: {"q":"real"}', '200 app got 11 bytes: {"q":"put"}', `200 app got ${big.length} bytes: {"q":"real","pad":"x`])
        }
        host.closeAllConnections()
        await new Promise((resolve) => host.close(resolve))
      }
      // Recorded with the body the routes read, as answered by no one.
      expect(middleware.requests({ path: '/v1/search' }).filter((request) => request.status === 0).map((request) => request.body)[0]).toBe('{"q":"real"}')
    } finally {
      await middleware.close()
    }
  })

  it("what the handler after the middleware throws (a bare node:http app) is a 500 naming that handler, not mockyard, and the server keeps serving", async () => {
    const logs = captureLogs()
    const middleware = await createMiddleware({ routes: writeMocks({ 'v1/simple': { file: 'simple.json' } }, named('simple.json')).routes, latency: 0, watch: false, logProvider: logs.logProvider })
    const host = createServer((req, res) =>
      middleware(req, res, () => {
        throw new Error('bug in the app handler')
      }),
    )
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`
    try {
      const thrown = await fetch(`${base}/checkout`)
      expect(thrown.status).toBe(500)
      expect(((await thrown.json()) as { message: string }).message).toBe(
        "[mockyard] GET /checkout failed in the handler after mockyard's middleware (its next()), not in mockyard: bug in the app handler. The stack is in the server's log",
      )
      expect(logs.error).toHaveLength(1)
      expect(logs.error[0]).toContain("[mockyard] GET /checkout: the handler after mockyard's middleware (its next()) threw: Error: bug in the app handler\n    at ")
      expect((await fetch(`${base}/v1/simple`)).status).toBe(200)
    } finally {
      host.closeAllConnections()
      await new Promise((resolve) => host.close(resolve))
      await middleware.close()
    }
  })

  it('empty bodies, behind an async middleware or not: the route answers, or what comes after sees the end of the body', async () => {
    const middleware = await createMiddleware({ routes: writeMocks({ 'v1/logout': { put: { status: 204 } }, 'v1/things': { get: 'simple.json' } }, named('simple.json')).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    // What comes after reads the stream to its end, as a proxy or a bare app does.
    const after = (req: IncomingMessage, res: ServerResponse) => {
      let bytes = 0
      req.on('data', (chunk: Buffer) => (bytes += chunk.length))
      req.on('end', () => res.end(`after read ${bytes} bytes`))
    }
    const hosts = {
      // A session or auth lookup before mockyard: by the time it runs, an empty body has fully arrived.
      'async before': createServer((req, res) => void setTimeout(() => middleware(req, res, () => after(req, res)), 20)),
      'sync': createServer((req, res) => middleware(req, res, () => after(req, res))),
    }
    try {
      for (const [name, host] of Object.entries(hosts)) {
        await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
        const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`
        const send = (method: string, path: string) => fetch(`${base}${path}`, { method, signal: AbortSignal.timeout(5000) }).then(async (res) => `${res.status} ${await res.text()}`, (error: Error) => `failed: ${error.name}`)
        expect([name, await send('PUT', '/v1/logout'), await send('POST', '/v1/logout'), await send('PUT', '/v1/things'), await send('POST', '/elsewhere')]).toEqual([name, '204 ', '200 after read 0 bytes', '200 after read 0 bytes', '200 after read 0 bytes'])
        host.closeAllConnections()
        await new Promise((resolve) => host.close(resolve))
      }
    } finally {
      await middleware.close()
    }
  })

  it('an HTTP/2 client that cancels mid-body left: its half body is neither answered nor recorded', async () => {
    const logs = captureLogs()
    const middleware = await createMiddleware({ routes: writeMocks({ 'v1/things': { post: [{ status: 201, params: { kind: 'a' } }] } }, named('simple.json')).routes, latency: 0, watch: false, logProvider: logs.logProvider })
    const nexts: string[] = []
    const h2 = createHttp2Server((req, res) => middleware(req as never, res as never, () => void nexts.push('next')))
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve))
    const client = http2Connect(`http://127.0.0.1:${(h2.address() as AddressInfo).port}`)
    try {
      const stream = client.request({ ':method': 'POST', ':path': '/v1/things', 'content-type': 'application/json', 'content-length': '40' })
      stream.on('error', () => {})
      stream.write('{"kind":"a"')
      await new Promise((resolve) => setTimeout(resolve, 100))
      stream.close(http2Constants.NGHTTP2_CANCEL)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect({ nexts, requests: middleware.requests(), errors: logs.error }).toEqual({ nexts: [], requests: [], errors: [] })
    } finally {
      client.close()
      await new Promise((resolve) => h2.close(resolve))
      await middleware.close()
    }
  })

  it('on HTTP/2 too, a body the routes read and do not answer is put back for the handler after the middleware', async () => {
    const middleware = await createMiddleware({ routes: writeMocks({ 'v1/search': { post: [{ params: { q: 'mocked' }, file: 'simple.json' }] } }, named('simple.json')).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const h2 = createHttp2Server((req, res) =>
      middleware(req as never, res as never, () => {
        let text = ''
        req.on('data', (chunk: Buffer) => (text += chunk.toString()))
        req.on('end', () => res.writeHead(200).end(`app got ${text}`))
      }),
    )
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve))
    const client = http2Connect(`http://127.0.0.1:${(h2.address() as AddressInfo).port}`)
    const post = (body: string) =>
      new Promise<string>((resolve, reject) => {
        const stream = client.request({ ':path': '/v1/search', ':method': 'POST', 'content-type': 'application/json' })
        let text = ''
        stream.on('data', (chunk: Buffer) => (text += chunk.toString()))
        stream.on('end', () => resolve(text))
        stream.on('error', reject)
        stream.end(body)
      })
    try {
      expect([await post('{"q":"mocked"}'), await post('{"q":"real"}')]).toEqual(['{"file":"simple.json"}', 'app got {"q":"real"}'])
    } finally {
      client.close()
      await new Promise((resolve) => h2.close(resolve))
      await middleware.close()
    }
  })

  it('on an HTTP/2 server (a Vite dev server with server.https), the :authority names the host', async () => {
    const middleware = await createMiddleware({ routes: writeMocks({ 'v1/links': { file: 'links.json' } }, { 'links.json': '{"self":"${context}/v1/links"}' }).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const h2 = createHttp2Server((req, res) => middleware(req as never, res as never, () => res.writeHead(418).end()))
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(h2.address() as AddressInfo).port}`
    const client = http2Connect(origin)
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = client.request({ ':path': '/v1/links' })
        let status = 0
        let body = ''
        stream.on('response', (headers) => (status = Number(headers[':status'])))
        stream.on('data', (chunk: Buffer) => (body += chunk.toString()))
        stream.on('end', () => resolve({ status, body }))
        stream.on('error', reject)
      })
      expect({ status: answer.status, body: JSON.parse(answer.body) as unknown }).toEqual({ status: 200, body: { self: `${origin}/v1/links` } })
    } finally {
      client.close()
      await new Promise((resolve) => h2.close(resolve))
      await middleware.close()
    }
  })

  it('behind express.urlencoded(), nested and repeated fields are scored as the listener scores them', async () => {
    const routes = { 'v1/pay': { file: 'simple.json', post: [{ params: { 'method.type': 'card' }, file: 'card.json' }, { params: { tag: ['a', 'b'] }, file: 'tags.json' }] } }
    const middleware = await createMiddleware({ routes: writeMocks(routes, named('simple.json', 'card.json', 'tags.json')).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const app = express()
    app.use(express.urlencoded({ extended: true }), middleware)
    const listener = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => listener.once('listening', resolve))
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`
    const form = async (body: string) => {
      const res = await fetch(`${base}/v1/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
      return ((await res.json()) as { file: string }).file
    }
    try {
      expect(await form('method[type]=card')).toBe('card.json')
      expect(await form('tag=a&tag=b')).toBe('tags.json')
      expect(await form('other=1')).toBe('simple.json')
    } finally {
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
      await middleware.close()
    }
  })
})

describe('stop() waits for responses in flight only', () => {
  it('a connection whose request head has not fully arrived (slowloris, a preconnect) does not hold stop(): closed at once, while a request in flight is answered', async () => {
    const mocks = writeMocks({ 'v1/slow': { file: 'simple.json', latency: 400 }, 'v1/fast': { file: 'simple.json' } }, named('simple.json'))
    const own = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    const order: string[] = []
    const open = (name: string, bytes?: string) => {
      const socket = connect(own.port, '127.0.0.1')
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('error', () => {})
      const closed = new Promise<string>((resolve) => socket.on('close', () => (order.push(name), resolve(text))))
      const written = new Promise<void>((resolve) => (bytes === undefined ? socket.once('connect', () => resolve()) : socket.write(bytes, () => resolve())))
      return { closed, written }
    }
    const half = open('half', 'GET /v1/slow HTTP/1.1\r\nHost: loc')
    const bare = open('bare')
    const slow = open('slow', 'GET /v1/slow HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
    await Promise.all([half.written, bare.written, slow.written])
    // Answered after the slow request was written: the server has read it, it is in flight.
    expect((await fetch(`${own.url}/v1/fast`)).status).toBe(200)
    // A grace far longer than the test's timeout: only the slow response may be waited for.
    await own.stop({ graceMs: 600_000 })
    expect(await half.closed).toBe('')
    expect(await bare.closed).toBe('')
    const answer = parse(await slow.closed)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ file: 'simple.json' })
    expect(order.indexOf('half')).toBeLessThan(order.indexOf('slow'))
    expect(order.indexOf('bare')).toBeLessThan(order.indexOf('slow'))
  })
})

describe('a connection that sends nothing', () => {
  it('is closed after the silence allowed (60 s; shortened here), while a connection in use stays open', async () => {
    const instance = await createInstance({ routes: writeMocks({ 'v1/simple': { file: 'simple.json' } }, named('simple.json')).routes, logProvider: captureLogs().logProvider }, { latency: 0, watch: false, logLevel: 'error' })
    const own = await listen(instance, '127.0.0.1', 0, { silentMs: 300 })
    try {
      const silent = connect(own.port, '127.0.0.1')
      silent.on('error', () => {})
      const silentClosed = new Promise<void>((resolve) => silent.on('close', () => resolve()))
      // A keep-alive connection that sent a request, then idles (node's keepAliveTimeout is 5 s).
      const used = connect(own.port, '127.0.0.1')
      let answered = ''
      used.on('data', (chunk) => (answered += chunk.toString('latin1')))
      used.write('GET /v1/simple HTTP/1.1\r\nHost: localhost\r\n\r\n')
      await silentClosed
      expect(answered).toContain('HTTP/1.1 200 OK')
      expect(used.destroyed).toBe(false)
      used.destroy()
    } finally {
      await own.stop()
    }
  })
})

describe('a client that leaves while its body is still arriving', () => {
  it('is no failure: no error on the log, and the server keeps serving', async () => {
    const logs = captureLogs()
    const own = await startMockServer({ routes: writeMocks({ 'v1/upload': { post: { status: 201 } } }, named('simple.json')).routes, latency: 0, logProvider: logs.logProvider })
    try {
      const socket = connect(own.port, '127.0.0.1')
      await new Promise<void>((resolve) => socket.write('POST /v1/upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n' + 'a'.repeat(1000), () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, 100))
      socket.destroy()
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(logs.error).toEqual([])
      expect((await fetch(`${own.url}/v1/upload`, { method: 'POST', body: 'x' })).status).toBe(201)
    } finally {
      await own.stop()
    }
  })
})

describe('stop() answers the requests in flight: within its grace, or at once when the grace is over', () => {
  it('startMockServer().stop() and MockServer.stop() (its default latency of 250 ms) answer the request in flight, and stop quickly', async () => {
    const mocks = writeMocks({ 'v1/slow': { file: 'simple.json', latency: 500 } }, named('simple.json'))
    const own = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    const first = fetch(`${own.url}/v1/slow`).then(async (res) => `${res.status} ${await res.text()}`, (error: Error) => `failed: ${error.message}`)
    // In flight: the request is read, its latency running.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const stopping = performance.now()
    await own.stop()
    expect(await first).toBe('200 {"file":"simple.json"}')
    // Not the rest of the 500 ms latency, nor a long grace: test hooks time out.
    expect(performance.now() - stopping).toBeLessThan(5000)

    // MockServer's own latency (250 ms) where the route sets none.
    const old = new MockServer({ routes: writeMocks({ 'v1/slow': { file: 'simple.json' } }, named('simple.json')).routes, logProvider: captureLogs().logProvider })
    const { url } = await old.start({ port: 0 })
    const second = fetch(`${url}/v1/slow`).then(async (res) => `${res.status} ${await res.text()}`, (error: Error) => `failed: ${error.message}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await old.stop()).toBe(true)
    expect(await second).toBe('200 {"file":"simple.json"}')
  })
})

const hasIpv6Loopback = () => Object.values(networkInterfaces()).some((list) => list?.some((a) => a.family === 'IPv6' && a.address === '::1'))

describe('listening URLs', () => {
  it.runIf(hasIpv6Loopback())('host ::1: the URL is http://[::1]:PORT, and it answers', async () => {
    const v6 = await startMockServer({ routes: writeMocks({ 'v1/simple': { file: 'simple.json' } }, named('simple.json')).routes, host: '::1', logProvider: captureLogs().logProvider })
    try {
      expect(v6.url).toBe(`http://[::1]:${v6.port}`)
      expect((await fetch(`${v6.url}/v1/simple`)).status).toBe(200)
    } finally {
      await v6.stop()
    }
  })
})
