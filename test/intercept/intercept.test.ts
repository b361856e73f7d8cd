import http, { get as namedHttpGet } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import * as msw3 from 'msw'
import * as msw2 from 'msw2'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startInterception, type Interception, type InterceptionOptions } from '../../src/node/intercept.js'

const MOCK_HOST = 'example.test'

/** Answers GET/POST/... /ping and /echo on example.test; anything else is unhandled. */
async function resolveMock(request: Request): Promise<Response | undefined> {
  const url = new URL(request.url)
  if (url.hostname !== MOCK_HOST) return undefined
  if (url.pathname === '/ping') return Response.json({ ok: true, method: request.method })
  if (url.pathname === '/echo') return Response.json({ method: request.method, body: await request.text(), type: request.headers.get('content-type') })
  return undefined
}

let interception: Interception | undefined
function start(options: Partial<InterceptionOptions> = {}): Interception {
  interception = startInterception({ resolve: resolveMock, strategy: 'error', ...options })
  return interception
}
afterEach(async () => {
  await interception?.dispose()
  interception = undefined
})

/** A real server on loopback, for pass-through: answers `real <method> <url> <body>`. */
let server: http.Server
let realOrigin: string
beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => response.end(`real ${request.method} ${request.url} ${body}`))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  realOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

interface Got {
  status: number
  body: string
}

type Get = (url: string, callback: (response: http.IncomingMessage) => void) => http.ClientRequest

function getVia(get: Get, url: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      response.on('error', reject)
    }).on('error', reject)
  })
}

function requestVia(url: string, method: string, body: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
    })
    request.on('error', reject)
    request.end(body)
  })
}

describe('startInterception', () => {
  it('answers fetch to any host', async () => {
    start()
    const response = await fetch(`http://${MOCK_HOST}/ping`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true, method: 'GET' })
    const https_ = await fetch(`https://${MOCK_HOST}:8443/ping?x=1`)
    expect(await https_.json()).toEqual({ ok: true, method: 'GET' })
  })

  it('answers http.get, https.get and http.request (also through named imports of node:http)', async () => {
    start()
    expect(await getVia(http.get, `http://${MOCK_HOST}/ping`)).toEqual({ status: 200, body: '{"ok":true,"method":"GET"}' })
    expect(await getVia(https.get, `https://${MOCK_HOST}/ping`)).toEqual({ status: 200, body: '{"ok":true,"method":"GET"}' })
    expect(await getVia(namedHttpGet, `http://${MOCK_HOST}/ping`)).toEqual({ status: 200, body: '{"ok":true,"method":"GET"}' })
    expect(await requestVia(`http://${MOCK_HOST}/ping`, 'DELETE', '')).toEqual({ status: 200, body: '{"ok":true,"method":"DELETE"}' })
  })

  it('shows a POST body to resolve()', async () => {
    start()
    const response = await fetch(`http://${MOCK_HOST}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Ada"}',
    })
    expect(await response.json()).toEqual({ method: 'POST', body: '{"name":"Ada"}', type: 'application/json' })
    const viaHttp = await requestVia(`http://${MOCK_HOST}/echo`, 'PUT', 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(JSON.parse(viaHttp.body)).toEqual({ method: 'PUT', body: 'a=1&b=2', type: 'application/x-www-form-urlencoded' })
  })

  it("'error': fetch rejects and http emits 'error' with the explanation; onUnhandled is called", async () => {
    const onUnhandled = vi.fn()
    const explain = vi.fn(async (request: Request) => `nothing answers ${request.method} ${new URL(request.url).pathname}`)
    start({ strategy: 'error', onUnhandled, explain })

    const error = await fetch(`http://${MOCK_HOST}/missing`).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toContain('nothing answers GET /missing')
    expect(onUnhandled).toHaveBeenCalledTimes(1)
    expect((onUnhandled.mock.calls[0]![0] as Request).url).toBe(`http://${MOCK_HOST}/missing`)

    await expect(getVia(http.get, `http://${MOCK_HOST}/other`)).rejects.toThrow('nothing answers GET /other')
    expect(onUnhandled).toHaveBeenCalledTimes(2)

    // The default explanation names the request.
    await interception!.dispose()
    start({ strategy: 'error' })
    await expect(fetch(`http://${MOCK_HOST}/missing`)).rejects.toThrow(`GET http://${MOCK_HOST}/missing`)
  })

  it("'bypass' passes unhandled requests through to the real network, bodies included", async () => {
    const onUnhandled = vi.fn()
    const warn = vi.fn()
    start({ strategy: 'bypass', onUnhandled, warn })
    expect(await (await fetch(`${realOrigin}/a`)).text()).toBe('real GET /a ')
    expect(await (await fetch(`${realOrigin}/b`, { method: 'POST', body: 'payload' })).text()).toBe('real POST /b payload')
    expect(await getVia(http.get, `${realOrigin}/c`)).toEqual({ status: 200, body: 'real GET /c ' })
    expect(await requestVia(`${realOrigin}/d`, 'POST', 'hello')).toEqual({ status: 200, body: 'real POST /d hello' })
    expect(onUnhandled).toHaveBeenCalledTimes(4)
    expect(warn).not.toHaveBeenCalled()
    // Mocked requests are still answered.
    expect(await (await fetch(`http://${MOCK_HOST}/ping`)).json()).toEqual({ ok: true, method: 'GET' })
    expect(onUnhandled).toHaveBeenCalledTimes(4)
  })

  it("'warn' warns with the explanation, then passes through", async () => {
    const onUnhandled = vi.fn()
    const warn = vi.fn()
    start({ strategy: 'warn', onUnhandled, warn, explain: (request) => `unmocked: ${request.method} ${request.url}` })
    expect(await (await fetch(`${realOrigin}/w`, { method: 'PUT', body: 'x' })).text()).toBe('real PUT /w x')
    expect(warn).toHaveBeenCalledWith(`unmocked: PUT ${realOrigin}/w`)
    expect(await getVia(http.get, `${realOrigin}/v`)).toEqual({ status: 200, body: 'real GET /v ' })
    expect(warn).toHaveBeenLastCalledWith(`unmocked: GET ${realOrigin}/v`)
    expect(onUnhandled).toHaveBeenCalledTimes(2)
  })

  it('turns a throwing resolve() into a 500 response', async () => {
    start({
      resolve: async () => {
        throw new Error('broken mock')
      },
    })
    const response = await fetch(`http://${MOCK_HOST}/ping`)
    expect(response.status).toBe(500)
    expect(await response.json()).toMatchObject({ message: 'broken mock' })
  })

  it('dispose() restores the originals; starting again works', async () => {
    const originals = { fetch: globalThis.fetch, get: http.get, request: http.request, httpsGet: https.get, httpsRequest: https.request }
    const first = start()
    expect(globalThis.fetch).not.toBe(originals.fetch)
    expect(() => startInterception({ resolve: resolveMock, strategy: 'bypass' })).toThrow(/already active/)
    await first.dispose()
    await first.dispose() // idempotent
    expect(globalThis.fetch).toBe(originals.fetch)
    expect(http.get).toBe(originals.get)
    expect(http.request).toBe(originals.request)
    expect(https.get).toBe(originals.httpsGet)
    expect(https.request).toBe(originals.httpsRequest)
    expect(namedHttpGet).toBe(originals.get)

    // Real again: fetch and http reach the loopback server, the mock host is not answered.
    expect(await (await fetch(`${realOrigin}/real`)).text()).toBe('real GET /real ')
    expect(await getVia(http.get, `${realOrigin}/real2`)).toEqual({ status: 200, body: 'real GET /real2 ' })

    start()
    expect(await (await fetch(`http://${MOCK_HOST}/ping`)).json()).toEqual({ ok: true, method: 'GET' })
    expect(await getVia(http.get, `http://${MOCK_HOST}/ping`)).toEqual({ status: 200, body: '{"ok":true,"method":"GET"}' })
  })
})

