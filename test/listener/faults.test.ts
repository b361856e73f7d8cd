/**
 * docs/behaviour.md, "Faults", over the real HTTP listener and the middleware: a TCP reset, a
 * connection closed without a byte, a hang ended by reset and by stop, a body cut short of its
 * `Content-Length`, seen by fetch, `http.get` and a raw socket; the request log and overrides.
 */
import http from 'node:http'
import net from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMiddleware, startMockServer, type RunningServer } from 'mockyard/node'
import { SESSION_HEADER } from '../../src/harness/session.js'
import { captureLogs, httpGet, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const REPORT = JSON.stringify({ rows: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `row ${i}` })) })

const ROUTES = {
  'v1/flaky': { fault: 'reset' },
  'v1/closed': { fault: 'close' },
  'v1/stuck': { fault: 'hang' },
  'v1/slow-then-cut': { file: 'report.json', latency: 150, fault: 'truncate' },
  'v1/cut': { file: 'report.json', fault: 'truncate' },
  'v1/cut-stream': { file: 'answer.ndjson', stream: { by: 'line', delay: 5 }, fault: 'truncate' },
  'v1/retry': { get: [{ response: [{ fault: 'reset' }, { status: 503 }, { file: 'ok.json' }] }] },
  'v1/users': { file: 'ok.json' },
}
const FILES = { 'report.json': REPORT, 'ok.json': '{"ok":true}', 'answer.ndjson': '{"t":1}\n{"t":2}\n{"t":3}\n{"t":4}\n' }

