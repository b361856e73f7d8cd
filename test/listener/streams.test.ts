/**
 * docs/behaviour.md, "Streams and Server-Sent Events", over the real listener (`startMockServer`)
 * with the platform's fetch and `http.get`: pieces arrive one by one on their schedule, SSE is
 * parsed as a client parses it, `Last-Event-ID` resumes, `close: "stop"` ends with a `204`, and
 * what is open ends at a client's leaving, a reset and `stop()`, leaving no timer or socket.
 */
import { get as httpGet } from 'node:http'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createMiddleware, startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, removeTempDirs, until, writeMocks } from '../support/routes.js'
import { readChunks, sseReader } from '../support/streams.js'
import { killClis, startCli } from '../cli/support.js'

afterAll(removeTempDirs)

const routes = {
  'v1/answer': { file: 'answer.ndjson', stream: { by: 'line', delay: 60 } },
  'v1/bytes': { file: 'letters.txt', stream: { by: 4, delay: 20 } },
  'v1/slow-answer': { file: 'answer.ndjson', latency: 150, stream: { by: 'line', delay: 10 } },
  'v1/live': {
    events: [{ data: { n: 1 } }, { data: 'second\nline two', event: 'note', id: '2', delay: 60 }, { data: 'at ${context}', id: '3', retry: 1500 }],
  },
  'v1/closing': { events: [{ data: 'only', id: 'a' }, { close: true }] },
  'v1/stopping': { events: [{ data: 'one', id: '1' }, { data: 'two', id: '2' }, { close: 'stop' }] },
  'v1/resumable': { events: [{ data: 'one', id: '1' }, { close: true }, { data: 'two', id: '2' }, { close: true }] },
  'v1/feed': { events: 'feed.json' },
  'v1/long': { file: 'answer.ndjson', stream: { by: 'line', delay: 60_000 } },
  'v1/log': { file: 'log.jsonl' },
  'v1/late-feed': { latency: 300, events: [{ data: 'late' }] },
  'v1/bad-feed': { events: 'bad-feed.json' },
  'v1/not-a-list': { events: 'letters.txt' },
}
const files = {
  'answer.ndjson': '{"token":"Hello"}\n{"token":" world"}\n{"token":"!","self":"${context}/v1/answer"}\n',
  'letters.txt': 'abcdefghij',
  'feed.json': JSON.stringify([{ data: { from: 'file' }, id: 'f1' }]),
  'log.jsonl': '{"a":1}\n{"self":"${context}"}\n',
  'bad-feed.json': JSON.stringify([{ data: 'ok' }, null]),
}

async function withServer(run: (server: RunningServer) => Promise<void>): Promise<void> {
  const mocks = writeMocks(routes, files)
  const server = await startMockServer({ routes: mocks.routes })
  try {
    await run(server)
  } finally {
    await server.stop()
  }
}

