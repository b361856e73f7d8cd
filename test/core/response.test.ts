/** docs/behaviour.md, "Building the response". */
import { Agent } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import type { RoutesConfig } from 'mockyard'
import { startMockServer } from 'mockyard/node'
import { captureLogs, engineFor, named, rawRequest, removeTempDirs, send, timed, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const files = named('route.json', 'plain.json', 'entry.json', 'item.json', 'a.json')
/** Latency used to tell "delayed" from "not delayed": lower bound 140 ms, upper bound generous. */
const DELAY = 150
const delayed = (ms: number) => {
  expect(ms).toBeGreaterThanOrEqual(DELAY - 10)
  expect(ms).toBeLessThan(DELAY + 2000)
}
const prompt = (ms: number) => expect(ms).toBeLessThan(DELAY - 10)

describe('what a candidate carries', () => {
  const routes: RoutesConfig = {
    'v1/x': {
      file: 'route.json',
      status: 201,
      latency: DELAY,
      responseHeader: { 'X-Route': 'r', 'X-Both': 'route' },
      get: [
        { responseHeaders: { 'x-both': 'get' }, status: 203 },
        { params: { q: 'bare' }, responseHeader: { 'X-Entry': 'e' } },
        { params: { q: 'file' }, file: 'entry.json', latency: 0 },
        {
          params: { q: 'seq' },
          file: 'entry.json',
          status: 202,
          responseHeader: { 'X-Entry': 'e', 'X-Both': 'entry' },
          response: [{}, { file: 'item.json', status: 200, latency: 0, responseHeader: { 'x-both': 'item' } }, { url: 'https://example.test/next' }],
        },
      ],
      put: 'plain.json',
    },
  }
  const engine = engineFor(routes, files)

  it('the default: the route fields, overridden field by field by the method-key string', async () => {
    const { ms, value: res } = await timed(() => send(engine, '/v1/x', { method: 'PUT' }))
    expect([res.status, res.file, res.headers['x-route'], res.headers['x-both']]).toEqual([201, 'plain.json', 'r', 'route'])
    delayed(ms)
  })

  it('the default: plain entries override field by field; headers merge by name, the more specific winning', async () => {
    const { ms, value: res } = await timed(() => send(engine, '/v1/x'))
    expect([res.status, res.file, res.headers['x-route'], res.headers['x-both']]).toEqual([203, 'route.json', 'r', 'get'])
    delayed(ms)
  })

  it('a conditional entry: file, url, status and headers are its own only (status 200)', async () => {
    const { ms, value: res } = await timed(() => send(engine, '/v1/x?q=bare'))
    expect(res.status).toBe(200)
    expect(res.body).toBeNull()
    expect(res.headers['x-entry']).toBe('e')
    expect(res.headers['x-route']).toBeUndefined()
    expect(res.headers['x-both']).toBeUndefined()
    // Latency: its own, else the route's.
    delayed(ms)
  })

  it("a conditional entry's own latency wins over the route's", async () => {
    const { ms, value: res } = await timed(() => send(engine, '/v1/x?q=file'))
    expect([res.status, res.file]).toEqual([200, 'entry.json'])
    prompt(ms)
  })

  it("a sequence item: its own fields, else its entry's; headers are the entry's merged with its own", async () => {
    const first = await timed(() => send(engine, '/v1/x?q=seq'))
    expect([first.value.status, first.value.file, first.value.headers['x-entry'], first.value.headers['x-both']]).toEqual([202, 'entry.json', 'e', 'entry'])
    expect(first.value.headers['x-route']).toBeUndefined()
    delayed(first.ms) // the entry has none: the route's

    const second = await timed(() => send(engine, '/v1/x?q=seq'))
    expect([second.value.status, second.value.file, second.value.headers['x-entry'], second.value.headers['x-both']]).toEqual([200, 'item.json', 'e', 'item'])
    prompt(second.ms)

    const third = await timed(() => send(engine, '/v1/x?q=seq'))
    // url of its own wins over the entry's file; the entry's 202 is no redirect status: 302.
    expect(third.value.status).toBe(302)
    expect(third.value.headers['location']).toBe('https://example.test/next')
    expect(third.value.body).toBeNull()
    delayed(third.ms)
  })
})

describe('status, redirects and empty bodies', () => {
  const engine = engineFor(
    {
      'v1/ok': { file: 'a.json' },
      'v1/redirect': { url: 'https://example.test/r' },
      'v1/moved': { url: 'https://example.test/m', status: 301 },
      'v1/temporary': { url: 'https://example.test/t', status: 307 },
      'v1/created-url': { url: 'https://example.test/c', status: 201 },
      'v1/both': { file: 'a.json', url: 'https://example.test/b' },
      'v1/entry-both': { get: [{ params: {}, file: 'a.json', url: 'https://example.test/e' }] },
      'v1/status-only': { status: 500 },
      'v1/no-content': { file: 'a.json', status: 204 },
      'v1/not-modified': { file: 'a.json', status: 304 },
    },
    files,
  )

  it('status defaults to 200', async () => {
    expect((await send(engine, '/v1/ok')).status).toBe(200)
  })

  it('url: a redirect, 302', async () => {
    const res = await send(engine, '/v1/redirect')
    expect([res.status, res.headers['location'], res.body]).toEqual([302, 'https://example.test/r', null])
  })

  it.each([
    ['/v1/moved', 301],
    ['/v1/temporary', 307],
  ])('url with a 3xx status: %s -> %i', async (path, status) => {
    const res = await send(engine, path)
    expect(res.status).toBe(status)
    expect(res.headers['location']).toMatch(/^https:\/\/example\.test\//)
  })

  it('url with a status that is not 3xx: still 302', async () => {
    const res = await send(engine, '/v1/created-url')
    expect([res.status, res.headers['location']]).toEqual([302, 'https://example.test/c'])
  })

  it('url wins over file (route and entry)', async () => {
    for (const [path, location] of [
      ['/v1/both', 'https://example.test/b'],
      ['/v1/entry-both', 'https://example.test/e'],
    ]) {
      const res = await send(engine, path!)
      expect([res.status, res.headers['location'], res.body]).toEqual([302, location, null])
    }
  })

  it('url: the Location is percent-encoded as the old server (Express, encodeurl) sent it, escapes already written kept', async () => {
    const redirects = engineFor({
      'v1/eur': { url: 'http://example.com/€uro' },
      'v1/mixed': { url: 'http://example.com/café/a b?x=ü' },
      'v1/escaped': { url: 'http://example.com/%E2%82%ACuro/100%/"quoted"' },
      'v1/plain': { url: "https://example.test/a-b_c.d~e/?q=1&r=[2]#top!$'()*+,;=:@|^" },
    })
    expect((await send(redirects, '/v1/eur')).headers['location']).toBe('http://example.com/%E2%82%ACuro')
    expect((await send(redirects, '/v1/mixed')).headers['location']).toBe('http://example.com/caf%C3%A9/a%20b?x=%C3%BC')
    expect((await send(redirects, '/v1/escaped')).headers['location']).toBe('http://example.com/%E2%82%ACuro/100%25/%22quoted%22')
    expect((await send(redirects, '/v1/plain')).headers['location']).toBe("https://example.test/a-b_c.d~e/?q=1&r=[2]#top!$'()*+,;=:@|^")
  })

  it('url with non-ASCII characters over HTTP: a 302 with the encoded Location (it was a 500)', async () => {
    const mocks = writeMocks({ 'v1/eur': { url: 'http://example.com/€uro' } })
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      const res = await rawRequest(server.url, '/v1/eur')
      expect([res.status, res.headers['location']]).toEqual([302, 'http://example.com/%E2%82%ACuro'])
    } finally {
      await server.stop()
    }
  })

  it('a status with no file and no url: an empty body', async () => {
    const res = await send(engine, '/v1/status-only')
    expect([res.status, res.body]).toEqual([500, null])
  })

  it.each([
    ['/v1/no-content', 204],
    ['/v1/not-modified', 304],
  ])('%s: %i never carries a body, even with a file', async (path, status) => {
    const res = await send(engine, path)
    expect([res.status, res.body]).toEqual([status, null])
  })

  it('204 and 304 over HTTP: no body bytes', async () => {
    const mocks = writeMocks({ 'v1/no-content': { file: 'a.json', status: 204 }, 'v1/not-modified': { file: 'a.json', status: 304 } }, files)
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      for (const [path, status] of [
        ['/v1/no-content', 204],
        ['/v1/not-modified', 304],
      ] as const) {
        const res = await rawRequest(server.url, path)
        expect(res.status).toBe(status)
        expect(res.body.byteLength).toBe(0)
      }
    } finally {
      await server.stop()
    }
  })
})

