import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { globalSetup } from 'mockyard/playwright'

const examples = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))

/** A small app page on its own loopback origin: it calls the listener cross-origin with credentials. */
const APP_PAGE = `<!doctype html><html><body><ul id="out"></ul><script>
  const api = new URLSearchParams(location.search).get('api')
  window.call = async (path, init = {}) => {
    const res = await fetch(api + path, { credentials: 'include', ...init })
    const text = await res.text()
    const li = document.createElement('li')
    li.textContent = res.status + ' ' + (text ? (JSON.parse(text).file ?? text) : '') + ' ' + (res.headers.get('location') ?? '')
    document.getElementById('out').append(li)
    return li.textContent
  }
  window.header = async (path, name) => (await fetch(api + path, { credentials: 'include' })).headers.get(name)
</script></body></html>`

// One listener for every worker; each test gets its own session on it.
const startMockyard = globalSetup({ routes: examples + 'routes.json', data: examples + 'data' })

export default async function setup() {
  const stopMockyard = await startMockyard()
  const app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(APP_PAGE))
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  process.env.APP_URL = `http://localhost:${(app.address() as AddressInfo).port}/`
  return async () => {
    app.closeAllConnections()
    app.close()
    await stopMockyard()
  }
}
