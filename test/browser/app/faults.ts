/**
 * Faults in the page (docs/behaviour.md, "Faults"): a route table given by hand, with every
 * fault, latency 0. `attempt()` fetches a path and says what the page saw.
 */
import { startWorker } from 'mockyard/browser'

const mocks = await startWorker({
  config: {
    sources: [
      {
        file: 'faults.ts',
        routes: {
          'v1/flaky': { fault: 'reset' },
          'v1/closed': { fault: 'close' },
          'v1/stuck': { fault: 'hang' },
          'v1/cut': { file: 'report.json', fault: 'truncate' },
          'v1/cut-stream': { file: 'lines.txt', stream: { by: 'line' }, fault: 'truncate' },
          'v1/retry': { get: [{ response: [{ fault: 'reset' }, { status: 503 }, { file: 'report.json' }] }] },
        },
        files: { 'report.json': JSON.stringify({ rows: Array.from({ length: 50 }, (_, i) => ({ id: i })) }), 'lines.txt': Array.from({ length: 10 }, (_, i) => `line ${i}\n`).join('') },
      },
    ],
  },
  latency: 0,
  onUnhandledRequest: 'error',
})

/** What the page sees for one request: `200 <body>`, `200 body failed: TypeError`, or `failed: <error name>`. */
async function attempt(path: string, timeout?: number): Promise<string> {
  let res: Response
  try {
    res = await fetch(path, timeout === undefined ? {} : { signal: AbortSignal.timeout(timeout) })
  } catch (error) {
    return `failed: ${(error as Error).name}`
  }
  try {
    return `${res.status} ${await res.text()}`
  } catch (error) {
    return `${res.status} body failed: ${(error as Error).name}`
  }
}

Object.assign(window, { mocks, attempt })
document.getElementById('status')!.textContent = 'ready'