describe('stream: a file body in timed pieces', () => {
  it('sends NDJSON a line at a time, chunked: a fetch reader sees the lines arrive one by one', () =>
    withServer(async (server) => {
      const started = performance.now()
      const res = await fetch(`${server.url}/v1/answer`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/x-ndjson')
      expect(res.headers.get('content-length')).toBeNull()
      expect(res.headers.get('transfer-encoding')).toBe('chunked')
      const arrivals = await readChunks(res.body!)
      expect(arrivals.map((a) => a.text)).toEqual(['{"token":"Hello"}\n', '{"token":" world"}\n', `{"token":"!","self":"${server.url}/v1/answer"}\n`])
      // The last line is due 2 x 60 ms after the answer started, which is after the fetch started.
      expect(arrivals[2]!.at - started).toBeGreaterThan(110)
    }))

  it('serves .jsonl (and .ndjson) as application/x-ndjson, with ${context} replaced, whole when not streamed', () =>
    withServer(async (server) => {
      const res = await fetch(`${server.url}/v1/log`)
      expect(res.headers.get('content-type')).toBe('application/x-ndjson')
      expect(res.headers.get('content-length')).not.toBeNull()
      expect(await res.text()).toBe(`{"a":1}\n{"self":"${server.url}"}\n`)
    }))

  it('cuts by bytes, and http.get sees each piece as a data event', () =>
    withServer(async (server) => {
      const pieces = await new Promise<string[]>((resolve, reject) => {
        httpGet(`${server.url}/v1/bytes`, (res) => {
          const seen: string[] = []
          res.setEncoding('utf8').on('data', (chunk: string) => seen.push(chunk)).on('end', () => resolve(seen))
        }).on('error', reject)
      })
      expect(pieces).toEqual(['abcd', 'efgh', 'ij'])
    }))

  it('waits for a client that does not read: the body is produced as it is read, and ends when it was all read', async () => {
    // 4 MB in pieces of 16 bytes, all due at once: far more than the socket's buffers hold.
    const big = 'x'.repeat(4 * 1024 * 1024)
    const mocks = writeMocks({ 'v1/big': { file: 'big.txt', stream: { by: 16, delay: 0 } } }, { 'big.txt': big })
    const server = await startMockServer({ routes: mocks.routes })
    try {
      const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => httpGet(`${server.url}/v1/big`, resolve).on('error', reject))
      res.pause()
      await new Promise((resolve) => setTimeout(resolve, 400))
      // Still being sent: the producer waits for the reader (it used to queue the whole body and
      // call the stream ended before the client read a byte).
      expect(server.requests({ path: '/v1/big' })[0]!.stream).toBe('open')
      let length = 0
      res.on('data', (chunk: Buffer) => (length += chunk.length)).resume()
      await new Promise((resolve) => res.on('end', resolve))
      expect(length).toBe(big.length)
      await until(() => server.requests({ path: '/v1/big' })[0]!.stream === 'ended')
    } finally {
      await server.stop()
    }
  })

  it('sends the headers after the latency, then the first piece at once', () =>
    withServer(async (server) => {
      const started = performance.now()
      const res = await fetch(`${server.url}/v1/slow-answer`)
      expect(performance.now() - started).toBeGreaterThan(120)
      const [first] = await readChunks(res.body!, 1)
      expect(first!.text).toBe('{"token":"Hello"}\n')
    }))
})