describe('response headers', () => {
  it('both spellings, responseHeader and responseHeaders, in one object', async () => {
    const engine = engineFor({ 'v1/x': { file: 'a.json', responseHeader: { 'X-One': '1' }, responseHeaders: { 'X-Two': '2' } } }, files)
    const res = await send(engine, '/v1/x')
    expect([res.headers['x-one'], res.headers['x-two']]).toEqual(['1', '2'])
  })

  it('merged by name across levels, whatever the spelling and case', async () => {
    const engine = engineFor({ 'v1/x': { file: 'a.json', responseHeaders: { 'X-Name': 'route', 'X-Keep': 'k' }, get: { responseHeader: { 'x-name': 'method' } } } }, files)
    const res = await send(engine, '/v1/x')
    expect([res.headers['x-name'], res.headers['x-keep']]).toEqual(['method', 'k'])
    expect(Object.keys(res.headers).filter((name) => name.toLowerCase() === 'x-name')).toHaveLength(1)
  })

  it('hop-by-hop headers in the config are not part of the response', async () => {
    const engine = engineFor({ 'v1/x': { file: 'a.json', responseHeader: { 'Transfer-Encoding': 'chunked', Connection: 'close', 'Keep-Alive': 'timeout=1', 'X-Ok': 'yes' } } }, files)
    const res = await send(engine, '/v1/x')
    const names = Object.keys(res.headers).map((name) => name.toLowerCase())
    expect(names).not.toContain('transfer-encoding')
    expect(names).not.toContain('connection')
    expect(names).not.toContain('keep-alive')
    expect(res.headers['x-ok']).toBe('yes')
  })

  it('over HTTP the server frames the body itself (hop-by-hop config ignored)', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json', responseHeader: { 'Transfer-Encoding': 'gzip', Connection: 'close', 'Keep-Alive': 'timeout=1' } } }, files)
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    // A keep-alive client: a `connection: close` in the answer would then come from the config.
    const agent = new Agent({ keepAlive: true })
    try {
      const res = await rawRequest(server.url, '/v1/x', { agent })
      expect(res.status).toBe(200)
      expect(JSON.parse(res.body.toString('utf8'))).toEqual({ file: 'a.json' })
      expect(res.headers['transfer-encoding']).not.toBe('gzip')
      expect(res.headers['connection']).not.toBe('close')
      expect(res.headers['keep-alive']).not.toBe('timeout=1')
    } finally {
      agent.destroy()
      await server.stop()
    }
  })
})

