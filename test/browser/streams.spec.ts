/**
 * docs/behaviour.md, "Streams and Server-Sent Events", through msw's service worker in Chromium:
 * the browser's own `EventSource` and a fetch reader get the events of
 * `v1/browser-live` (test/browser/app/mocks/routes.json) one by one, on their schedule.
 */
import { expect, test } from '@playwright/test'
import type { MockyardWorker } from 'mockyard/browser'
import { openApp } from './support.js'

type AppWindow = Window & { mocks: MockyardWorker }

test.describe('streams through the worker', () => {
  test("the browser's EventSource gets each event when due", async ({ page }) => {
    await openApp(page)
    const seen = await page.evaluate(
      () =>
        new Promise<Array<{ type: string; data: string; id: string; at: number }>>((resolve, reject) => {
          const source = new EventSource('/v1/browser-live')
          const started = performance.now()
          const events: Array<{ type: string; data: string; id: string; at: number }> = []
          const note = (event: MessageEvent) => {
            events.push({ type: event.type, data: event.data as string, id: event.lastEventId, at: performance.now() - started })
            if (events.length === 3) {
              source.close()
              resolve(events)
            }
          }
          source.addEventListener('message', note)
          source.addEventListener('note', note)
          source.onerror = () => events.length === 0 && reject(new Error('EventSource failed'))
        }),
    )
    expect(seen.map(({ type, data, id }) => ({ type, data, id }))).toEqual([
      { type: 'message', data: '{"n":1}', id: '1' },
      { type: 'note', data: 'second', id: '2' },
      { type: 'message', data: 'third', id: '3' },
    ])
    // Due 2 x 150 ms after the answer started, which is after the EventSource was made.
    expect(seen[2]!.at).toBeGreaterThan(280)
    const logged = await page.evaluate(() => (window as unknown as AppWindow).mocks.requests({ path: '/v1/browser-live' }).map((r) => r.stream))
    expect(logged[0]).toBeDefined()
  })

  test('a fetch reader sees the events arrive apart, and Last-Event-ID resumes', async ({ page }) => {
    await openApp(page)
    const reads = await page.evaluate(async () => {
      const started = performance.now()
      const res = await fetch('/v1/browser-live')
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      const out: Array<{ text: string; at: number }> = []
      let text = ''
      while (!text.includes('third')) {
        const { value } = await reader.read()
        const piece = decoder.decode(value)
        text += piece
        out.push({ text: piece, at: performance.now() - started })
      }
      await reader.cancel()
      const resumed = await fetch('/v1/browser-live', { headers: { 'last-event-id': '2' } })
      const first = await resumed.body!.getReader().read()
      return { type: res.headers.get('content-type'), out, resumed: decoder.decode(first.value) }
    })
    expect(reads.type).toBe('text/event-stream')
    expect(reads.out.length).toBeGreaterThanOrEqual(3)
    expect(reads.out[0]!.text).toBe('id: 1\ndata: {"n":1}\n\n')
    expect(reads.out.at(-1)!.at).toBeGreaterThan(280)
    expect(reads.resumed).toBe('id: 3\ndata: third\n\n')
  })

  test("an EventSource's reconnect resumes after the last id, and a stopped feed ends it", async ({ page }) => {
    await openApp(page, '/rules.html')
    // Chromium gives the worker no Last-Event-ID: the worker keeps the feed's last id for the reconnect.
    const listen = (path: string) =>
      page.evaluate(
        (p) =>
          new Promise<{ data: string[]; state: number }>((resolve, reject) => {
            const source = new EventSource(p)
            const data: string[] = []
            source.onmessage = (event) => data.push(event.data as string)
            source.onerror = () => {
              if (source.readyState === EventSource.CLOSED) resolve({ data, state: source.readyState })
              else if (data.length > 4) reject(new Error(`the feed replays: ${data.join(' ')}`))
            }
          }),
        path,
      )
    const feedLog = (path: string) => page.evaluate((p) => (window as unknown as AppWindow).mocks.requests({ path: p }).map((r) => [r.status, r.headers['last-event-id'] ?? null]), path)
    expect(await listen('/v1/feed-stop')).toEqual({ data: ['a', 'b'], state: 2 })
    expect(await feedLog('/v1/feed-stop')).toEqual([
      [200, null],
      [204, '2'],
    ])
    // close: true ends the stream; the reconnect goes on after it, then close: "stop".
    expect(await listen('/v1/feed-resume')).toEqual({ data: ['a', 'b'], state: 2 })
    expect(await feedLog('/v1/feed-resume')).toEqual([
      [200, null],
      [200, '1'],
      [204, '2'],
    ])
    // A reset forgets the ids: an EventSource opened after it starts the feed again.
    const firstConnection = (path: string) =>
      page.evaluate(
        (p) =>
          new Promise<string[]>((resolve) => {
            const source = new EventSource(p)
            const data: string[] = []
            source.onmessage = (event) => data.push(event.data as string)
            source.onerror = () => {
              source.close()
              resolve(data)
            }
          }),
        path,
      )
    expect(await firstConnection('/v1/feed-resume')).toEqual(['a'])
    await page.evaluate(() => (window as unknown as AppWindow).mocks.reset())
    expect(await firstConnection('/v1/feed-resume')).toEqual(['a'])
  })
})
