/**
 * Sessions across processes (docs/behaviour.md, "Sessions across processes"): an SSR-like app
 * server (a real `http.createServer`) calls a real listener with `fetch` and `http.get` while it
 * handles a request; `propagateSessions()` carries the incoming request's session (header, else
 * cookie) to those calls, to the listener's origin only, never to a third-party server, also
 * across redirects.
 */
import { once } from 'node:events'
import http, { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { propagateSessions, startMockServer, type PropagatedSessions, type RunningServer } from 'mockyard/node'
import { createAdminClient } from 'mockyard/playwright'
import { captureLogs, named, removeTempDirs, writeMocks } from '../support/routes.js'

const SESSIONS = 20

let listener: RunningServer
let third: Server
let thirdUrl = ''
/** The headers each request to the third-party server arrived with. */
const thirdSaw: IncomingHttpHeaders[] = []
let app: Server
let appUrl = ''
let propagation: PropagatedSessions | undefined

/** Starts a server on a random loopback port; resolves to its URL. */
async function serve(server: Server, host = '127.0.0.1'): Promise<string> {
  server.listen(0, host)
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/** `http.get` to a URL, the body as text (what an app using `http` does); headers as an object or as Node's flat array. */
function httpGet(url: string, headers: Record<string, string> | string[] = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve(body))
      })
      .on('error', reject)
  })
}

/** Reads a request body with callbacks, as body-parser does (the `data`/`end` events). */
function readBody(req: IncomingMessage, done: (body: string) => void): void {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (chunk: string) => (body += chunk))
  req.on('end', () => done(body))
}

/**
 * The SSR-like app: `GET /render?via=fetch|http&to=<url>&wait=<ms>` waits, then calls `to` and
 * answers with what it got. `POST /render` takes the same as a JSON body, read with callbacks.
 */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = new URL(req.url ?? '/', 'http://app').searchParams
  const params: Record<string, string> = req.method === 'POST' ? JSON.parse(await new Promise<string>((done) => readBody(req, done))) : Object.fromEntries(query)
  if (params.wait) await delay(Number(params.wait))
  const headers: Record<string, string> = params.own ? { 'x-mockyard-session': params.own } : {}
  const body =
    params.via === 'http' ? await httpGet(params.to!, params.raw ? ['host', new URL(params.to!).host, ...Object.entries(headers).flat()] : headers) : await (await fetch(params.to!, { headers })).text()
  res.end(body)
}

/** A request to the app, carrying a session by header or by cookie (or none). */
async function render(params: Record<string, string>, session?: { header?: string; cookie?: string }): Promise<string> {
  const headers: Record<string, string> = {}
  if (session?.header) headers['x-mockyard-session'] = session.header
  if (session?.cookie) headers.cookie = `theme=dark; mockyard-session=${session.cookie}; other=1`
  const res = await fetch(`${appUrl}/render?${new URLSearchParams(params)}`, { headers })
  return res.text()
}

/** Which file the listener answered with. */
const fileOf = (body: string) => (JSON.parse(body) as { file: string }).file

beforeAll(async () => {
  third = createServer((req, res) => {
    thirdSaw.push(req.headers)
    res.setHeader('content-type', 'application/json')
    res.end('{"file":"third-party"}')
  })
  thirdUrl = await serve(third)
  const files = named('shared.json', ...Array.from({ length: SESSIONS }, (_, i) => `s${i}.json`))
  const mocks = writeMocks(
    {
      'v1/who': { file: 'shared.json' },
      'v1/away': { status: 302, responseHeader: { location: `${thirdUrl}/landing` } },
      'v1/home': { status: 302, responseHeader: { location: '/v1/who' } },
    },
    files,
  )
  listener = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
  // Each session sees its own file on the same endpoint (an override for the session).
  await Promise.all(Array.from({ length: SESSIONS }, (_, i) => createAdminClient(listener.url, { session: `s${i}` }).useRoutes({ 'v1/who': { file: `s${i}.json` } })))
  app = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      res.statusCode = 500
      res.end(error.message)
    })
  })
  appUrl = await serve(app)
})

afterEach(() => {
  propagation?.dispose()
  propagation = undefined
  thirdSaw.length = 0
})

afterAll(async () => {
  app.close()
  third.close()
  await listener.stop()
  removeTempDirs()
})

describe('the listener', () => {
  it('reads the session from the mockyard-session cookie when the header is absent (a browser navigation)', async () => {
    const get = async (headers: Record<string, string>) => fileOf(await (await fetch(`${listener.url}/v1/who`, { headers })).text())
    expect(await get({ cookie: 'mockyard-session=s11' })).toBe('s11.json')
    expect(await get({ cookie: 'mockyard-session=s11', 'x-mockyard-session': 's12' })).toBe('s12.json')
    expect(await listener.requests({ session: 's11' })).toHaveLength(1)
  })
})

