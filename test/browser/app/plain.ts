/**
 * An app's entry as docs/browser.md shows it, and nothing more: `startWorker()` with no options
 * takes the route table from the plugin, wherever Vite's `base` puts it.
 */
import { startWorker } from 'mockyard/browser'

const status = document.getElementById('status')!
try {
  Object.assign(window, { mocks: await startWorker() })
  status.textContent = 'ready'
} catch (error) {
  status.textContent = `failed: ${(error as Error).message}`
  throw error
}
