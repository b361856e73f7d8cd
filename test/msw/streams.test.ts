/**
 * docs/behaviour.md, "Streams and Server-Sent Events", through mockyard's msw handlers in an
 * app's own `setupServer` (msw 2 and 3): the body streams on schedule, and msw's
 * `resetHandlers()` ends a stream that is still open.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileRoutes, memoryFiles } from 'mockyard'
import { createRouteHandlers } from 'mockyard/msw'
import { readChunks, sseReader } from '../support/streams.js'

const table = compileRoutes([
  {
    file: 'inline',
    routes: {
      'v1/answer': { file: 'answer.ndjson', stream: { by: 'line', delay: 40 } },
      'v1/live': { events: [{ data: 'one' }, { data: 'two', delay: 20 }] },
    },
    files: memoryFiles({ 'answer.ndjson': 'a\nb\nc\n' }),
  },
])
const server = setupServer(...createRouteHandlers(table))
beforeAll(() => server.listen())
afterAll(() => server.close())

describe('streams through createRouteHandlers', () => {
  it('sends the lines one by one', async () => {
    const started = performance.now()
    const arrivals = await readChunks((await fetch('http://api.test/v1/answer')).body!)
    expect(arrivals.map((a) => a.text)).toEqual(['a\n', 'b\n', 'c\n'])
    // The last line is due 2 x 40 ms after the answer started, which is after the fetch started.
    expect(arrivals[2]!.at - started).toBeGreaterThan(75)
  })

  it("msw's resetHandlers() ends an open event stream", async () => {
    const events = sseReader((await fetch('http://api.test/v1/live')).body!)
    expect(await events.next()).toMatchObject({ data: 'one' })
    expect(await events.next()).toMatchObject({ data: 'two' })
    server.resetHandlers()
    expect(await events.next()).toBeUndefined()
  })
})
