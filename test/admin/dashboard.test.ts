/**
 * The dashboard's server side (docs/behaviour.md, "The dashboard"): the page and its files, the
 * JSON endpoints (state, one request, the route table) and the live feed of server-sent events,
 * over real HTTP on a listener.
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http'
import { writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { MockServer, startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, rawRequest, removeTempDirs, until, writeMocks } from '../support/routes.js'

const routes = {
  'v1/users': { file: 'users.json', responseHeader: { 'x-served-by': 'users' } },
  'v1/claims': {
    file: 'claims-all.json',
    get: [{ file: 'claims-open.json', params: { status: 'open' } }],
  },
  'v1/jobs/42': {
    get: [{ file: 'running.json', response: [{ status: 202, repeat: 2 }, { status: 200, file: 'done.json' }] }],
  },
  'v1/only-open': { get: [{ file: 'claims-open.json', params: { status: 'open' } }] },
}
const files = {
  'users.json': '[{"id":1}]',
  'claims-all.json': '[]',
  'claims-open.json': '[1]',
  'running.json': '{"state":"running"}',
  'done.json': '{"state":"done"}',
}

const servers: RunningServer[] = []
async function start(extra: Record<string, unknown> = {}) {
  const mocks = writeMocks(routes, files)
  const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider, ...extra })
  servers.push(server)
  return { server, mocks }
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})
afterAll(() => removeTempDirs())

const getJson = async (url: string) => {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  return (await response.json()) as any
}
const session = (name: string): RequestInit => ({ headers: { 'x-mockyard-session': name } })

describe('GET /__mockyard/ (the page)', () => {
  it('serves the page and its files from the package, with a strict content security policy', async () => {
    const { server } = await start()
    const page = await fetch(server.url + '/__mockyard/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'")
    const html = await page.text()
    expect(html).toContain('<script type="module" src="dashboard/app.js"></script>')
    expect(html).not.toMatch(/https?:\/\//)
    for (const [path, type] of [
      ['dashboard/app.js', 'text/javascript; charset=utf-8'],
      ['dashboard/app.css', 'text/css; charset=utf-8'],
    ]) {
      const asset = await fetch(`${server.url}/__mockyard/${path}`)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('content-type')).toBe(type)
      expect(await asset.text()).not.toMatch(/https?:\/\/(?!example)/)
    }
  })

  it('is under the admin rules: a page of another origin is refused, the page itself may reset', async () => {
    const { server } = await start()
    expect((await rawRequest(server.url, '/__mockyard/', { headers: { origin: 'http://evil.test' } })).status).toBe(403)
    expect((await rawRequest(server.url, '/__mockyard/dashboard/state', { headers: { origin: 'http://evil.test' } })).status).toBe(403)
    await fetch(server.url + '/v1/users')
    const own = new URL(server.url)
    const reset = await rawRequest(server.url, '/__mockyard/reset', { method: 'POST', headers: { origin: own.origin, host: own.host } })
    expect(reset.status).toBe(200)
    expect(server.requests()).toEqual([])
  })

  it('is served by MockServer too', async () => {
    const mocks = writeMocks(routes, files)
    const server = new MockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    const { url } = await server.start({ port: 0, host: '127.0.0.1' })
    try {
      const page = await fetch(url + '/__mockyard/')
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<title>mockyard dashboard</title>')
    } finally {
      await server.stop()
    }
  })

  it('answers GET only', async () => {
    const { server } = await start()
    const res = await fetch(server.url + '/__mockyard/dashboard/state', { method: 'POST' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD')
  })

  it.each(['/__mockyard/dashboard/', '/__mockyard/dashboard', '/__mockyard/index.html/', '/__mockyard//', '/__mockyard'])('opened at %s: the browser lands on /__mockyard/, where the files and calls the page names resolve', async (path) => {
    const { server } = await start()
    // What a browser does: follow the answer, then load what the page names relative to where it landed.
    const page = await fetch(server.url + path)
    expect(page.status).toBe(200)
    const html = await page.text()
    const named = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]).filter((url) => !url.startsWith('data:'))
    expect(named).toEqual(['dashboard/app.css', 'dashboard/app.js'])
    // app.js calls `dashboard/state` and `dashboard/routes` relative to the page too.
    for (const relative of [...named, 'dashboard/state', 'dashboard/routes']) {
      const asset = await fetch(new URL(relative, page.url))
      expect([relative, asset.status]).toEqual([relative, 200])
    }
    expect(new URL(page.url).pathname).toBe('/__mockyard/')
    // By a redirect to the one URL of the page (not cached: the port may serve something else tomorrow).
    const moved = await rawRequest(server.url, path)
    expect([moved.status, moved.headers.location, moved.headers['cache-control'], moved.body.byteLength]).toEqual([302, '/__mockyard/', 'no-store', 0])
    expect((await rawRequest(server.url, path, { method: 'HEAD' })).headers.location).toBe('/__mockyard/')
  })

  it('keeps the query when it redirects, and serves the page itself at /__mockyard/index.html', async () => {
    const { server } = await start()
    expect((await rawRequest(server.url, '/__mockyard/dashboard/?session=alpha')).headers.location).toBe('/__mockyard/?session=alpha')
    expect((await rawRequest(server.url, '/__mockyard?session=alpha')).headers.location).toBe('/__mockyard/?session=alpha')
    const page = await rawRequest(server.url, '/__mockyard/index.html')
    expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8'])
  })
})

describe('GET /__mockyard/dashboard/state', () => {
  it('lists the requests with what answered them, sessions, options and files', async () => {
    const { server, mocks } = await start()
    await fetch(server.url + '/v1/users', session('alpha'))
    await fetch(server.url + '/v1/claims?status=open', session('beta'))
    await fetch(server.url + '/v1/claimz')
    const state = await getJson(server.url + '/__mockyard/dashboard/state')
    expect(state.sessions).toEqual(['', 'alpha', 'beta'])
    expect(state.requests.map((r: any) => [r.method, new URL(r.url).pathname + new URL(r.url).search, r.status, r.route ?? null, r.entry ?? null, r.file ?? null, r.session, r.matched])).toEqual([
      ['GET', '/v1/users', 200, 'v1/users', 'default', 'users.json', 'alpha', true],
      ['GET', '/v1/claims?status=open', 200, 'v1/claims', 'get[0]', 'claims-open.json', 'beta', true],
      ['GET', '/v1/claimz', 404, null, null, null, '', false],
    ])
    // Summaries: no headers or bodies in the list.
    expect(state.requests[0].headers).toBeUndefined()
    expect(state.requests[2].explanation).toContain('no route answers GET /v1/claimz: no route has the path /v1/claimz.')
    expect(state.requests[2].explanation).toContain('  - v1/claims (GET, POST, PUT, PATCH, DELETE)')
    expect(state.routesFiles).toEqual([{ file: mocks.routes, data: mocks.data }])
    expect(state.options.routes).toEqual([mocks.routes])
    expect(state.options.logProvider).toBe('(function)')
    // startMockServer's defaults where the options say nothing.
    expect(state.effective).toEqual({ latency: 0, watch: false, limit: '50mb', requestLog: { limit: 1000 }, admin: { allowRemote: false } })
    expect(state.reload).toEqual({ count: 0 })
    expect(state.log).toEqual({ limit: 1000, lastId: 3, clears: 0 })
  })

  it('keeps why each entry was out with an unmatched request', async () => {
    const { server } = await start()
    await fetch(server.url + '/v1/only-open?status=closed')
    const [record] = (await getJson(server.url + '/__mockyard/dashboard/state')).requests
    expect(record.explanation).toBe(
      [
        '[mockyard] no route answers GET /v1/only-open?status=closed: every entry of v1/only-open (GET) is out:',
        '  - get[0]: param "status" is "closed", expected "open"',
        'Add an entry without params to "v1/only-open" as the default, or send a request that fits one of the entries.',
      ].join('\n'),
    )
  })
})

describe('GET /__mockyard/dashboard/requests/:id', () => {
  it('gives one request in full: headers redacted, body, response status and headers', async () => {
    const { server } = await start()
    await fetch(server.url + '/v1/users', { method: 'POST', headers: { authorization: 'Bearer secret', 'content-type': 'application/json' }, body: '{"name":"Ada"}' })
    await fetch(server.url + '/v1/nothing', { headers: { accept: 'application/json' } })
    const posted = await getJson(server.url + '/__mockyard/dashboard/requests/1')
    expect(posted).toMatchObject({ id: 1, method: 'POST', body: '{"name":"Ada"}', status: 200, route: 'v1/users', entry: 'default', matched: true })
    expect(posted.headers.authorization).toBe('<redacted>')
    expect(posted.responseHeaders).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-served-by': 'users' })
    const missing = await getJson(server.url + '/__mockyard/dashboard/requests/2')
    expect(missing).toMatchObject({ status: 404, matched: false })
    expect(missing.responseHeaders['content-type']).toBe('application/json; charset=utf-8')
    expect(missing.explanation).toContain('no route has the path /v1/nothing')
    const gone = await fetch(server.url + '/__mockyard/dashboard/requests/99')
    expect(gone.status).toBe(404)
    expect((await gone.json()).message).toContain('holds no request 99')
  })

  it('gives the response body a route sent: text up to 64 KB, the rest counted; not in the summaries', async () => {
    const big = JSON.stringify({ items: 'x'.repeat(70 * 1024) })
    const mocks = writeMocks({ ...routes, 'v1/big': { file: 'big.json' } }, { ...files, 'big.json': big })
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    servers.push(server)
    await fetch(server.url + '/v1/users')
    await fetch(server.url + '/v1/big')
    await fetch(server.url + '/v1/users', { method: 'HEAD' })
    expect((await getJson(server.url + '/__mockyard/dashboard/requests/1')).responseBody).toBe('[{"id":1}]')
    const cut = (await getJson(server.url + '/__mockyard/dashboard/requests/2')).responseBody as string
    expect(cut.startsWith(big.slice(0, 64 * 1024))).toBe(true)
    expect(cut.endsWith(`… [${Buffer.byteLength(big) - 64 * 1024} more bytes]`)).toBe(true)
    expect((await getJson(server.url + '/__mockyard/dashboard/requests/3')).responseBody).toBeNull()
    const state = await getJson(server.url + '/__mockyard/dashboard/state')
    expect(state.requests[0].responseBody).toBeUndefined()
  })
})

describe('GET /__mockyard/dashboard/routes', () => {
  it('shows each route with its methods and entries, the sequence position of a session and the overrides', async () => {
    const { server } = await start()
    await rawRequest(server.url, '/__mockyard/routes', { method: 'PUT', headers: { 'x-mockyard-session': 'beta', 'content-type': 'application/json' }, body: '{"v1/flags":{"file":"users.json"}}' })
    await fetch(server.url + '/v1/jobs/42', session('beta'))
    await fetch(server.url + '/v1/jobs/42', session('beta'))
    await fetch(server.url + '/v1/jobs/42', session('beta'))

    const beta = await getJson(server.url + '/__mockyard/dashboard/routes?session=beta')
    const jobs = beta.routes.find((r: any) => r.key === 'v1/jobs/42')
    expect(jobs.methods).toEqual(['GET'])
    expect(jobs.entries).toHaveLength(1)
    expect(jobs.entries[0]).toMatchObject({ method: 'GET', label: 'get[0]', conditional: true, served: 3, next: 0 })
    expect(jobs.entries[0].sequence).toEqual([
      { file: 'running.json', url: null, status: 202, repeat: 2 },
      { file: 'done.json', url: null, status: 200, repeat: 1 },
    ])
    const claims = beta.routes.find((r: any) => r.key === 'v1/claims')
    expect(claims.entries.map((e: any) => [e.method, e.label, e.file, e.params ?? null])).toEqual([
      ['GET, POST, PUT, PATCH, DELETE', 'default', 'claims-all.json', null],
      ['GET', 'get[0]', 'claims-open.json', { status: 'open' }],
    ])
    expect(beta.overrides).toEqual({ everyone: [], session: ['v1/flags'], sessions: [] })
    expect(beta.routes.find((r: any) => r.key === 'v1/flags').override).toBe('session')

    // Another session: its own positions, no override.
    await fetch(server.url + '/v1/jobs/42', session('gamma'))
    const gamma = await getJson(server.url + '/__mockyard/dashboard/routes?session=gamma')
    expect(gamma.routes.find((r: any) => r.key === 'v1/jobs/42').entries[0]).toMatchObject({ served: 1, next: 0 })
    expect(gamma.routes.find((r: any) => r.key === 'v1/flags')).toBeUndefined()
    expect(gamma.overrides.session).toEqual([])
    // The sessions with overrides of their own are named to the others, and to "all sessions".
    expect(gamma.overrides.sessions).toEqual(['beta'])
    expect((await getJson(server.url + '/__mockyard/dashboard/routes')).overrides).toEqual({ everyone: [], session: [], sessions: ['beta'] })
    await fetch(server.url + '/v1/jobs/42', session('gamma'))
    const after = await getJson(server.url + '/__mockyard/dashboard/routes?session=gamma')
    expect(after.routes.find((r: any) => r.key === 'v1/jobs/42').entries[0]).toMatchObject({ served: 2, next: 1 })
  })
})

/** Reads a server-sent event stream: the events as they come. */
function openEvents(url: string) {
  const events: Array<{ event: string; data: any }> = []
  let response: IncomingMessage | undefined
  const req = httpRequest(url + '/__mockyard/dashboard/events', (res) => {
    response = res
    res.setEncoding('utf8')
    let buffer = ''
    res.on('data', (chunk: string) => {
      buffer += chunk
      let end
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (event) events.push({ event, data: data ? JSON.parse(data) : null })
      }
    })
  })
  req.end()
  return {
    events,
    get response() {
      return response
    },
    close: () => req.destroy(),
  }
}

