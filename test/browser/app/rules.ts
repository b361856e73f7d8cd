/**
 * What the worker's routes answer and what they leave to the page (docs/browser.md, "What the
 * worker answers"): a route table given by hand, latency 0. `?catch-all` adds a `"*"` route,
 * `?unhandled=error` fails the requests no route answers; feeds end with `close` items
 * (docs/streams.md). `attempt()` fetches a URL and says what the page saw.
 */
import { startWorker } from 'mockyard/browser'
import type { RoutesConfig } from 'mockyard'

const query = new URLSearchParams(location.search)
const routes: RoutesConfig = {
  'v1/report': { file: 'report.json' },
  'img/:name': { file: 'dot.svg' },
  'v1/feed-stop': { events: [{ data: 'a', id: '1', retry: 50 }, { data: 'b', id: '2' }, { close: 'stop' }] },
  'v1/feed-resume': { events: [{ data: 'a', id: '1', retry: 50 }, { close: true }, { data: 'b', id: '2' }, { close: 'stop' }] },
  ...(query.has('catch-all') ? { '*': { status: 404, file: 'report.json' } } : {}),
}

const mocks = await startWorker({
  config: { sources: [{ file: 'rules.ts', routes, files: { 'report.json': '{"report":true}', 'dot.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>' } }] },
  latency: 0,
  onUnhandledRequest: (query.get('unhandled') as 'error' | null) ?? 'warn',
})

/** What the page sees for one request: `<status> <content type>`, or `failed: <error name>`. */
async function attempt(url: string, init?: RequestInit): Promise<string> {
  try {
    const res = await fetch(url, init)
    await res.arrayBuffer()
    return `${res.status} ${res.headers.get('content-type')}`
  } catch (error) {
    return `failed: ${(error as Error).name}`
  }
}

Object.assign(window, { mocks, attempt })
document.getElementById('status')!.textContent = 'ready'