describe('propagateSessions()', () => {
  it('carries the session of the incoming request to fetch and http.get calls to the listener, by header and by cookie', async () => {
    propagation = propagateSessions({ targets: listener.url })
    const to = `${listener.url}/v1/who`
    const before = (await listener.requests({ path: '/v1/who' })).length
    expect(fileOf(await render({ via: 'fetch', to }, { header: 's1' }))).toBe('s1.json')
    expect(fileOf(await render({ via: 'http', to }, { header: 's2' }))).toBe('s2.json')
    expect(fileOf(await render({ via: 'fetch', to }, { cookie: 's3' }))).toBe('s3.json')
    expect(fileOf(await render({ via: 'http', to }, { cookie: 's4' }))).toBe('s4.json')
    // Headers given to http.get as an array are stored at once: the session is added to them.
    expect(fileOf(await render({ via: 'http', to, raw: '1' }, { header: 's5' }))).toBe('s5.json')
    // No session in, none out: the shared state answers.
    expect(fileOf(await render({ via: 'fetch', to }))).toBe('shared.json')
    expect(fileOf(await render({ via: 'http', to }))).toBe('shared.json')
    const logged = (await listener.requests({ path: '/v1/who' })).slice(before)
    expect(logged.map((r) => r.session ?? '')).toEqual(['s1', 's2', 's3', 's4', 's5', '', ''])
  })

  it('localhost, 127.0.0.1 and [::1] are one host: a target named localhost matches calls to 127.0.0.1', async () => {
    propagation = propagateSessions({ targets: [listener.url.replace('127.0.0.1', 'localhost')] })
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/who` }, { header: 's5' }))).toBe('s5.json')
    expect(fileOf(await render({ via: 'http', to: `${listener.url}/v1/who` }, { header: 's6' }))).toBe('s6.json')
  })

  it('reads MOCKYARD_URL when no targets are given', async () => {
    const saved = process.env.MOCKYARD_URL
    process.env.MOCKYARD_URL = listener.url
    try {
      propagation = propagateSessions()
    } finally {
      if (saved === undefined) delete process.env.MOCKYARD_URL
      else process.env.MOCKYARD_URL = saved
    }
    expect(propagation.targets).toEqual([listener.url])
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/who` }, { cookie: 's7' }))).toBe('s7.json')
  })

  it('never sends the header to another origin: a third-party server sees none, by fetch, by http.get, or after a redirect from the listener', async () => {
    propagation = propagateSessions({ targets: listener.url })
    expect(fileOf(await render({ via: 'fetch', to: `${thirdUrl}/api` }, { header: 's1' }))).toBe('third-party')
    expect(fileOf(await render({ via: 'http', to: `${thirdUrl}/api` }, { cookie: 's1' }))).toBe('third-party')
    // The listener redirects to the third party: fetch follows, the second hop is checked too.
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/away` }, { header: 's1' }))).toBe('third-party')
    expect(thirdSaw).toHaveLength(3)
    for (const headers of thirdSaw) expect(headers['x-mockyard-session']).toBeUndefined()
    // The first hop, to the listener, did carry it.
    expect(await listener.requests({ path: '/v1/away' })).toMatchObject([{ session: 's1' }])
  })

  it('a redirect that stays on the listener keeps the session', async () => {
    propagation = propagateSessions({ targets: listener.url })
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/home` }, { header: 's8' }))).toBe('s8.json')
  })

  it('a header the app sets itself wins', async () => {
    propagation = propagateSessions({ targets: listener.url })
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/who`, own: 's9' }, { header: 's1' }))).toBe('s9.json')
    expect(fileOf(await render({ via: 'http', to: `${listener.url}/v1/who`, own: 's9' }, { header: 's1' }))).toBe('s9.json')
    expect(fileOf(await render({ via: 'http', to: `${listener.url}/v1/who`, own: 's9', raw: '1' }, { header: 's1' }))).toBe('s9.json')
  })

  it('keeps the session through a body read with callbacks (data/end events)', async () => {
    propagation = propagateSessions({ targets: listener.url })
    for (const via of ['fetch', 'http']) {
      const res = await fetch(`${appUrl}/render`, { method: 'POST', headers: { cookie: 'mockyard-session=s10' }, body: JSON.stringify({ via, to: `${listener.url}/v1/who` }) })
      expect(fileOf(await res.text())).toBe('s10.json')
    }
  })

  it('a cookie whose decoded value could not be a header value carries no session, and the app keeps serving', async () => {
    propagation = propagateSessions({ targets: listener.url })
    for (const params of [{ via: 'fetch' }, { via: 'http' }, { via: 'http', raw: '1' }] as Record<string, string>[]) {
      expect(fileOf(await render({ ...params, to: `${listener.url}/v1/who` }, { cookie: 's1%0D%0Ax-injected:%201' }))).toBe('shared.json')
      expect(fileOf(await render({ ...params, to: `${listener.url}/v1/who` }, { cookie: '%C3%A9t%C3%A9' }))).toBe('shared.json')
    }
    const logged = await listener.requests({ path: '/v1/who' })
    expect(logged.filter((r) => 'x-injected' in r.headers)).toEqual([])
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/who` }, { cookie: 's2' }))).toBe('s2.json')
  })

  it('work begun outside a request carries no session', async () => {
    propagation = propagateSessions({ targets: listener.url })
    const before = (await listener.requests({ path: '/v1/who' })).length
    expect(fileOf(await (await fetch(`${listener.url}/v1/who`)).text())).toBe('shared.json')
    expect(fileOf(await httpGet(`${listener.url}/v1/who`))).toBe('shared.json')
    expect((await listener.requests({ path: '/v1/who' })).slice(before).map((r) => r.session ?? '')).toEqual(['', ''])
  })

  it('interleaved requests of different sessions never swap (concurrent, random delays, header and cookie, fetch and http)', async () => {
    propagation = propagateSessions({ targets: listener.url })
    const calls = Array.from({ length: 200 }, (_, n) => {
      const session = `s${n % SESSIONS}`
      const params = { via: n % 2 ? 'http' : 'fetch', to: `${listener.url}/v1/who`, wait: String(Math.floor(Math.random() * 15)) }
      return render(params, (n >> 1) % 2 ? { header: session } : { cookie: session }).then((body) => [session, fileOf(body)])
    })
    const results = await Promise.all(calls)
    const swapped = results.filter(([session, file]) => file !== `${session}.json`)
    expect(swapped).toEqual([])
  })

  it('a second call hooks nothing twice and returns the same handle; one naming another target adds it; dispose() unhooks', async () => {
    propagation = propagateSessions({ targets: listener.url })
    expect(propagateSessions({ targets: listener.url })).toBe(propagation)
    const before = (await listener.requests({ path: '/v1/who' })).length
    for (const via of ['fetch', 'http']) expect(fileOf(await render({ via, to: `${listener.url}/v1/who` }, { header: 's1' }))).toBe('s1.json')
    // Added once, not once per call ("s1, s1" would be another session).
    expect((await listener.requests({ path: '/v1/who' })).slice(before).map((r) => r.headers['x-mockyard-session'])).toEqual(['s1', 's1'])

    expect(propagateSessions({ targets: thirdUrl })).toBe(propagation)
    expect(propagation.targets).toEqual([listener.url, thirdUrl])
    await render({ via: 'fetch', to: `${thirdUrl}/api` }, { header: 's1' })
    expect(thirdSaw.map((headers) => headers['x-mockyard-session'])).toEqual(['s1'])

    propagation.dispose()
    propagation = undefined
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/who` }, { header: 's1' }))).toBe('shared.json')
  })

  it('dispose() leaves a wrapper installed after it in place (an APM agent): requests still reach the app, without sessions', async () => {
    propagation = propagateSessions({ targets: listener.url })
    const prototype = http.Server.prototype as unknown as { emit: (...args: unknown[]) => boolean }
    const before = prototype.emit
    let wrapped = 0
    prototype.emit = function (this: unknown, ...args: unknown[]) {
      if (args[0] === 'request') wrapped++
      return before.apply(this, args)
    }
    const theirs = prototype.emit
    try {
      propagation.dispose()
      propagation = undefined
      expect(prototype.emit).toBe(theirs)
      expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/who` }, { header: 's1' }))).toBe('shared.json')
      expect(wrapped).toBeGreaterThan(0)
    } finally {
      prototype.emit = before
    }
  })

  it('without MOCKYARD_URL or targets: one warning, and nothing is added', async () => {
    const saved = process.env.MOCKYARD_URL
    delete process.env.MOCKYARD_URL
    const warned: string[] = []
    try {
      propagation = propagateSessions({ logger: { warn: (message: string) => void warned.push(message) } })
      propagateSessions({ logger: { warn: (message: string) => void warned.push(message) } })
    } finally {
      if (saved !== undefined) process.env.MOCKYARD_URL = saved
    }
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatch(/MOCKYARD_URL/)
    expect(propagation.targets).toEqual([])
    expect(fileOf(await render({ via: 'fetch', to: `${listener.url}/v1/who` }, { header: 's1' }))).toBe('shared.json')
    expect(fileOf(await render({ via: 'http', to: `${listener.url}/v1/who` }, { header: 's1' }))).toBe('shared.json')
    // Told a target later (MOCKYARD_URL was set after the first call), it starts carrying.
    expect(propagateSessions({ targets: listener.url })).toBe(propagation)
    expect(fileOf(await render({ via: 'http', to: `${listener.url}/v1/who` }, { header: 's1' }))).toBe('s1.json')
    expect(warned).toHaveLength(1)
  })

  it('a target that is not a URL is an error naming it', () => {
    expect(() => propagateSessions({ targets: 'localhost:4010' })).toThrow(/target "localhost:4010" is not an http\(s\) URL/)
    expect(() => propagateSessions({ targets: 'not a url' })).toThrow(/target "not a url" is not a URL/)
  })
})
