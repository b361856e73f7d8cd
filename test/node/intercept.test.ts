import http, { get as namedHttpGet } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import * as msw3 from 'msw'
import * as msw2 from 'msw2'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startInterception, type Interception, type InterceptionOptions } from '../../src/node/interception/index.js'
import { interceptInstance } from '../../src/node/intercept-instance.js'
import { createInstance } from '../../src/config/instance.js'
import { Unanswered } from '../../src/harness/unhandled.js'

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

  it('an Unanswered from resolve() carries its own explanation: each request fails or warns with its own, explain() unused', async () => {
    const explain = vi.fn(() => 'the generic explanation')
    const warn = vi.fn()
    let calls = 0
    const unanswered = async (request: Request) => new Unanswered(() => `why ${request.method} ${new URL(request.url).pathname} #${++calls}`)
    start({ strategy: 'error', resolve: unanswered, explain })
    const reasons = await Promise.all([fetch(`http://${MOCK_HOST}/same`), fetch(`http://${MOCK_HOST}/same`)].map((p) => p.then(() => 'answered', (error: Error) => error.message)))
    expect(reasons.sort()).toEqual(['why GET /same #1', 'why GET /same #2'])
    await expect(getVia(http.get, `http://${MOCK_HOST}/other`)).rejects.toThrow('why GET /other #3')

    await interception!.dispose()
    start({ strategy: 'warn', resolve: unanswered, explain, warn })
    expect(await (await fetch(`${realOrigin}/through`)).text()).toBe('real GET /through ')
    expect(warn).toHaveBeenCalledWith('why GET /through #4')

    // 'bypass' asks for no explanation at all.
    await interception!.dispose()
    start({ strategy: 'bypass', resolve: unanswered, explain, warn })
    expect(await (await fetch(`${realOrigin}/quiet`)).text()).toBe('real GET /quiet ')
    expect(calls).toBe(4)
    expect(explain).not.toHaveBeenCalled()
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

describe('fetch', () => {
  /** A real-server URL's path and method as the loopback server saw them, and the body it received. */
  const text = async (response: Promise<Response>) => (await response).text()
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a rejection')
      },
      (reason: unknown) => reason,
    )

  it('sets response.url to the request URL (clones keep it) and takes a URL, a Request or a string', async () => {
    start()
    const byString = await fetch(`http://${MOCK_HOST}/ping?a=1`)
    expect(byString.url).toBe(`http://${MOCK_HOST}/ping?a=1`)
    expect(byString.clone().url).toBe(`http://${MOCK_HOST}/ping?a=1`)
    expect(byString.redirected).toBe(false)
    const byUrl = await fetch(new URL(`http://${MOCK_HOST}/ping`))
    expect(byUrl.url).toBe(`http://${MOCK_HOST}/ping`)
    const request = new Request(`http://${MOCK_HOST}/echo`, { method: 'PATCH', body: 'from a Request', headers: { 'content-type': 'text/plain' } })
    const byRequest = await fetch(request)
    expect(await byRequest.json()).toEqual({ method: 'PATCH', body: 'from a Request', type: 'text/plain' })
    expect(byRequest.url).toBe(`http://${MOCK_HOST}/echo`)
    // A Request plus init: init wins, as in fetch.
    const overridden = await fetch(new Request(`http://${MOCK_HOST}/echo`, { method: 'POST', body: 'old' }), { method: 'PUT', body: 'new' })
    expect(await overridden.json()).toMatchObject({ method: 'PUT', body: 'new' })
  })

  it('keeps what 0.41 accepted: a stream body without duplex, a GET body dropped, a relative URL against location', async () => {
    start()
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed'))
        controller.close()
      },
    })
    expect(await (await fetch(`http://${MOCK_HOST}/echo`, { method: 'POST', body: stream })).json()).toMatchObject({ body: 'streamed' })
    expect(await (await fetch(`http://${MOCK_HOST}/ping`, { method: 'GET', body: 'ignored' })).json()).toEqual({ ok: true, method: 'GET' })
    vi.stubGlobal('location', { href: `http://${MOCK_HOST}/app/page` })
    try {
      const relative = await fetch('/ping')
      expect(relative.url).toBe(`http://${MOCK_HOST}/ping`)
      expect(await relative.json()).toEqual({ ok: true, method: 'GET' })
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('a rejection or throw in resolve() is a 500 naming the error; a thrown Response is the answer; Response.error() and Node errors fail the fetch', async () => {
    let thrown: unknown
    start({
      resolve: async () => {
        throw thrown
      },
    })
    thrown = new RangeError('broken mock')
    const fromError = await fetch(`http://${MOCK_HOST}/ping`)
    expect(fromError.status).toBe(500)
    expect(fromError.statusText).toBe('Unhandled Exception')
    expect(fromError.headers.get('content-type')).toBe('application/json')
    expect(await fromError.json()).toMatchObject({ name: 'RangeError', message: 'broken mock' })

    thrown = { reason: 'not an Error' }
    const fromValue = await fetch(`http://${MOCK_HOST}/ping`)
    expect(fromValue.status).toBe(500)
    expect(await fromValue.json()).toEqual({ reason: 'not an Error' })

    thrown = new Response('teapot', { status: 418, headers: { 'x-thrown': 'yes' } })
    const fromResponse = await fetch(`http://${MOCK_HOST}/ping`)
    expect(fromResponse.status).toBe(418)
    expect(fromResponse.headers.get('x-thrown')).toBe('yes')
    expect(fromResponse.url).toBe(`http://${MOCK_HOST}/ping`)
    expect(await fromResponse.text()).toBe('teapot')

    thrown = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', errno: -111 })
    expect(await rejection(fetch(`http://${MOCK_HOST}/ping`))).toBe(thrown)

    await interception!.dispose()
    start({ resolve: async () => Response.error() })
    const failed = await rejection(fetch(`http://${MOCK_HOST}/ping`))
    expect(failed).toBeInstanceOf(TypeError)
    expect((failed as Error).message).toBe('Failed to fetch')
  })

  it('rejects with the reason of a signal aborted before the request, without calling resolve()', async () => {
    const resolve = vi.fn(resolveMock)
    start({ resolve })
    const reason = new Error('cancelled early')
    expect(await rejection(fetch(`http://${MOCK_HOST}/ping`, { signal: AbortSignal.abort(reason) }))).toBe(reason)
    const request = new Request(`http://${MOCK_HOST}/ping`, { signal: AbortSignal.abort('as a string') })
    expect(await rejection(fetch(request))).toBe('as a string')
    const plain = new AbortController()
    plain.abort()
    const abortError = await rejection(fetch(`http://${MOCK_HOST}/ping`, { signal: plain.signal }))
    expect(abortError).toBeInstanceOf(DOMException)
    expect((abortError as DOMException).name).toBe('AbortError')
    expect(resolve).not.toHaveBeenCalled()
  })

  it('rejects with the reason as soon as the signal aborts while resolve() is pending', async () => {
    let release: (response: Response) => void = () => undefined
    let entered: () => void = () => undefined
    const called = new Promise<void>((resolve) => (entered = resolve))
    start({
      resolve: () =>
        new Promise<Response>((resolve) => {
          release = resolve
          entered()
        }),
    })
    const controller = new AbortController()
    const pending = rejection(fetch(`http://${MOCK_HOST}/ping`, { signal: controller.signal }))
    await called
    const reason = new Error('cancelled while waiting')
    controller.abort(reason)
    expect(await pending).toBe(reason)
    release(Response.json({ late: true })) // a late answer changes nothing

    // The signal of a Request given to fetch counts too.
    const second = new AbortController()
    const viaRequest = rejection(fetch(new Request(`http://${MOCK_HOST}/ping`, { signal: second.signal })))
    await new Promise((resolve) => setImmediate(resolve))
    second.abort()
    expect((await viaRequest as DOMException).name).toBe('AbortError')

    // A signal that never aborts does not get in the way.
    const calm = new AbortController()
    const answered = fetch(`http://${MOCK_HOST}/ping`, { signal: calm.signal })
    await new Promise((resolve) => setImmediate(resolve))
    release(Response.json({ ok: 'calm' }))
    expect(await (await answered).json()).toEqual({ ok: 'calm' })
  })

  describe('mocked redirects (as @mswjs/interceptors 0.41 handles them)', () => {
    const redirecting = async (request: Request): Promise<Response | undefined> => {
      const url = new URL(request.url)
      const to = url.searchParams.get('to')
      const status = Number(url.searchParams.get('status') ?? 302)
      if (url.pathname === '/redirect' && to) return new Response(null, { status, headers: { location: to } })
      if (url.pathname === '/loop') return new Response(null, { status: 302, headers: { location: '/loop' } })
      if (url.pathname === '/headers') return Response.json({ method: request.method, authorization: request.headers.get('authorization'), body: await request.text() })
      return resolveMock(request)
    }

    it("'follow' (the default) follows a mocked redirect through the interception, relative locations included", async () => {
      start({ resolve: redirecting })
      const response = await fetch(`http://${MOCK_HOST}/redirect?to=/ping`)
      expect(response.status).toBe(200)
      expect(response.redirected).toBe(true)
      expect(response.url).toBe(`http://${MOCK_HOST}/ping`)
      expect(await response.json()).toEqual({ ok: true, method: 'GET' })
    })

    it("a redirect to an unmocked URL goes to the network under 'bypass'; under 'error' it fails", async () => {
      start({ resolve: redirecting, strategy: 'bypass' })
      const response = await fetch(`http://${MOCK_HOST}/redirect?to=${encodeURIComponent(`${realOrigin}/landed`)}`)
      expect(response.redirected).toBe(true)
      expect(await response.text()).toBe('real GET /landed ')
      await interception!.dispose()
      start({ resolve: redirecting, strategy: 'error' })
      await expect(fetch(`http://${MOCK_HOST}/redirect?to=/nowhere`)).rejects.toThrow(`GET http://${MOCK_HOST}/nowhere`)
    })

    it("303, and 301/302 after a POST, turn it into a body-less GET; 307/308 send the body again; a stream body cannot be; credentials are dropped across origins", async () => {
      start({ resolve: redirecting })
      const seeOther = await fetch(`http://${MOCK_HOST}/redirect?status=303&to=/headers`, { method: 'POST', body: 'payload', headers: { authorization: 'Bearer t' } })
      expect(await seeOther.json()).toEqual({ method: 'GET', authorization: 'Bearer t', body: '' })
      const crossOrigin = await fetch(`http://${MOCK_HOST}/redirect?to=${encodeURIComponent('http://other.test/headers')}`, { headers: { authorization: 'Bearer t' } })
      expect(await crossOrigin.json()).toEqual({ method: 'GET', authorization: null, body: '' })
      // A 307 keeps the method.
      expect(await (await fetch(`http://${MOCK_HOST}/redirect?status=307&to=/headers`, { method: 'DELETE' })).json()).toMatchObject({ method: 'DELETE' })
      // What real fetch does after a login form's POST.
      const found = await fetch(`http://${MOCK_HOST}/redirect?status=302&to=/headers`, { method: 'POST', body: 'x' })
      expect({ redirected: found.redirected, body: await found.json() }).toEqual({ redirected: true, body: { method: 'GET', authorization: null, body: '' } })
      for (const status of [307, 308]) {
        const again = await fetch(`http://${MOCK_HOST}/redirect?status=${status}&to=/headers`, { method: 'PUT', body: new Blob(['payload']) })
        expect(await again.json()).toEqual({ method: 'PUT', authorization: null, body: 'payload' })
      }
      const stream = () => new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode('s')), controller.close()) })
      for (const status of [302, 307]) {
        const streamed = await rejection(fetch(`http://${MOCK_HOST}/redirect?status=${status}&to=/headers`, { method: 'POST', body: stream(), duplex: 'half' } as RequestInit))
        expect(streamed).toBeInstanceOf(TypeError)
      }
      // A 303 drops even a stream.
      expect(await (await fetch(`http://${MOCK_HOST}/redirect?status=303&to=/headers`, { method: 'POST', body: stream(), duplex: 'half' } as RequestInit)).json()).toMatchObject({ method: 'GET', body: '' })
    })

    it("'manual' returns the redirect itself; 'error' rejects; a redirect loop stops after 20", async () => {
      start({ resolve: redirecting })
      const manual = await fetch(`http://${MOCK_HOST}/redirect?to=/ping`, { redirect: 'manual' })
      expect(manual.status).toBe(302)
      expect(manual.headers.get('location')).toBe('/ping')
      expect(manual.url).toBe(`http://${MOCK_HOST}/redirect?to=/ping`)
      const refused = await rejection(fetch(`http://${MOCK_HOST}/redirect?to=/ping`, { redirect: 'error' }))
      expect(refused).toBeInstanceOf(TypeError)
      expect((refused as Error).cause).toBe('unexpected redirect')
      const loop = await rejection(fetch(`http://${MOCK_HOST}/loop`))
      expect((loop as Error).cause).toBe('redirect count exceeded')
    })
  })

  it('decodes a gzip or brotli content-encoding of a mocked body, as fetch does', async () => {
    const { gzipSync, brotliCompressSync } = await import('node:zlib')
    start({
      resolve: async (request) => {
        const encoding = new URL(request.url).searchParams.get('encoding')!
        const body = encoding === 'gzip' ? gzipSync('{"zipped":true}') : brotliCompressSync('{"zipped":true}')
        return new Response(body, { headers: { 'content-encoding': encoding, 'content-type': 'application/json' } })
      },
    })
    for (const encoding of ['gzip', 'br']) {
      const response = await fetch(`http://${MOCK_HOST}/z?encoding=${encoding}`)
      expect(response.url).toBe(`http://${MOCK_HOST}/z?encoding=${encoding}`)
      expect(await response.json(), encoding).toEqual({ zipped: true })
    }
  })

  it("passes a POST body through on 'bypass' after resolve() read it (string, Request and stream bodies)", async () => {
    const seen: string[] = []
    start({
      strategy: 'bypass',
      resolve: async (request) => {
        seen.push(await request.text())
        return undefined
      },
    })
    expect(await text(fetch(`${realOrigin}/p`, { method: 'POST', body: 'one' }))).toBe('real POST /p one')
    expect(await text(fetch(new Request(`${realOrigin}/q`, { method: 'PUT', body: 'two' })))).toBe('real PUT /q two')
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('three'))
        controller.close()
      },
    })
    expect(await text(fetch(`${realOrigin}/r`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit))).toBe('real POST /r three')
    expect(seen).toEqual(['one', 'two', 'three'])
  })

  it("'warn' sends the request to the network with its body and its abort signal", async () => {
    const warn = vi.fn()
    start({ strategy: 'warn', warn })
    const response = await fetch(`${realOrigin}/warned`, { method: 'POST', body: 'kept', signal: new AbortController().signal })
    expect(await response.text()).toBe('real POST /warned kept')
    expect(response.url).toBe(`${realOrigin}/warned`)
    expect(warn).toHaveBeenCalledWith(`[mockyard] no mock answers POST ${realOrigin}/warned.`)
  })

  it('dispose() puts back the very same fetch; a fetch replaced after start is left alone and only forwards', async () => {
    const original = globalThis.fetch
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch')
    const first = start()
    const patched = globalThis.fetch
    await first.dispose()
    expect(globalThis.fetch).toBe(original)
    expect(Object.getOwnPropertyDescriptor(globalThis, 'fetch')).toEqual(descriptor)

    // Someone (a spy, another mock) wraps fetch after us.
    const second = start()
    const ours = globalThis.fetch
    expect(ours).not.toBe(patched)
    const wrapper = vi.fn((input: RequestInfo | URL, init?: RequestInit) => ours(input, init))
    globalThis.fetch = wrapper as typeof fetch
    try {
      expect(await (await fetch(`http://${MOCK_HOST}/ping`)).json()).toEqual({ ok: true, method: 'GET' })
      await second.dispose()
      await second.dispose()
      expect(globalThis.fetch).toBe(wrapper)
      // Our fetch now forwards to the real one: the mock host is no longer answered.
      expect(await text(fetch(`${realOrigin}/after`))).toBe('real GET /after ')
      await expect(fetch(`http://${MOCK_HOST}/ping`)).rejects.toThrow(TypeError)
      expect(wrapper).toHaveBeenCalledTimes(3)
    } finally {
      globalThis.fetch = original
    }
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

describe('interceptInstance (what setupMockServer runs)', () => {
  const overrides = fileURLToPath(new URL('../fixtures/overrides/', import.meta.url))

  it("answers from the routes, logs the request, and keeps the explanations of what failed under 'error'", async () => {
    const instance = await createInstance({ routes: `${overrides}routes.json`, data: `${overrides}data` }, { latency: 0, watch: false, logLevel: 'error' })
    const instanceInterception = interceptInstance(instance)
    try {
      const response = await fetch('http://any.test/v1/users')
      expect(response.status).toBe(200)
      expect(response.url).toBe('http://any.test/v1/users')
      expect(await response.json()).toEqual({ overridden: 'from its own data folder' })
      expect(instance.log.list()).toHaveLength(1)
      expect(await getVia(http.get, 'http://any.test/v1/users')).toMatchObject({ status: 200 })

      await expect(fetch('http://any.test/v1/nothing-here')).rejects.toThrow(TypeError)
      const unmatched = instanceInterception.takeUnmatched()
      expect(unmatched).toHaveLength(1)
      expect(unmatched[0]).toContain('/v1/nothing-here')
      expect(instanceInterception.takeUnmatched()).toEqual([])
    } finally {
      await instanceInterception.dispose()
      await instance.close()
    }
  })
})

describe('interceptInstance: a request to a server on this machine', () => {
  it('is explained with its origin and how to let it through, and passthrough() in use() does', async () => {
    const instance = await createInstance({ routes: { 'v1/users': { status: 204 } } }, { latency: 0, watch: false, logLevel: 'error' })
    const instanceInterception = interceptInstance(instance)
    try {
      await expect(fetch(`${realOrigin}/page`)).rejects.toThrow(TypeError)
      const [explanation] = instanceInterception.takeUnmatched()
      expect(explanation!.split('\n').at(-1)).toBe(
        `The request went to ${realOrigin}, a server on this machine: in process, mockyard answers every host. If it is your own server (one a test started), let its requests through: mocks.use(http.all('${realOrigin}/*', () => passthrough())), with http and passthrough from msw.`,
      )
      // A host elsewhere gets no such line.
      await expect(fetch('http://any.test/page')).rejects.toThrow(TypeError)
      expect(instanceInterception.takeUnmatched()[0]).not.toContain('a server on this machine')
      // What the line says to do works.
      instance.use(msw3.http.all(`${realOrigin}/*`, () => msw3.passthrough()))
      expect(await (await fetch(`${realOrigin}/page`)).text()).toBe('real GET /page ')
    } finally {
      await instanceInterception.dispose()
      await instance.close()
    }
  })
})

describe('interceptInstance: an http request made before a reset that arrives after it', () => {
  /** http.get, then a reset in the same tick: the interceptor hands the request over a few ticks later. */
  const getAcrossReset = async (options: Parameters<typeof interceptInstance>[1]) => {
    const instance = await createInstance({ routes: { 'v1/users': { status: 204 } } }, { latency: 0, watch: false, logLevel: 'error' })
    const instanceInterception = interceptInstance(instance, options)
    try {
      const outcome = new Promise<string>((resolve) => {
        http.get('http://any.test/v1/users', (response) => resolve(String(response.statusCode))).on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
      })
      instance.reset()
      return { outcome: await outcome, logged: instance.log.list().length }
    } finally {
      await instanceInterception.dispose()
      await instance.close()
    }
  }

  it("fails as the reset failed its test's requests, touching nothing of the state after it", async () => {
    expect(await getAcrossReset({})).toEqual({ outcome: 'ECONNRESET', logged: 0 })
  })

  it('is answered when tests run at once (failsLateRequests: false): the reset of one is not the end of the others', async () => {
    expect(await getAcrossReset({ failsLateRequests: () => false })).toEqual({ outcome: '204', logged: 1 })
  })
})

describe('interceptInstance: fetch replaced after it started', () => {
  it("an msw setupServer listening after it is named in the explanation, with the way out", async () => {
    const { setupServer } = await import('msw/node')
    const instance = await createInstance({ routes: { 'v1/users': { status: 204 } } }, { latency: 0, watch: false, logLevel: 'error' })
    const instanceInterception = interceptInstance(instance)
    const server = setupServer(msw3.http.get('http://any.test/own', () => msw3.HttpResponse.text('from msw')))
    try {
      await expect(fetch('http://any.test/before')).rejects.toThrow(TypeError)
      expect(instanceInterception.takeUnmatched()[0]).not.toContain('globalThis.fetch was replaced')
      server.listen({ onUnhandledFrame: 'bypass' })
      await fetch('http://any.test/nothing-here').catch(() => undefined)
      const [explanation] = instanceInterception.takeUnmatched()
      expect(explanation!.split('\n').at(-1)).toBe(
        "globalThis.fetch was replaced after mockyard's interception started (an msw setupServer().listen() after setupMockServer(), or a mock of fetch): use one of the two for a test file, giving mockyard's routes to msw (createHandlers) or msw's handlers to mockyard (the handlers option, mocks.use()).",
      )
    } finally {
      server.close()
      await instanceInterception.dispose()
      await instance.close()
    }
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