describe('tus upload chunks: Upload-Offset (docs/behaviour.md, "Building the response")', () => {
  const engine = engineFor(
    {
      'v1/uploads/:id': { patch: { status: 204, responseHeaders: { 'Tus-Resumable': '1.0.0' } }, post: { status: 204 } },
      'v1/own/:id': { patch: { status: 204, responseHeaders: { 'Upload-Offset': '99' } } },
      'v1/gone/:id': { patch: { fault: 'reset' } },
    },
    files,
  )
  const chunk = (headers: Record<string, string>, body: string | null = 'hello world', method = 'PATCH'): RequestInit => ({ method, body, headers })
  const TUS = { 'content-type': 'application/offset+octet-stream', 'tus-resumable': '1.0.0', 'upload-offset': '0' }

  it('a PATCH with Content-Type application/offset+octet-stream and Tus-Resumable answers Upload-Offset: its Content-Length', async () => {
    const res = await send(engine, '/v1/uploads/abc', chunk(TUS))
    expect([res.status, res.headers['upload-offset'], res.headers['tus-resumable']]).toEqual([204, '11', '1.0.0'])
    // A browser client reads it across origins only when it is exposed.
    expect(res.headers['access-control-expose-headers']?.split(', ')).toContain('upload-offset')
    expect((await send(engine, '/v1/uploads/abc', chunk({ ...TUS, 'content-type': 'Application/Offset+Octet-Stream; x=1' }, 'abc'))).headers['upload-offset']).toBe('3')
    expect((await send(engine, '/v1/uploads/abc', chunk(TUS, null))).headers['upload-offset']).toBe('0')
    // X-HTTP-Method-Override makes a POST count as PATCH.
    expect((await send(engine, '/v1/uploads/abc', chunk({ ...TUS, 'x-http-method-override': 'PATCH' }, 'hello', 'POST'))).headers['upload-offset']).toBe('5')
  })

  it('nothing is added without both headers, or to another method', async () => {
    const { 'tus-resumable': _, ...withoutTus } = TUS
    for (const init of [chunk(withoutTus), chunk({ ...TUS, 'content-type': 'application/octet-stream' }), chunk(TUS, 'hello', 'POST')]) {
      const res = await send(engine, '/v1/uploads/abc', init)
      expect(res.status).toBe(204)
      expect(res.headers).not.toHaveProperty('upload-offset')
    }
  })

  it("the route's own Upload-Offset header wins; a fault sends nothing", async () => {
    expect((await send(engine, '/v1/own/abc', chunk(TUS))).headers['upload-offset']).toBe('99')
    expect((await send(engine, '/v1/gone/abc', chunk(TUS))).headers).not.toHaveProperty('upload-offset')
  })

  it('over HTTP: the header is on the wire', async () => {
    const mocks = writeMocks({ 'v1/uploads/:id': { patch: { status: 204 } } })
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      const res = await rawRequest(server.url, '/v1/uploads/abc', { method: 'PATCH', headers: { ...TUS, 'content-length': '11' }, body: 'hello world' })
      expect([res.status, res.headers['upload-offset']]).toEqual([204, '11'])
    } finally {
      await server.stop()
    }
  })
})

