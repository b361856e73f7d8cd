/**
 * Without the plugin's config: a route table written by hand, with one file inline and the
 * others fetched from a static data folder (here the plugin's, but any URL serving the files
 * does). No latency given: the browser default, 250 ms, applies. Requests no route answers fail.
 */
import { startWorker } from 'mockyard/browser'

const mocks = await startWorker({
  config: {
    sources: [
      {
        file: 'manual.ts',
        routes: { 'v1/hello': { file: 'hello.txt' }, 'v1/report': { file: 'report.pdf' } },
        files: { 'hello.txt': 'hello from ${context}' },
        dataUrl: '/@mockyard/data/0/',
      },
    ],
  },
  onUnhandledRequest: 'error',
})
Object.assign(window, { mocks })
document.getElementById('status')!.textContent = 'ready'