/** What a raw socket receives for one request: the bytes, and how the connection ended. */
function rawExchange(url: string, path: string): Promise<{ bytes: Buffer; ended: 'end' | 'reset' }> {
  const { port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`))
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('end', () => resolve({ bytes: Buffer.concat(chunks), ended: 'end' }))
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve({ bytes: Buffer.concat(chunks), ended: 'reset' }) : reject(error)))
  })
}

/** How many handles (sockets, timers, servers) the process holds. */
function openHandles(): number {
  return process.getActiveResourcesInfo().filter((name) => name !== 'TTYWrap').length
}

describe('faults over the HTTP listener', () => {
  let server: RunningServer
  const logs = captureLogs()
  beforeAll(async () => {
    server = await startMockServer({ routes: writeMocks(ROUTES, FILES).routes, logProvider: logs.logProvider })
  })
  afterAll(() => server.stop())
  afterEach(() => server.reset())

  it('reset: fetch rejects with a TypeError whose cause has the code ECONNRESET', async () => {
    const error = await fetch(`${server.url}/v1/flaky`).then(
      () => undefined,
      (error: TypeError & { cause?: { code?: string } }) => error,
    )
    expect(error).toBeInstanceOf(TypeError)
    expect(error!.cause?.code).toBe('ECONNRESET')
  })

  it('reset: http.get emits an error with the code ECONNRESET; a raw socket is reset without a byte', async () => {
    const { error } = await httpGet(`${server.url}/v1/flaky`)
    expect(error?.code).toBe('ECONNRESET')
    expect(error?.message).toBe('read ECONNRESET')
    expect(await rawExchange(server.url, '/v1/flaky')).toEqual({ bytes: Buffer.alloc(0), ended: 'reset' })
  })

  it('close: the connection ends without a byte (fetch: a TypeError; http: socket hang up)', async () => {
    const error = await fetch(`${server.url}/v1/closed`).then(
      () => undefined,
      (error: TypeError) => error,
    )
    expect(error).toBeInstanceOf(TypeError)
    const { error: httpError } = await httpGet(`${server.url}/v1/closed`)
    expect(httpError?.message).toBe('socket hang up')
    expect(httpError?.code).toBe('ECONNRESET')
    expect(await rawExchange(server.url, '/v1/closed')).toEqual({ bytes: Buffer.alloc(0), ended: 'end' })
  })

  it('truncate: status and the full Content-Length arrive, then half the body, then the connection ends', async () => {
    const { bytes, ended } = await rawExchange(server.url, '/v1/cut')
    expect(ended).toBe('end')
    const text = bytes.toString()
    const [head, body] = text.split('\r\n\r\n') as [string, string]
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(head.toLowerCase()).toContain(`content-length: ${Buffer.byteLength(REPORT)}`)
    expect(body).toBe(REPORT.slice(0, Math.floor(REPORT.length / 2)))

    const res = await fetch(`${server.url}/v1/cut`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(REPORT)))
    await expect(res.text()).rejects.toThrow(TypeError)

    const got = await httpGet(`${server.url}/v1/cut`)
    expect(got.status).toBe(200)
    expect(got.error?.code).toBe('ECONNRESET')
  })

  it('truncate on a stream: the first half of its lines arrive on their schedule, then the connection ends without the last chunk', async () => {
    const { bytes, ended } = await rawExchange(server.url, '/v1/cut-stream')
    const text = bytes.toString()
    expect(ended).toBe('end')
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(text.toLowerCase()).toContain('transfer-encoding: chunked')
    const body = text.slice(text.indexOf('\r\n\r\n') + 4)
    // Two chunks, each a line, and no terminating `0` chunk.
    expect(body).toBe('8\r\n{"t":1}\n\r\n8\r\n{"t":2}\n\r\n')
  })

  it('latency applies first: the cut comes after the latency', async () => {
    const started = performance.now()
    const res = await fetch(`${server.url}/v1/slow-then-cut`)
    // A latency feature: a generous margin below the configured 150 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(100)
    expect(res.status).toBe(200)
    await expect(res.json()).rejects.toThrow()
  })

  it('a sequence fails, then is busy, then answers; the fourth request starts over', async () => {
    const attempt = () =>
      fetch(`${server.url}/v1/retry`).then(
        async (res) => `${res.status} ${await res.text()}`,
        (error: TypeError & { cause?: { code?: string } }) => `${error.name} ${error.cause?.code}`,
      )
    expect([await attempt(), await attempt(), await attempt(), await attempt()]).toEqual(['TypeError ECONNRESET', '503 ', '200 {"ok":true}', 'TypeError ECONNRESET'])
  })

  it('the request log records the fault with no status, and the log line names it', async () => {
    await fetch(`${server.url}/v1/flaky`).catch(() => {})
    await fetch(`${server.url}/v1/cut`).then((res) => res.text()).catch(() => {})
    const records = server.requests()
    expect(records.map((record) => [record.route, record.status, record.fault])).toEqual([
      ['v1/flaky', 0, 'reset'],
      ['v1/cut', 200, 'truncate'],
    ])
    // What was sent: nothing for the reset; the head and the first half for the cut.
    expect([records[0]!.responseHeaders, records[0]!.responseBody]).toEqual([undefined, undefined])
    expect(records[1]!.responseBody).toBe(REPORT.slice(0, Math.floor(REPORT.length / 2)))
    // Over HTTP too (what the Playwright admin client reads).
    const { requests } = (await (await fetch(`${server.url}/__mockyard/requests`)).json()) as { requests: Array<Record<string, unknown>> }
    expect(requests.map((record) => [record.route, record.status, record.fault])).toEqual([
      ['v1/flaky', 0, 'reset'],
      ['v1/cut', 200, 'truncate'],
    ])
    const info = logs.info
    expect(info.some((line) => /^GET \/v1\/flaky reset v1\/flaky [\d.]+ms$/.test(line))).toBe(true)
    expect(info.some((line) => /^GET \/v1\/cut 200 truncate report\.json [\d.]+ms$/.test(line))).toBe(true)
  })

  it('the dashboard shows the fault of a request and of each answer', async () => {
    await fetch(`${server.url}/v1/flaky`).catch(() => {})
    const record = (await (await fetch(`${server.url}/__mockyard/dashboard/requests/${server.requests()[0]!.id}`)).json()) as Record<string, unknown>
    expect(record).toMatchObject({ route: 'v1/flaky', status: 0, fault: 'reset' })
    const { routes } = (await (await fetch(`${server.url}/__mockyard/dashboard/routes`)).json()) as { routes: Array<{ key: string; entries: Array<Record<string, unknown>> }> }
    expect(routes.find((route) => route.key === 'v1/flaky')!.entries[0]).toMatchObject({ fault: 'reset' })
    const retry = routes.find((route) => route.key === 'v1/retry')!.entries[0]!.sequence as Array<Record<string, unknown>>
    expect(retry.map((step) => step.fault ?? step.status)).toEqual(['reset', 503, 200])
  })

  it('hang: recorded at once (waitForRequest resolves), ended by a reset of its session, no handle left', async () => {
    const before = openHandles()
    const settled = fetch(`${server.url}/v1/stuck`, { headers: { [SESSION_HEADER]: 'alice' } }).then(
      () => 'answered',
      (error: TypeError) => error.name,
    )
    const record = await server.waitForRequest((r) => r.route === 'v1/stuck')
    expect(record).toMatchObject({ fault: 'hang', status: 0, session: 'alice' })
    // Another session's reset leaves it hanging.
    await fetch(`${server.url}/__mockyard/reset`, { method: 'POST', headers: { [SESSION_HEADER]: 'bob' } })
    const early = await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('pending'), 50))])
    expect(early).toBe('pending')
    await fetch(`${server.url}/__mockyard/reset`, { method: 'POST', headers: { [SESSION_HEADER]: 'alice', connection: 'close' } })
    expect(await settled).toBe('TypeError')
    // Keep-alive sockets of fetch's pool may linger: compare once they are gone.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(openHandles()).toBeLessThanOrEqual(before + 1)
  })

  it('hang: the request stays open until the client gives up', async () => {
    const error = await fetch(`${server.url}/v1/stuck`, { signal: AbortSignal.timeout(100) }).then(
      () => undefined,
      (error: Error) => error,
    )
    expect(error?.name).toBe('TimeoutError')
  })

  it('a CORS preflight to a faulted route is answered; the fault plays on the request itself', async () => {
    const res = await fetch(`${server.url}/v1/flaky`, { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'GET' } })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test')
  })

  it('overrides: a route-level fault replaces every method of the route', async () => {
    server.useRoutes({ 'v1/users': { fault: 'reset' } })
    for (const method of ['GET', 'POST', 'DELETE']) {
      await expect(fetch(`${server.url}/v1/users`, { method })).rejects.toThrow(TypeError)
    }
    server.reset()
    expect((await fetch(`${server.url}/v1/users`)).status).toBe(200)
  })
})

describe('stop() and hung requests', () => {
  it('stop() ends hung requests at once, even with a long grace for work in flight', async () => {
    const server = await startMockServer({ routes: writeMocks(ROUTES, FILES).routes })
    const settled = [1, 2, 3].map(() =>
      fetch(`${server.url}/v1/stuck`).then(
        () => 'answered',
        (error: TypeError) => error.name,
      ),
    )
    await server.waitForRequest(() => server.requests().length === 3)
    // Were hung requests work in flight, this would wait a minute (past the test's timeout).
    await server.stop({ graceMs: 60_000 })
    expect(await Promise.all(settled)).toEqual(['TypeError', 'TypeError', 'TypeError'])
  })

  it('a hang whose latency ends after stop() began ends at once too', async () => {
    const server = await startMockServer({ routes: writeMocks({ 'v1/slow-stuck': { fault: 'hang', latency: 200 } }).routes })
    const settled = fetch(`${server.url}/v1/slow-stuck`).then(
      () => 'answered',
      (error: TypeError) => error.name,
    )
    // The request has arrived and waits out its latency when the stop begins.
    await new Promise((resolve) => setTimeout(resolve, 50))
    await server.stop({ graceMs: 60_000 })
    expect(await settled).toBe('TypeError')
  })
})

describe('sessions and hung requests', () => {
  it('a session dropped by the sessions bound ends its hung requests, as its reset would', async () => {
    const server = await startMockServer({ routes: writeMocks(ROUTES, FILES).routes, sessions: { limit: 1 } })
    try {
      const hung = fetch(`${server.url}/v1/stuck`, { headers: { [SESSION_HEADER]: 'alice' } }).then(
        () => 'answered',
        (error: TypeError) => error.name,
      )
      await server.waitForRequest((r) => r.fault === 'hang')
      // A second session, past the bound of one: alice is dropped.
      expect((await fetch(`${server.url}/v1/users`, { headers: { [SESSION_HEADER]: 'bob' } })).status).toBe(200)
      expect(await hung).toBe('TypeError')
    } finally {
      await server.stop()
    }
  })
})

describe('faults through the middleware', () => {
  it('reset, hang and truncate on a node server using the middleware; close() ends the hang', async () => {
    const middleware = await createMiddleware({ routes: writeMocks(ROUTES, FILES).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const app = http.createServer((req, res) => middleware(req, res, () => res.writeHead(404).end()))
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(app.address() as net.AddressInfo).port}`
    try {
      const error = await fetch(`${url}/v1/flaky`).then(
        () => undefined,
        (error: TypeError & { cause?: { code?: string } }) => error,
      )
      expect(error?.cause?.code).toBe('ECONNRESET')
      const res = await fetch(`${url}/v1/cut`)
      await expect(res.text()).rejects.toThrow(TypeError)
      const hung = fetch(`${url}/v1/stuck`).then(
        () => 'answered',
        (error: TypeError) => error.name,
      )
      await middleware.waitForRequest((r) => r.fault === 'hang')
      await middleware.close()
      expect(await hung).toBe('TypeError')
    } finally {
      app.closeAllConnections()
      await new Promise((resolve) => app.close(resolve))
    }
  })
})

describe('validation of fault', () => {
  it('an unknown fault name fails the load with the JSON path, the closest name and the allowed ones', async () => {
    const mocks = writeMocks({ 'v1/flaky': { get: [{ response: [{ fault: 'rest' }] }] } })
    const error = await startMockServer({ routes: mocks.routes }).then(
      (server) => server.stop(),
      (error: Error) => error,
    )
    expect(error).toBeInstanceOf(Error)
    const message = (error as Error).message
    expect(message).toContain(mocks.routes)
    expect(message).toContain('/v1~1flaky/get/0/response/0/fault')
    expect(message).toContain('unknown fault "rest"')
    expect(message).toContain('Did you mean "reset"?')
    expect(message).toContain('"reset", "close", "hang", "truncate"')
  })
})