describe('GET /__mockyard/dashboard/events (the live feed)', () => {
  it('sends new requests in batches, then a cleared event after a reset', async () => {
    const { server } = await start()
    await fetch(server.url + '/v1/users')
    const stream = openEvents(server.url)
    try {
      await until(() => stream.events.some((e) => e.event === 'hello'), 5000, 'the hello event')
      expect(stream.response!.headers['content-type']).toBe('text/event-stream; charset=utf-8')
      expect(stream.events[0]).toEqual({ event: 'hello', data: { lastId: 1 } })
      for (let i = 0; i < 5; i++) await fetch(`${server.url}/v1/claims?n=${i}`, session('alpha'))
      await fetch(server.url + '/v1/claimz')
      await until(() => stream.events.filter((e) => e.event === 'requests').flatMap((e) => e.data).length >= 6, 5000, 'six requests on the feed')
      const sent = stream.events.filter((e) => e.event === 'requests').flatMap((e) => e.data)
      // Batched: fewer events than requests is allowed, every request exactly once, in order.
      expect(sent.map((r: any) => r.id)).toEqual([2, 3, 4, 5, 6, 7])
      expect(sent[0]).toMatchObject({ method: 'GET', route: 'v1/claims', entry: 'default', session: 'alpha', status: 200 })
      expect(sent[0].headers).toBeUndefined()
      expect(sent[5]).toMatchObject({ status: 404, matched: false })
      expect(sent[5].explanation).toContain('no route has the path /v1/claimz')

      server.reset()
      await until(() => stream.events.some((e) => e.event === 'cleared'), 5000, 'the cleared event')
    } finally {
      stream.close()
    }
  })

  it('ends open streams when the listener stops', async () => {
    const { server } = await start()
    const stream = openEvents(server.url)
    try {
      await until(() => stream.events.some((e) => e.event === 'hello'), 5000, 'the hello event')
      const ended = new Promise<void>((resolve) => stream.response!.on('end', resolve))
      await server.stop()
      await ended
    } finally {
      stream.close()
    }
  })

  it('asks the page to reload the log instead of sending a flood', async () => {
    const { server } = await start()
    const stream = openEvents(server.url)
    try {
      await until(() => stream.events.some((e) => e.event === 'hello'), 5000, 'the hello event')
      // More requests than one batch holds, sent faster than a batch interval (250 ms) can pass.
      await Promise.all(Array.from({ length: 260 }, () => fetch(server.url + '/v1/users')))
      await until(() => stream.events.some((e) => e.event === 'resync' || e.event === 'requests'), 5000, 'an event')
      await until(() => stream.events.some((e) => e.event === 'resync') || stream.events.filter((e) => e.event === 'requests').flatMap((e) => e.data).length === 260, 5000, 'all requests or a resync')
      for (const event of stream.events.filter((e) => e.event === 'requests')) expect(event.data.length).toBeLessThanOrEqual(200)
    } finally {
      stream.close()
    }
  })

  it('drops a client that leaves more than 256 KB unread; a client that reads keeps its stream', async () => {
    const { server } = await start()
    const { port } = new URL(server.url)
    // A client that never reads: a real socket, paused once its request is sent (a hung tab).
    const slow = connect({ host: '127.0.0.1', port: Number(port) })
    slow.on('error', () => {})
    slow.write(`GET /__mockyard/dashboard/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
    slow.pause()
    const reader = openEvents(server.url)
    try {
      await until(() => reader.events.some((e) => e.event === 'hello'), 5000, 'the hello event')
      // Waves of 150 requests with 8 KB queries (under one batch of 200 per 250 ms): about 1.2 MB
      // of events per wave, 12 MB in all, far more than the kernel's socket buffers take.
      const query = 'q='.padEnd(8 * 1024, 'x')
      for (let wave = 0; wave < 10; wave++) {
        await Promise.all(Array.from({ length: 150 }, (_, i) => fetch(`${server.url}/v1/users?w=${wave}&i=${i}&${query}`).then((r) => r.arrayBuffer())))
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
      await until(() => reader.events.filter((e) => e.event === 'requests').flatMap((e) => e.data).length === 1500, 10_000, 'every request on the reading client')
      // The slow client's stream was closed by the listener: once it reads, it sees the end.
      let received = 0
      const ended = new Promise<void>((resolve) => slow.on('end', resolve))
      slow.on('data', (chunk: Buffer) => (received += chunk.byteLength))
      slow.resume()
      await Promise.race([ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the listener kept the slow client connected')), 10_000))])
      expect(received).toBeLessThan(1500 * 8 * 1024)
      expect(reader.response!.destroyed).toBe(false)
      await fetch(server.url + '/v1/users')
      await until(() => reader.events.filter((e) => e.event === 'requests').flatMap((e) => e.data).length === 1501, 5000, 'a request after the drop')
    } finally {
      slow.destroy()
      reader.close()
    }
  })

  it('says when a live reload failed, and the state keeps the error until a good reload', async () => {
    const { server, mocks } = await start({ watch: true })
    const stream = openEvents(server.url)
    try {
      await until(() => stream.events.some((e) => e.event === 'hello'), 5000, 'the hello event')
      writeFileSync(mocks.routes, '{ "v1/users": { "file": ')
      await until(() => stream.events.some((e) => e.event === 'reload' && e.data.error), 10_000, 'a reload event with the error')
      const broken = await getJson(server.url + '/__mockyard/dashboard/state')
      expect(broken.reload.error).toContain(mocks.routes)
      expect((await fetch(server.url + '/v1/users')).status).toBe(200) // the last good table
      writeFileSync(mocks.routes, JSON.stringify({ 'v1/users': { file: 'users.json' } }))
      await until(async () => (await getJson(server.url + '/__mockyard/dashboard/state')).reload.error === undefined, 10_000, 'a good reload')
    } finally {
      stream.close()
    }
  })
})

/** A promise that must settle within `ms`: a request left unanswered fails the test instead of hanging it. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)))
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

describe('HEAD on the dashboard and the admin endpoints', () => {
  it('HEAD /__mockyard/dashboard/events: the headers of the stream at once, no body, and the connection free for the next request', async () => {
    const { server } = await start()
    const stream = openEvents(server.url)
    // One socket at most: the next request goes over the HEAD's connection once its answer ended.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      await until(() => stream.events.some((e) => e.event === 'hello'), 5000, 'the hello event')
      const head = await within(rawRequest(server.url, '/__mockyard/dashboard/events', { method: 'HEAD', agent }), 2000, 'HEAD /__mockyard/dashboard/events')
      expect(head.status).toBe(200)
      expect(head.body.byteLength).toBe(0)
      for (const name of ['content-type', 'cache-control', 'x-accel-buffering', 'x-content-type-options']) {
        expect([name, head.headers[name]]).toEqual([name, stream.response!.headers[name]])
      }
      const next = await within(rawRequest(server.url, '/__mockyard/dashboard/state', { agent }), 2000, 'the request after the HEAD, on its connection')
      expect(next.status).toBe(200)
      // The page's own stream goes on.
      await fetch(server.url + '/v1/users')
      await until(() => stream.events.some((e) => e.event === 'requests'), 5000, 'a requests event')
    } finally {
      agent.destroy()
      stream.close()
    }
  })

  it.each(['/__mockyard/', '/__mockyard/dashboard/app.js', '/__mockyard/dashboard/state', '/__mockyard/dashboard/routes', '/__mockyard/dashboard/requests/1', '/__mockyard/dashboard/requests/99', '/__mockyard/requests', '/__mockyard/routes', '/__mockyard/coverage'])(
    'HEAD %s answers as GET does, without a body',
    async (path) => {
      const { server } = await start()
      await fetch(server.url + '/v1/users')
      const get = await rawRequest(server.url, path)
      const head = await within(rawRequest(server.url, path, { method: 'HEAD' }), 2000, `HEAD ${path}`)
      expect([head.status, head.headers['content-type'], head.headers['content-length'], head.body.byteLength]).toEqual([get.status, get.headers['content-type'], get.headers['content-length'], 0])
    },
  )

  it('names HEAD in the Allow header of a 405 wherever GET is answered', async () => {
    const { server } = await start()
    for (const [method, path, allow] of [
      ['POST', '/__mockyard/requests', 'GET, HEAD'],
      ['DELETE', '/__mockyard/routes', 'GET, HEAD, PUT'],
      ['POST', '/__mockyard/coverage', 'GET, HEAD'],
      ['HEAD', '/__mockyard/reset', 'POST'],
    ]) {
      const res = await rawRequest(server.url, path, { method })
      expect([method, path, res.status, res.headers.allow]).toEqual([method, path, 405, allow])
    }
  })
})
