/**
 * docs/behaviour.md, "Streams and Server-Sent Events", in process (`setupMockServer`): the body
 * fetch resolves with is a stream on the route's schedule (not buffered), `http.get` sees each
 * piece, SSE parsed from a fetch reader, and the test's reset ends what is still open.
 */
import { get as httpGet, type ClientRequest, type IncomingMessage } from 'node:http'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { removeTempDirs, writeMocks } from '../support/routes.js'
import { readChunks, sseReader } from '../support/streams.js'

const mocks = writeMocks(
  {
    'v1/answer': { file: 'answer.ndjson', stream: { by: 'line', delay: 60 } },
    'v1/live': { events: [{ data: { n: 1 } }, { data: 'at ${context}', event: 'note', id: '2', delay: 60 }] },
    'v1/stopping': { events: [{ data: 'one', id: '1' }, { close: 'stop' }] },
    'v1/long': { file: 'answer.ndjson', stream: { by: 'line', delay: 60_000 } },
    'v1/slow-answer': { file: 'answer.ndjson', latency: 50, stream: { by: 'line', delay: 10 } },
  },
  { 'answer.ndjson': '{"token":"Hello"}\n{"token":" world"}\n{"token":"!"}\n' },
)
afterAll(removeTempDirs)

const server = setupMockServer({ routes: mocks.routes })

describe('streams in process', () => {
  it('fetch resolves at once with a body whose lines arrive one by one', async () => {
    const started = performance.now()
    const res = await fetch('http://api.test/v1/answer')
    expect(res.headers.get('content-type')).toBe('application/x-ndjson')
    const arrivals = await readChunks(res.body!)
    expect(arrivals.map((a) => a.text)).toEqual(['{"token":"Hello"}\n', '{"token":" world"}\n', '{"token":"!"}\n'])
    // The last line is due 2 x 60 ms after the answer started, which is after the fetch started.
    expect(arrivals[2]!.at - started).toBeGreaterThan(110)
    expect(server.requests({ path: '/v1/answer' })[0]).toMatchObject({ stream: 'ended' })
  })

  it('http.get sees each piece as it comes', async () => {
    const pieces = await new Promise<string[]>((resolve, reject) => {
      httpGet('http://api.test/v1/answer', (res) => {
        const seen: string[] = []
        res.setEncoding('utf8').on('data', (chunk: string) => seen.push(chunk)).on('end', () => resolve(seen))
      }).on('error', reject)
    })
    expect(pieces.join('')).toBe('{"token":"Hello"}\n{"token":" world"}\n{"token":"!"}\n')
    expect(pieces.length).toBeGreaterThan(1)
  })

  it('serves Server-Sent Events to a fetch reader, with ${context}, and stays open', async () => {
    const res = await fetch('http://api.test/v1/live', { headers: { accept: 'text/event-stream' } })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events = sseReader(res.body!)
    expect(await events.next()).toEqual({ event: 'message', data: '{"n":1}' })
    expect(await events.next()).toEqual({ event: 'note', data: 'at http://api.test', id: '2' })
    await server.waitForRequest((r) => r.route === 'v1/live' && r.stream === 'open')
    expect(await events.idleFor(100)).toBe(true)
    await events.close()
    await server.waitForRequest((r) => r.route === 'v1/live' && r.stream === 'ended', { timeout: 2000 })
  })

  it('answers the reconnect of a stopped stream with 204', async () => {
    expect(await (await fetch('http://api.test/v1/stopping')).text()).toBe('id: 1\ndata: one\n\n')
    expect((await fetch('http://api.test/v1/stopping', { headers: { 'last-event-id': '1' } })).status).toBe(204)
  })

  it("aborting the fetch errors its body, as a real one's, and ends the stream", async () => {
    const controller = new AbortController()
    const res = await fetch('http://api.test/v1/long', { signal: controller.signal })
    const reader = res.body!.getReader()
    await reader.read()
    controller.abort()
    await expect(reader.read()).rejects.toThrow(/abort/i)
    await server.waitForRequest((r) => r.route === 'v1/long' && r.stream === 'ended', { timeout: 2000 })
  })

  it.each([
    ['the request', (req: ClientRequest) => req.destroy()],
    ['the response', (_req: ClientRequest, res: IncomingMessage) => res.destroy()],
  ])('destroying %s of an http.get mid-stream ends the stream, and its timer', async (_what, destroy) => {
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length
    const before = timers()
    await new Promise<void>((resolve, reject) => {
      const req = httpGet('http://api.test/v1/long', (res) => {
        res.once('data', () => {
          destroy(req, res)
          resolve()
        })
      }).on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)))
    })
    await server.waitForRequest((r) => r.route === 'v1/long' && r.stream === 'ended', { timeout: 2000 })
    // The next piece (due in 60 s) is no longer scheduled.
    expect(timers()).toBe(before)
  })

  it('fake timers in the test do not freeze a stream or its latency (mockyard runs on the real clock)', async () => {
    vi.useFakeTimers()
    try {
      for (const path of ['/v1/answer', '/v1/slow-answer']) {
        const res = await fetch(`http://api.test${path}`)
        const arrivals = await readChunks(res.body!)
        expect(arrivals.map((a) => a.text)).toHaveLength(3)
      }
    } finally {
      vi.useRealTimers()
    }
  })

  it("the test's reset ends an open stream: its reader sees the end", async () => {
    const events = sseReader((await fetch('http://api.test/v1/live')).body!)
    await events.next()
    await events.next()
    server.reset()
    expect(await events.next()).toBeUndefined()
  })
})