describe('content type and ${context}', () => {
  const context = 'http://localhost:3000/api'
  const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, ...new TextEncoder().encode('${context}'), 0x00, 0xff, 0xfe])
  const dataFiles = {
    'links.json': '{"self": "${context}/v1/links"}',
    'feed.xml': '<feed href="${context}/feed"/>',
    'page.html': '<a href="${context}/page">x</a>',
    'notes.txt': 'see ${context}/notes',
    'table.csv': 'url\n${context}/table\n',
    'image.png': binary,
    'doc.pdf': binary,
    'odd.json': '{ "a" :1,\n\n   "b":[ 1,2 ]  }\n',
  }
  const routes = Object.fromEntries(Object.keys(dataFiles).map((name) => [`v1/${name.replace('.', '-')}`, { file: name }]))

  it.each([
    ['links.json', 'application/json; charset=utf-8'],
    ['feed.xml', 'application/xml'],
    ['page.html', 'text/html'],
    ['notes.txt', 'text/plain'],
    ['table.csv', 'text/csv'],
    ['image.png', 'image/png'],
    ['doc.pdf', 'application/pdf'],
  ])('%s -> %s', async (name, type) => {
    const res = await send(engineFor(routes, dataFiles), `/v1/${name.replace('.', '-')}`)
    if (name.endsWith('.json')) expect(res.headers['content-type']).toBe(type)
    else expect(res.headers['content-type']?.split(';')[0]).toBe(type)
  })

  it.each(['links.json', 'feed.xml', 'page.html', 'notes.txt', 'table.csv'])('${context} in the text file %s is replaced by pluginContext', async (name) => {
    const res = await send(engineFor(routes, dataFiles, { pluginContext: context }), `/v1/${name.replace('.', '-')}`)
    expect(res.text).toBe((dataFiles[name as keyof typeof dataFiles] as string).replaceAll('${context}', context))
    expect(res.text).not.toContain('${context}')
  })

  it.each(['image.png', 'doc.pdf'])('binary files (%s) are served byte for byte, ${context} bytes included', async (name) => {
    const res = await send(engineFor(routes, dataFiles, { pluginContext: context }), `/v1/${name.replace('.', '-')}`)
    const bytes = typeof res.body === 'string' ? new TextEncoder().encode(res.body) : res.body!
    expect([...bytes]).toEqual([...binary])
  })

  it('a text file in another charset (Content-Type names it) gets ${context} replaced in its bytes, its other characters kept', async () => {
    const latin1 = new Uint8Array([...new TextEncoder().encode('caf'), 0xe9, ...new TextEncoder().encode(' ${context}/menu '), 0xe8])
    const engine = engineFor({ 'v1/menu': { file: 'menu.txt', responseHeader: { 'Content-Type': 'text/plain; charset=iso-8859-1' } } }, { 'menu.txt': latin1 }, { pluginContext: context })
    const res = await send(engine, '/v1/menu')
    const bytes = typeof res.body === 'string' ? new TextEncoder().encode(res.body) : res.body!
    expect([...bytes]).toEqual([...new TextEncoder().encode('caf'), 0xe9, ...new TextEncoder().encode(` ${context}/menu `), 0xe8])
  })

  it('JSON files are served as written (no re-formatting)', async () => {
    const res = await send(engineFor(routes, dataFiles), '/v1/odd-json')
    expect(res.text).toBe(dataFiles['odd.json'])
  })

  it('without pluginContext: the origin of the request URL, as the client addressed the server', async () => {
    const mocks = writeMocks({ 'v1/links': { file: 'links.json' } }, { 'links.json': dataFiles['links.json'] })
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      const direct = (await (await fetch(server.url + '/v1/links')).json()) as { self: string }
      expect(direct.self).toBe(`${server.url}/v1/links`)
      const viaHost = await rawRequest(server.url, '/v1/links', { headers: { host: 'api.example.test:8443' } })
      expect(JSON.parse(viaHost.body.toString('utf8'))).toEqual({ self: 'http://api.example.test:8443/v1/links' })
    } finally {
      await server.stop()
    }
  })

  it('a .json file that does not parse is still served, and reported once, at load', async () => {
    const broken = '{"a": 1,,}'
    const mocks = writeMocks({ 'v1/broken': { file: 'broken.json' } }, { 'broken.json': broken })
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider })
    try {
      const atLoad = logs.warn.filter((w) => w.includes('broken.json'))
      expect(atLoad).toHaveLength(1)
      for (let i = 0; i < 2; i++) {
        const res = await fetch(server.url + '/v1/broken')
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
        expect(await res.text()).toBe(broken)
      }
      expect([...logs.warn, ...logs.error].filter((w) => w.includes('broken.json'))).toHaveLength(1)
    } finally {
      await server.stop()
    }
  })
})