describe.each([
  ['msw 3', msw3],
  ['msw 2', msw2],
] as const)('resolve = %s getResponse()', (_name, msw) => {
  // Typed loosely: msw 2's and msw 3's handler types differ, getResponse takes both at runtime.
  const handlers = [
    msw.http.post('*/users/:id', async ({ request, params }) =>
      msw.HttpResponse.json({ id: params.id, body: (await request.json()) as unknown, q: new URL(request.url).searchParams.get('q') }),
    ),
    msw.http.get('*/ping', () => msw.HttpResponse.json({ ok: true })),
  ]
  const resolve = (request: Request) => msw.getResponse(handlers as never, request)

  it('answers fetch and http requests made into Requests by the interceptors', async () => {
    start({ resolve })
    const viaFetch = await fetch(`http://${MOCK_HOST}/users/7?q=a`, { method: 'POST', body: '{"x":1}', headers: { 'content-type': 'application/json' } })
    expect(await viaFetch.json()).toEqual({ id: '7', body: { x: 1 }, q: 'a' })
    const viaHttp = await requestVia(`http://${MOCK_HOST}/users/8?q=b`, 'POST', '{"y":2}', { 'content-type': 'application/json' })
    expect(JSON.parse(viaHttp.body)).toEqual({ id: '8', body: { y: 2 }, q: 'b' })
    expect(await getVia(https.get, `https://${MOCK_HOST}/ping`)).toEqual({ status: 200, body: '{"ok":true}' })
    await expect(fetch(`http://${MOCK_HOST}/users/7`)).rejects.toThrow(TypeError)
  })
})

describe('heap', () => {
  /** One bench case in a child process with --expose-gc (vitest's workers have no gc()). */
  const runBenchCase = (name: string, count: number): Promise<{ kbPerRequest: number; count: number }> =>
    import('../../bench/in-process.mjs').then((bench) => bench.runCaseInChild(name, count))

  it('stays flat: < 5 KB per request (@mswjs/interceptors 0.45, msw 3\'s, retains ~40 KB)', async () => {
    const gc = (globalThis as { gc?: () => void }).gc
    if (gc) {
      start({ resolve: async () => Response.json({ ok: true }) })
      const settle = async () => {
        for (let i = 0; i < 4; i++) {
          await new Promise((resolve) => setImmediate(resolve))
          gc()
        }
        return process.memoryUsage().heapUsed
      }
      for (let i = 0; i < 200; i++) await (await fetch(`http://${MOCK_HOST}/ping`)).json()
      const before = await settle()
      const count = 20_000
      for (let i = 0; i < count; i++) await (await fetch(`http://${MOCK_HOST}/ping`)).json()
      expect((await settle()) - before).toBeLessThan(5 * 1024 * count)
      return
    }
    for (const name of ['mockyard-fetch', 'mockyard-http']) {
      const result = await runBenchCase(name, 3000)
      expect(result.count).toBe(3000)
      expect(result.kbPerRequest, name).toBeLessThan(5)
    }
  }, 60_000)

  it('the measurement sees a leak: interceptors 0.45 alone', async () => {
    const result = await runBenchCase('interceptors045-fetch', 500)
    expect(result.kbPerRequest).toBeGreaterThan(5)
  }, 60_000)
})