describe('events: Server-Sent Events', () => {
  it('answers text/event-stream, no-cache, each event when due, and stays open after the last', () =>
    withServer(async (server) => {
      const res = await fetch(`${server.url}/v1/live`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/event-stream')
      expect(res.headers.get('cache-control')).toBe('no-cache')
      const events = sseReader(res.body!)
      expect(await events.next()).toEqual({ event: 'message', data: '{"n":1}' })
      expect(await events.next()).toEqual({ event: 'note', data: 'second\nline two', id: '2' })
      expect(await events.next()).toEqual({ event: 'message', data: `at ${server.url}`, id: '3', retry: 1500 })
      // Open, as a feed with nothing new is, and recorded as such.
      expect(await events.idleFor(150)).toBe(true)
      expect(server.requests({ path: '/v1/live' })[0]).toMatchObject({ status: 200, route: 'v1/live', stream: 'open' })
      await events.close()
      // The client left: the stream ended, and the log says so.
      await server.waitForRequest((r) => r.route === 'v1/live' && r.stream === 'ended', { timeout: 2000 })
    }))

  it('writes JSON data on one data: line and a multi-line string as several, on the wire', () =>
    withServer(async (server) => {
      const res = await fetch(`${server.url}/v1/live`)
      const [first, second] = await readChunks(res.body!, 2)
      expect(first!.text).toBe('data: {"n":1}\n\n')
      // The third event is due with the second: they may come in one read.
      expect(second!.text).toMatch(/^event: note\nid: 2\ndata: second\ndata: line two\n\n(id: 3\n|$)/)
    }))

  it('ends the stream at { "close": true }', () =>
    withServer(async (server) => {
      const res = await fetch(`${server.url}/v1/closing`)
      expect(await res.text()).toBe('id: a\ndata: only\n\n')
      await server.waitForRequest((r) => r.route === 'v1/closing' && r.stream === 'ended', { timeout: 2000 })
    }))

  it('resumes after Last-Event-ID; an unknown id starts from the beginning', () =>
    withServer(async (server) => {
      const resumed = sseReader((await fetch(`${server.url}/v1/live`, { headers: { 'last-event-id': '2' } })).body!)
      expect(await resumed.next()).toMatchObject({ data: `at ${server.url}`, id: '3' })
      await resumed.close()
      const unknown = sseReader((await fetch(`${server.url}/v1/live`, { headers: { 'last-event-id': 'nope' } })).body!)
      expect(await unknown.next()).toEqual({ event: 'message', data: '{"n":1}' })
      await unknown.close()
      // After a close: true, the reconnect goes on after it.
      expect(await (await fetch(`${server.url}/v1/resumable`, { headers: { 'last-event-id': '1' } })).text()).toBe('id: 2\ndata: two\n\n')
      // A close that is the last item: what follows id 2 is the end of the stream.
      const ended = await fetch(`${server.url}/v1/resumable`, { headers: { 'last-event-id': '2' } })
      expect(ended.status).toBe(200)
      expect(await ended.text()).toBe('')
    }))

  it('close: "stop" ends the stream, and its reconnect (the last id) gets 204', () =>
    withServer(async (server) => {
      const first = await fetch(`${server.url}/v1/stopping`)
      expect(await first.text()).toBe('id: 1\ndata: one\n\nid: 2\ndata: two\n\n')
      const again = await fetch(`${server.url}/v1/stopping`, { headers: { 'last-event-id': '2' } })
      expect(again.status).toBe(204)
      expect(await again.text()).toBe('')
    }))

  it('an events file that holds no list of events answers 500 naming the file, the item and the fix; the server keeps serving', () =>
    withServer(async (server) => {
      const bad = await fetch(`${server.url}/v1/bad-feed`)
      expect(bad.status).toBe(500)
      const body = (await bad.json()) as { message: string }
      expect(body.message).toContain('item 1 of the events file "bad-feed.json" of route v1/bad-feed')
      expect(body.message).toContain('Write each item as')
      const notList = await fetch(`${server.url}/v1/not-a-list`)
      expect(notList.status).toBe(500)
      expect(((await notList.json()) as { message: string }).message).toContain('does not hold a JSON array of events')
      expect((await fetch(`${server.url}/v1/feed`)).status).toBe(200)
    }))

  it('reads the list from a JSON data file', () =>
    withServer(async (server) => {
      const events = sseReader((await fetch(`${server.url}/v1/feed`)).body!)
      expect(await events.next()).toEqual({ event: 'message', data: '{"from":"file"}', id: 'f1' })
      await events.close()
    }))
})

describe('what is open ends, and leaves nothing behind', () => {
  const handles = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout' || kind === 'TCPSocketWrap' || kind === 'TCPServerWrap').length

  it('a client that leaves mid-stream cancels it: its timer is cleared', () =>
    withServer(async (server) => {
      const before = handles()
      const controller = new AbortController()
      const res = await fetch(`${server.url}/v1/long`, { signal: controller.signal })
      const [first] = await readChunks(res.body!, 1)
      expect(first!.text).toBe('{"token":"Hello"}\n')
      controller.abort()
      await server.waitForRequest((r) => r.route === 'v1/long' && r.stream === 'ended', { timeout: 2000 })
      await until(() => handles() <= before, 3000, 'the handles to go back')
    }))

  it('a client that leaves while the latency runs (an EventSource closed at once) ends its stream too', () =>
    withServer(async (server) => {
      const controller = new AbortController()
      const leaving = fetch(`${server.url}/v1/late-feed`, { signal: controller.signal }).catch((error: Error) => error.name)
      await new Promise((resolve) => setTimeout(resolve, 50))
      controller.abort()
      expect(await leaving).toBe('AbortError')
      await expect(server.waitForRequest((r) => r.route === 'v1/late-feed' && r.stream === 'ended', { timeout: 2000 })).resolves.toMatchObject({ stream: 'ended' })
    }))

  it("a reset ends the open streams at once (the client's reader sees the end)", () =>
    withServer(async (server) => {
      const events = sseReader((await fetch(`${server.url}/v1/live`)).body!)
      await events.next()
      await events.next()
      await events.next()
      server.reset()
      expect(await events.next()).toBeUndefined()
    }))

  it('a feed still in its latency when stop() is called starts ended, so it does not hold the stop', async () => {
    const mocks = writeMocks(routes, files)
    const server = await startMockServer({ routes: mocks.routes })
    const pending = fetch(`${server.url}/v1/late-feed`).then((res) => res.text())
    // The request is in its 300 ms latency (it is recorded when it is answered, after it).
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(server.requests()).toHaveLength(0)
    const started = performance.now()
    await server.stop({ graceMs: 10_000 })
    expect(performance.now() - started).toBeLessThan(5000)
    // The latency was work in flight: the answer came, and its stream ended at once.
    expect(await pending).toBe('')
  })

  it('stop() does not wait for a stream whose client stopped reading', async () => {
    const mocks = writeMocks({ 'v1/big': { file: 'big.txt', stream: { by: 65536, delay: 1 } } }, { 'big.txt': 'x'.repeat(8 * 1024 * 1024) })
    const server = await startMockServer({ routes: mocks.routes })
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => httpGet(`${server.url}/v1/big`, resolve).on('error', reject))
    res.pause()
    res.on('error', () => undefined)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = performance.now()
    await server.stop({ graceMs: 10_000 })
    expect(performance.now() - started).toBeLessThan(5000)
    res.destroy()
  })

  it('stop() ends open streams at once (they are not work in flight), and leaves no handle', async () => {
    const before = handles()
    const mocks = writeMocks(routes, files)
    const server = await startMockServer({ routes: mocks.routes })
    const open = await Promise.all([fetch(`${server.url}/v1/live`), fetch(`${server.url}/v1/long`), fetch(`${server.url}/v1/live`)])
    const readers = open.map((res) => readChunks(res.body!))
    const started = performance.now()
    await server.stop({ graceMs: 10_000 })
    // Far below the grace period: nothing waited for the open streams.
    expect(performance.now() - started).toBeLessThan(5000)
    for (const arrivals of await Promise.all(readers)) expect(arrivals.length).toBeGreaterThan(0)
    await until(() => handles() <= before, 3000, 'the handles to go back')
  })
})