describe('latency applies to every kind of response', () => {
  const engine = engineFor(
    {
      'v1/file': { file: 'a.json', latency: DELAY },
      'v1/status': { status: 202, latency: DELAY },
      'v1/redirect': { url: 'https://example.test/', latency: DELAY },
      'v1/global': { status: 204 },
      'v1/zero': { file: 'a.json', latency: 0 },
    },
    files,
    { latency: DELAY },
  )

  it.each(['/v1/file', '/v1/status', '/v1/redirect', '/v1/global'])('%s is delayed', async (path) => {
    const { ms, value } = await timed(() => send(engine, path))
    expect(value.matched).toBe(true)
    delayed(ms)
  })

  it('0 means no delay (a route latency of 0 wins over the global one)', async () => {
    const { ms } = await timed(() => send(engine, '/v1/zero'))
    prompt(ms)
  })

  it('over HTTP: a redirect and a status-only response are delayed too', async () => {
    const mocks = writeMocks({ 'v1/redirect': { url: 'https://example.test/', latency: DELAY }, 'v1/status': { status: 500, latency: DELAY } })
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      const redirect = await timed(() => fetch(server.url + '/v1/redirect', { redirect: 'manual' }))
      expect(redirect.value.status).toBe(302)
      delayed(redirect.ms)
      const status = await timed(() => fetch(server.url + '/v1/status'))
      expect(status.value.status).toBe(500)
      delayed(status.ms)
    } finally {
      await server.stop()
    }
  })
})
