import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRecordWriter, startRecorder, type RecordedExchange } from 'mockyard/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { filesUnder, killAll, PDF as PDF_BYTES, PNG, runCli, SECRETS, see, startApp, startCli, type App, type Seen } from './support.js'

/** The requests to record and then replay against the mocks, in order (the job is a sequence). */
const CALLS: Array<[string, (base: string) => Promise<Response>]> = [
  ['JSON', (b) => fetch(`${b}/api/users`)],
  ['GET told apart by query (cats)', (b) => fetch(`${b}/api/search?q=cats&page=1`)],
  ['GET told apart by query (dogs)', (b) => fetch(`${b}/api/search?q=dogs&page=1`)],
  ['XML', (b) => fetch(`${b}/feed.xml`)],
  ['PNG', (b) => fetch(`${b}/img/logo.png`)],
  ['PDF', (b) => fetch(`${b}/docs/report`)],
  ['empty 204', (b) => fetch(`${b}/api/items/7`, { method: 'DELETE' })],
  ['302', (b) => fetch(`${b}/old-page`, { redirect: 'manual' })],
  ['202 first', (b) => fetch(`${b}/api/jobs/1`)],
  ['then 201', (b) => fetch(`${b}/api/jobs/1`)],
  ['upload a.png', (b) => fetch(`${b}/api/upload`, { method: 'POST', body: upload('a.png', PNG) })],
  ['upload b.txt', (b) => fetch(`${b}/api/upload`, { method: 'POST', body: upload('b.txt', Buffer.from('plain text')) })],
  ['gzip-encoded JSON', (b) => fetch(`${b}/api/gzipped`)],
  ['a 404 of the back end', (b) => fetch(`${b}/api/nothing-here`)],
]

function upload(name: string, bytes: Buffer): FormData {
  const form = new FormData()
  form.append('note', 'same for both')
  form.append('file', new Blob([new Uint8Array(bytes)]), name)
  return form
}

let app: App
const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-record-'))
  dirs.push(dir)
  return dir
}

