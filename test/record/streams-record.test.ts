/**
 * docs/behaviour.md, "Record, import and proxy": a recorded `text/event-stream` answer becomes
 * `events` with the delays it came with, and a chunked answer whose pieces came over time keeps
 * its pace as `stream`; the written mocks replay them (a real back end, the recorder, then the
 * listener over the files it wrote).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importHar, startMockServer, startRecorder } from 'mockyard/node'
import { readChunks, sseReader } from '../support/streams.js'

let app: Server
let appUrl: string
const dir = mkdtempSync(join(tmpdir(), 'mockyard-record-streams-'))
const REPORT_ROWS = Array.from({ length: 400 }, (_, i) => JSON.stringify({ i, name: `row${i}`, pad: 'x'.repeat(50) })).join(',')

/** The back end: an event feed (three events, 80 ms apart, then it ends) and NDJSON a line every 60 ms. */
beforeAll(async () => {
  app = createServer((req, res) => {
    const send = (pieces: string[], gap: number) => {
      let i = 0
      const next = () => {
        res.write(pieces[i++]!)
        if (i < pieces.length) setTimeout(next, gap)
        else res.end()
      }
      next()
    }
    if (req.url === '/feed') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      send([': hello\n\ndata: {"n":1}\nid: 1\n\n', 'event: note\ndata: two\ndata: lines\nid: 2\n\n', 'data: 3\nretry: 500\n\n'], 80)
    } else if (req.url === '/answer') {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' })
      send(['{"t":"a"}\n', '{"t":"b"}\n', '{"t":"c"}\n', '{"t":"d"}\n'], 60)
    } else if (req.url === '/report') {
      // A streaming JSON serializer: "[", 31 KB of rows after a 20 ms query, "]" 20 ms later.
      res.writeHead(200, { 'content-type': 'application/json' })
      send(['[', REPORT_ROWS, ']'], 20)
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => app.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

describe('record with streams', () => {
  it('writes an event stream as events with their delays, a paced chunked answer with its stream, and replays both', async () => {
    const out = join(dir, 'mocks')
    const recorder = await startRecorder({ target: appUrl, out, port: 0, host: '127.0.0.1' })
    expect(await (await fetch(`${recorder.url}/feed`)).text()).toContain('data: 3')
    expect(await (await fetch(`${recorder.url}/answer`)).text()).toBe('{"t":"a"}\n{"t":"b"}\n{"t":"c"}\n{"t":"d"}\n')
    await recorder.stop()

    const routes = JSON.parse(readFileSync(recorder.routesFile, 'utf8')) as Record<string, { get: { events?: Array<Record<string, unknown>>; stream?: { by: unknown; delay: number }; file?: string } }>
    const events = routes.feed!.get.events!
    expect(events.map(({ delay: _delay, ...event }) => event)).toEqual([{ data: { n: 1 }, id: '1' }, { data: 'two\nlines', event: 'note', id: '2' }, { data: '3', retry: 500 }, { close: true }])
    // The delays as they came (80 ms apart), within generous margins.
    expect(events[1]!.delay).toBeGreaterThanOrEqual(50)
    expect(events[2]!.delay).toBeGreaterThanOrEqual(50)
    const answer = routes.answer!.get
    expect(answer.stream?.by).toBe('line')
    expect(answer.stream?.delay).toBeGreaterThanOrEqual(40)

    const server = await startMockServer({ routes: recorder.routesFile })
    try {
      const replay = sseReader((await fetch(`${server.url}/feed`)).body!)
      expect(await replay.next()).toEqual({ event: 'message', data: '{"n":1}', id: '1' })
      expect(await replay.next()).toEqual({ event: 'note', data: 'two\nlines', id: '2' })
      expect(await replay.next()).toEqual({ event: 'message', data: '3', retry: 500 })
      expect(await replay.next()).toBeUndefined()
      const lines = await readChunks((await fetch(`${server.url}/answer`)).body!)
      expect(lines.map((piece) => piece.text)).toEqual(['{"t":"a"}\n', '{"t":"b"}\n', '{"t":"c"}\n', '{"t":"d"}\n'])
    } finally {
      await server.stop()
    }
  })
})

describe('the pace of a chunked answer', () => {
  it('replays in about the time it took: pieces of 1 byte, 31 KB and 1 byte 20 ms apart are not sent a byte at a time', async () => {
    const out = join(dir, 'paced')
    const recorder = await startRecorder({ target: appUrl, out, port: 0, host: '127.0.0.1' })
    expect((await (await fetch(`${recorder.url}/report`)).text()).length).toBe(REPORT_ROWS.length + 2)
    await recorder.stop()
    const routes = JSON.parse(readFileSync(recorder.routesFile, 'utf8')) as Record<string, { get: { stream?: { by: number | string; delay: number } } }>
    const stream = routes.report!.get.stream!
    expect(stream.by).toBeGreaterThan(1000)
    expect(stream.delay).toBeGreaterThanOrEqual(15)

    const server = await startMockServer({ routes: recorder.routesFile })
    try {
      const started = performance.now()
      expect(await (await fetch(`${server.url}/report`)).text()).toBe(`[${REPORT_ROWS}]`)
      // Recorded over about 40 ms: a byte per 20 ms would take over ten minutes.
      expect(performance.now() - started).toBeLessThan(2000)
    } finally {
      await server.stop()
    }
  })
})

describe('import with streams', () => {
  it('writes an event stream of a HAR as events, without delays (a HAR has no timing per piece)', async () => {
    const out = join(dir, 'imported')
    const har = join(dir, 'feed.har')
    writeFileSync(
      har,
      JSON.stringify({
        log: {
          version: '1.2',
          creator: { name: 'test', version: '1' },
          entries: [
            {
              startedDateTime: '2026-01-01T00:00:00.000Z',
              time: 10,
              request: { method: 'GET', url: 'https://api.example.com/v1/ticker', httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
              response: {
                status: 200,
                statusText: 'OK',
                httpVersion: 'HTTP/1.1',
                headers: [{ name: 'Content-Type', value: 'text/event-stream' }],
                cookies: [],
                content: { size: 40, mimeType: 'text/event-stream', text: 'data: {"p":1}\n\nevent: end\ndata: bye\n\n' },
                redirectURL: '',
                headersSize: -1,
                bodySize: -1,
              },
              cache: {},
              timings: { send: 0, wait: 5, receive: 5 },
            },
          ],
        },
      }),
    )
    await importHar(har, { out })
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')) as Record<string, { get: { events?: unknown } }>
    expect(routes['v1/ticker']!.get.events).toEqual([{ data: { p: 1 } }, { data: 'bye', event: 'end' }, { close: true }])
  })
})
