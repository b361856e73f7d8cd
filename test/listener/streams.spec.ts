/**
 * docs/behaviour.md, "Streams and Server-Sent Events", over the listener in Chromium: the
 * browser's own `EventSource` gets each event when due, reconnects after a `close: true` with
 * its `Last-Event-ID` (resuming after it), and stops at the `204` of a `close: "stop"`.
 */
import { expect, test } from '@playwright/test'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startMockServer, type RunningServer } from 'mockyard/node'

let server: RunningServer
let dir: string

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mockyard-streams-spec-'))
  mkdirSync(join(dir, 'data'))
  writeFileSync(join(dir, 'data', 'page.html'), '<!doctype html><title>feed</title>')
  writeFileSync(
    join(dir, 'routes.json'),
    JSON.stringify({
      page: { file: 'page.html' },
      'v1/live': { events: [{ data: { n: 1 }, id: '1' }, { data: 'second', event: 'note', id: '2', delay: 150 }] },
      'v1/feed': {
        events: [{ data: 'one', id: '1', retry: 50 }, { close: true }, { data: 'two', id: '2', delay: 50 }, { close: 'stop' }],
      },
    }),
  )
  server = await startMockServer({ routes: join(dir, 'routes.json') })
})
test.afterAll(async () => {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
})

test("the browser's EventSource gets each event when due", async ({ page }) => {
  await page.goto(`${server.url}/page`)
  const seen = await page.evaluate(
    () =>
      new Promise<Array<{ type: string; data: string; at: number }>>((resolve) => {
        const source = new EventSource('/v1/live')
        const started = performance.now()
        const events: Array<{ type: string; data: string; at: number }> = []
        const note = (event: MessageEvent) => {
          events.push({ type: event.type, data: event.data as string, at: performance.now() - started })
          if (events.length === 2) {
            source.close()
            resolve(events)
          }
        }
        source.addEventListener('message', note)
        source.addEventListener('note', note)
      }),
  )
  expect(seen.map(({ type, data }) => [type, data])).toEqual([
    ['message', '{"n":1}'],
    ['note', 'second'],
  ])
  // Due 150 ms after the answer started, which is after the EventSource was made.
  expect(seen[1]!.at).toBeGreaterThan(140)
})

test('EventSource reconnects with Last-Event-ID after close: true, resumes, and stops at the 204 of close: "stop"', async ({ page }) => {
  await page.goto(`${server.url}/page`)
  const result = await page.evaluate(
    () =>
      new Promise<{ data: string[]; readyState: number }>((resolve) => {
        const source = new EventSource('/v1/feed')
        const data: string[] = []
        source.onmessage = (event) => data.push(event.data as string)
        // After the 204 the browser gives up: readyState CLOSED (2).
        source.onerror = () => {
          if (source.readyState === EventSource.CLOSED) resolve({ data, readyState: source.readyState })
        }
      }),
  )
  expect(result).toEqual({ data: ['one', 'two'], readyState: 2 })
  const feeds = server.requests({ path: '/v1/feed' })
  expect(feeds.map((r) => [r.headers['last-event-id'] ?? null, r.status])).toEqual([
    [null, 200],
    ['1', 200],
    ['2', 204],
  ])
})