beforeAll(async () => {
  app = await startApp()
})
afterEach(() => killAll())
afterAll(async () => {
  await app.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('mockyard record', () => {
  it('records a real back end, and the written mocks answer every request as it did', async () => {
    const out = join(tempDir(), 'mocks')
    const recorder = await startCli(['record', '--target', app.url, '--out', out, '--port', '0'])
    const recorded: Seen[] = []
    for (const [, call] of CALLS) recorded.push(await see(await call(recorder.url)))

    // The client got the real answers, unchanged.
    expect(recorded.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 204, 302, 202, 201, 201, 200, 200, 404])
    expect(recorded[4]!.body.equals(PNG)).toBe(true)
    expect(recorded[0]!.body.toString()).toBe('{ "users" : [ {"id": 1, "name": "Ada"} ],\n  "total": 1 }\n')
    expect(recorded[12]!.body.toString()).toBe('{"compressed":true}')
    expect(recorded[7]!.location).toBe('/new-page')

    // One line per request on stderr, then a summary when it stops.
    await expect.poll(() => recorder.stderr().split('\n').filter((l) => / -> /.test(l)).length).toBe(CALLS.length)
    expect(recorder.stderr()).toMatch(/GET \/api\/search\?… 200 -> api\/search get/)
    // Written as it goes: everything is on disk before the recorder stops (a crash loses nothing).
    expect(Object.keys(JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')))).toHaveLength(11)
    expect(readdirSync(join(out, 'data')).filter((name) => name.endsWith('.tmp'))).toEqual([])
    expect(await recorder.stop('SIGINT')).toBe(0)
    expect(recorder.stderr()).toMatch(/14 requests seen: 11 routes, 13 entries, 12 files written/)

    // mockyard's own format: one key per path, params only where they tell requests apart.
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(Object.keys(routes)).toEqual(['api/users', 'api/search', 'feed.xml', 'img/logo.png', 'docs/report', 'api/items/7', 'old-page', 'api/jobs/1', 'api/upload', 'api/gzipped', 'api/nothing-here'])
    expect(routes['api/users']).toEqual({ get: { file: 'api-users.json', responseHeader: { 'x-request-id': 'abc-123' } } })
    expect(routes['api/search'].get.map((e: { params: unknown }) => e.params)).toEqual([{ q: 'cats' }, { q: 'dogs' }])
    expect(routes['api/upload'].post.map((e: { params: unknown }) => e.params)).toEqual([{ file: 'a.png' }, { file: 'b.txt' }])
    expect(routes['old-page']).toEqual({ get: { url: '/new-page' } })
    expect(routes['api/items/7']).toEqual({ delete: { status: 204 } })
    expect(routes['docs/report'].get.responseHeader).toEqual({ 'content-disposition': 'attachment; filename="report.pdf"' })
    expect(routes['api/jobs/1'].get.response).toEqual([
      { status: 202, file: 'api-jobs-1.json', responseHeader: { Location: '/api/jobs/1', 'x-job-id': 'job-1' } },
      { status: 201, file: 'api-jobs-1-2.json' },
    ])
    expect(readFileSync(join(out, 'data', 'img-logo.png')).equals(PNG)).toBe(true)
    expect(readFileSync(join(out, 'data', 'api-gzipped.json'), 'utf8')).toBe('{"compressed":true}')

    // Served by the real CLI, the mocks answer the same requests the same way.
    const mock = await startCli(['--routes', join(out, 'routes.json'), '--data', join(out, 'data'), '--latency', '0', '--port', '0', '--no-watch'])
    for (const [index, [name, call]] of CALLS.entries()) {
      const replayed = await see(await call(mock.url))
      const original = recorded[index]!
      expect({ name, status: replayed.status, type: replayed.type, location: replayed.location }).toEqual({ name, status: original.status, type: original.type, location: original.location })
      // A redirect's untyped body is not kept (the mock redirects without one).
      if (original.status !== 302) expect(replayed.body.equals(original.body), name).toBe(true)
    }
    expect(await mock.stop('SIGTERM')).toBe(0)
  })

  it('never writes Authorization, Cookie, Set-Cookie or --redact values, and forwards them untouched', async () => {
    const out = join(tempDir(), 'mocks')
    const recorder = await startCli(['record', '--target', app.url, '--out', out, '--port', '0', '--redact', 'x-api-key', '--redact', 'password', '--redact', 'token'])
    const me = await fetch(`${recorder.url}/api/me?token=${SECRETS.responseToken}`, {
      headers: { authorization: `Bearer ${SECRETS.authorization}`, cookie: `sid=${SECRETS.cookie}; theme=dark`, 'x-api-key': SECRETS.apiKeyHeader },
    })
    // The back end saw the credentials; the client sees the real Set-Cookie.
    expect(me.status).toBe(200)
    expect(me.headers.get('set-cookie')).toContain(SECRETS.setCookie)
    expect(await me.json()).toEqual({ user: 'ada', token: SECRETS.responseToken })
    for (const user of ['ada', 'bob']) {
      const login = await fetch(`${recorder.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, password: SECRETS.bodyPassword }) })
      expect(login.status).toBe(200)
    }
    await expect.poll(() => recorder.stderr().split('\n').filter((l) => / -> /.test(l)).length).toBe(3)
    expect(await recorder.stop('SIGTERM')).toBe(0)

    const everything = filesUnder(out)
    expect(everything.length).toBeGreaterThan(1)
    for (const { path, bytes } of everything) {
      const text = bytes.toString('latin1')
      for (const secret of Object.values(SECRETS)) expect(text.includes(secret), `${secret} in ${path}`).toBe(false)
    }
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    // The answers differ by user only: the password is never a param.
    expect(routes['api/login'].post.map((e: { params: unknown }) => e.params)).toEqual([{ user: 'ada' }, { user: 'bob' }])
    expect(routes['api/me'].get.responseHeader).toBeUndefined()
    expect(JSON.parse(readFileSync(join(out, 'data', 'api-me.json'), 'utf8'))).toEqual({ user: 'ada', token: '[redacted]' })
    expect(recorder.stderr()).not.toContain(SECRETS.responseToken)
  })

  it('a target that does not answer gets 502 JSON naming it; nothing is recorded', async () => {
    const out = join(tempDir(), 'mocks')
    const recorder = await startCli(['record', '--target', 'http://127.0.0.1:9', '--out', out, '--port', '0'])
    const res = await fetch(`${recorder.url}/api/users`)
    expect(res.status).toBe(502)
    expect((await res.json()).message).toContain('the target http://127.0.0.1:9 did not answer')
    expect(await recorder.stop()).toBe(0)
    expect(recorder.stderr()).toContain('0 routes, 0 entries, 0 files written')
  })
})

describe('mockyard record: bad input', () => {
  it('exits 2 without --target or with a target that is not http(s), and 1 when the routes.json to merge into is broken', () => {
    const none = runCli(['record', '--port', '0'])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('mockyard record needs --target: the back end to record.')
    const ftp = runCli(['record', '--target', 'ftp://example.com', '--port', '0'])
    expect(ftp.code).toBe(2)
    expect(ftp.stderr).toContain('the target "ftp://example.com" is not an http or https URL')
    const out = tempDir()
    writeFileSync(join(out, 'routes.json'), '{ "v1/users": { "file": "users.json", } }')
    const broken = runCli(['record', '--target', 'http://127.0.0.1:9', '--out', out, '--port', '0'])
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain(`${join(out, 'routes.json')}#`)
    expect(broken.stderr).toContain('mockyard merges into it and never overwrites it')
    expect(readFileSync(join(out, 'routes.json'), 'utf8')).toBe('{ "v1/users": { "file": "users.json", } }')
  })
})

describe('createRecordWriter', () => {
  const exchange = (method: string, path: string, status: number, body: string | null, extra: Partial<RecordedExchange> = {}): RecordedExchange => ({
    method,
    url: `http://api.test${path}`,
    requestHeaders: [],
    requestBody: null,
    status,
    responseHeaders: body === null ? [] : [['Content-Type', 'application/json']],
    responseBody: body === null ? null : new TextEncoder().encode(body),
    ...extra,
  })

  it('past 500 variants of a method, a request the written entries already answer this way is kept silently; another is skipped', async () => {
    const writer = createRecordWriter({ out: tempDir(), batch: true })
    for (let id = 1; id <= 500; id++) await writer.add(exchange('GET', `/v1/items?id=${id}`, 200, `{"id":${id}}`))
    // The engine's own choice among the written entries answers id 7 with its recorded body.
    expect(await writer.add(exchange('GET', '/v1/items?id=7&extra=1', 200, '{"id":7}'))).toEqual({ route: 'v1/items', method: 'get', path: '/v1/items', file: 'v1-items-7.json' })
    expect(await writer.add(exchange('GET', '/v1/items?id=7&extra=2', 200, '{"id":"changed"}'))).toMatchObject({ skipped: 'v1/items get has 500 variants already' })
    expect(await writer.add(exchange('GET', '/v1/items?id=501', 200, '{"id":501}'))).toMatchObject({ skipped: 'v1/items get has 500 variants already' })
  })

  it('keeps only the params that tell answers apart, and a polled answer as one cycle of a sequence', async () => {
    const out = tempDir()
    const writer = createRecordWriter({ out })
    await writer.add(exchange('GET', '/v1/list?page=1&_=1001', 200, '{"page":1}'))
    await writer.add(exchange('GET', '/v1/list?page=2&_=1002', 200, '{"page":2}'))
    // Already answered this way by the entries written: adds nothing.
    await writer.add(exchange('GET', '/v1/list?page=1&_=1003', 200, '{"page":1}'))
    for (const status of [202, 202, 201, 202, 202, 201]) await writer.add(exchange('GET', '/v1/job', status, status === 201 ? '{"done":true}' : null))
    const form = new URLSearchParams({ kind: 'a', at: '1' }).toString()
    await writer.add(exchange('POST', '/v1/events', 201, '{"kind":"a"}', { requestHeaders: [['content-type', 'application/x-www-form-urlencoded']], requestBody: new TextEncoder().encode(form) }))
    await writer.add(exchange('POST', '/v1/events', 201, '{"kind":"b"}', { requestHeaders: [['content-type', 'application/x-www-form-urlencoded']], requestBody: new TextEncoder().encode('kind=b&at=1') }))

    // A 304 answers a conditional request: not something a mock can replay.
    expect(await writer.add(exchange('GET', '/v1/list', 304, null))).toMatchObject({ skipped: expect.stringContaining('304 Not Modified answers a conditional request') })
    // The back end's own absolute Location becomes a path: the client stays on the mock.
    await writer.add(exchange('GET', '/v1/go', 302, null, { responseHeaders: [['Location', 'http://api.test/v1/list?page=1']] }))
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes['v1/go']).toEqual({ get: { url: '/v1/list?page=1' } })
    expect(routes['v1/list'].get).toEqual([
      { params: { page: '1' }, file: 'v1-list.json' },
      { params: { page: '2' }, file: 'v1-list-2.json' },
    ])
    expect(routes['v1/job'].get).toEqual({ response: [{ status: 202, repeat: 2 }, { status: 201, file: 'v1-job.json' }] })
    expect(routes['v1/events'].post.map((e: { params: unknown }) => e.params)).toEqual([{ kind: 'a' }, { kind: 'b' }])
    expect(writer.summary()).toEqual({ requests: 13, routes: 4, entries: 6, files: 5, clashes: [] })
  })
})

describe('the content type of a recorded file', () => {
  it('keeps the real type when mockyard would serve the file under another: an .xls file is application/octet-stream to it', async () => {
    const out = tempDir()
    const writer = createRecordWriter({ out })
    const body = (text: string) => new TextEncoder().encode(text)
    const answer = (path: string, type: string, text: string): RecordedExchange => ({ method: 'GET', url: `http://api.test${path}`, requestHeaders: [], requestBody: null, status: 200, responseHeaders: [['Content-Type', type]], responseBody: body(text) })
    await writer.add(answer('/v1/sheet', 'application/vnd.ms-excel', 'cells'))
    await writer.add(answer('/v1/page', 'text/html', '<p>hi</p>'))
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes['v1/sheet']).toEqual({ get: { file: 'v1-sheet.xls', responseHeader: { 'Content-Type': 'application/vnd.ms-excel' } } })
    // Served as text/html by its extension already: no header needed.
    expect(routes['v1/page']).toEqual({ get: { file: 'v1-page.html' } })
  })
})

describe('a redirect with a body', () => {
  it('keeps a typed body (Express\'s "Found. Redirecting to"), and the mock answers with the same bytes; X-Powered-By is not kept', async () => {
    const out = tempDir()
    const writer = createRecordWriter({ out })
    const express = 'Found. Redirecting to /v1/new-home'
    await writer.add({
      method: 'GET', url: 'http://api.test/v1/old-home', requestHeaders: [], requestBody: null, status: 302,
      responseHeaders: [['Location', '/v1/new-home'], ['Content-Type', 'text/plain; charset=utf-8'], ['X-Powered-By', 'Express']],
      responseBody: new TextEncoder().encode(express),
    })
    // Untyped bytes beside a Location are not an answer worth keeping: a plain `url`.
    await writer.add({
      method: 'GET', url: 'http://api.test/v1/moved', requestHeaders: [], requestBody: null, status: 301,
      responseHeaders: [['Location', 'http://api.test/v1/here']], responseBody: new TextEncoder().encode('moved'),
    })
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes['v1/old-home']).toEqual({ get: { status: 302, file: 'v1-old-home.txt', responseHeader: { Location: '/v1/new-home' } } })
    expect(routes['v1/moved']).toEqual({ get: { status: 301, url: '/v1/here' } })

    const mock = await startCli(['--routes', join(out, 'routes.json'), '--data', join(out, 'data'), '--latency', '0', '--port', '0', '--no-watch'])
    const replayed = await see(await fetch(`${mock.url}/v1/old-home`, { redirect: 'manual' }))
    expect({ status: replayed.status, type: replayed.type, location: replayed.location, body: replayed.body.toString() })
      .toEqual({ status: 302, type: 'text/plain', location: '/v1/new-home', body: express })
    expect(await mock.stop('SIGTERM')).toBe(0)
  })
})

describe('the record guide\'s example (docs/record.md)', () => {
  it('startRecorder writes the routes.json the guide shows', async () => {
    let polls = 0
    const backEnd = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        const url = new URL(req.url!, 'http://x')
        res.setHeader('content-type', 'application/json')
        if (url.pathname === '/v1/claims') return res.end(JSON.stringify({ status: url.searchParams.get('status') }))
        if (url.pathname === '/v1/upload') {
          res.statusCode = 201
          return res.end('{"stored":true}')
        }
        if (++polls === 1) {
          res.writeHead(202, { Location: '/v1/jobs/42' })
          return res.end('{"state":"running"}')
        }
        res.end('{"state":"done"}')
      })
    })
    await new Promise<void>((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
    const out = join(tempDir(), 'mocks')
    const recorder = await startRecorder({ target: `http://127.0.0.1:${(backEnd.address() as AddressInfo).port}`, out, port: 0 })
    try {
      await fetch(`${recorder.url}/v1/claims?status=open&_=1732094102`)
      await fetch(`${recorder.url}/v1/claims?status=closed&_=1732094107`)
      const form = new FormData()
      form.append('note', 'scan')
      form.append('file', new Blob([new Uint8Array(PDF_BYTES)]), 'invoice.pdf')
      await fetch(`${recorder.url}/v1/upload`, { method: 'POST', body: form })
      await fetch(`${recorder.url}/v1/jobs/42`)
      await fetch(`${recorder.url}/v1/jobs/42`)
    } finally {
      expect(await recorder.stop()).toEqual({ requests: 5, routes: 3, entries: 4, files: 5, clashes: [] })
      backEnd.close()
    }
    const guide = readFileSync(new URL('../../docs/record.md', import.meta.url), 'utf8')
    const shown = /```json\n([\s\S]*?)```/.exec(guide)![1]!
    expect(JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))).toEqual(JSON.parse(shown))
  })
})