describe('the log lines of a stream', () => {
  it('say a stream a truncate cut was cut, and one that ran to its end ended', async () => {
    const logs = captureLogs()
    const mocks = writeMocks({ ...routes, 'v1/cut': { file: 'answer.ndjson', stream: { by: 'line', delay: 10 }, fault: 'truncate' } }, files)
    const server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider })
    try {
      await expect((await fetch(`${server.url}/v1/cut`)).text()).rejects.toThrow()
      await (await fetch(`${server.url}/v1/answer`)).text()
      await until(() => logs.info.filter((line) => / stream (cut|ended) after /.test(line)).length === 2, 3000, 'the end of both streams to be logged')
      const ends = logs.info.filter((line) => / stream (cut|ended) after /.test(line)).map((line) => line.replace(/\d+ms/, 'Nms'))
      expect(ends).toEqual(['GET /v1/cut stream cut after Nms', 'GET /v1/answer stream ended after Nms'])
    } finally {
      await server.stop()
    }
  })
})

describe('the CLI', () => {
  afterEach(killClis)

  it('logs a stream when it starts and when it ends, and SIGTERM ends open streams at once (not after the grace period)', async () => {
    const mocks = writeMocks(routes, files)
    const { child, url, stderr } = await startCli(['--routes', mocks.routes, '--port', '0', '--latency', '0', '--host', '127.0.0.1'])
    const events = sseReader((await fetch(`${url}/v1/live`)).body!)
    await events.next()
    await expect.poll(stderr).toMatch(/GET \/v1\/live 200 v1\/live stream/)
    const closing = sseReader((await fetch(`${url}/v1/closing`)).body!)
    expect(await closing.next()).toMatchObject({ data: 'only' })
    await expect.poll(stderr).toMatch(/GET \/v1\/closing stream ended after \d+ms/)
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve))
    const started = performance.now()
    child.kill('SIGTERM')
    expect(await exit).toBe(0)
    // The grace period for work in flight is 10 s: the open stream did not hold the stop.
    expect(performance.now() - started).toBeLessThan(5000)
  })
})

describe('the admin endpoints and the dashboard', () => {
  it('report a stream: open, then ended; the route table shows events and stream', () =>
    withServer(async (server) => {
      const events = sseReader((await fetch(`${server.url}/v1/live`)).body!)
      await events.next()
      const open = (await (await fetch(`${server.url}/__mockyard/requests`)).json()) as { requests: Array<{ url: string; stream?: string }> }
      expect(open.requests.find((r) => r.url.endsWith('/v1/live'))?.stream).toBe('open')
      const state = (await (await fetch(`${server.url}/__mockyard/dashboard/state`)).json()) as { requests: Array<{ url: string; stream?: string }> }
      expect(state.requests.find((r) => r.url.endsWith('/v1/live'))?.stream).toBe('open')
      await events.close()
      await server.waitForRequest((r) => r.route === 'v1/live' && r.stream === 'ended', { timeout: 2000 })
      const ended = (await (await fetch(`${server.url}/__mockyard/requests`)).json()) as { requests: Array<{ url: string; stream?: string }> }
      expect(ended.requests.find((r) => r.url.endsWith('/v1/live'))?.stream).toBe('ended')
      // The dashboard's live feed asks the page to read the log afresh when a stream ends.
      const feed = sseReader((await fetch(`${server.url}/__mockyard/dashboard/events`)).body!)
      expect(await feed.next()).toMatchObject({ event: 'hello' })
      await (await fetch(`${server.url}/v1/closing`)).text()
      let next = await feed.next()
      while (next && next.event === 'requests') next = await feed.next()
      expect(next).toMatchObject({ event: 'resync' })
      await feed.close()
      const routesView = (await (await fetch(`${server.url}/__mockyard/dashboard/routes`)).json()) as { routes: Array<{ key: string; entries: Array<{ events?: string; stream?: unknown }> }> }
      expect(routesView.routes.find((r) => r.key === 'v1/live')?.entries[0]?.events).toBe('3 events')
      expect(routesView.routes.find((r) => r.key === 'v1/answer')?.entries[0]?.stream).toEqual({ by: 'line', delay: 60 })
    }))
})

describe('the middleware', () => {
  it('streams through express, piece by piece, and close() ends an open stream', async () => {
    const mocks = writeMocks(routes, files)
    const middleware = await createMiddleware({ routes: mocks.routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const app = express()
    app.use('/mock', middleware)
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mock`
    try {
      const arrivals = await readChunks((await fetch(`${base}/v1/answer`)).body!)
      expect(arrivals.map((a) => a.text)).toHaveLength(3)
      const events = sseReader((await fetch(`${base}/v1/live`)).body!)
      expect(await events.next()).toMatchObject({ data: '{"n":1}' })
      await middleware.close()
      await events.next()
      await events.next()
      expect(await events.next()).toBeUndefined()
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
