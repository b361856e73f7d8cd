/**
 * A small app that calls its API the two ways the recipe shows: at the mock server's URL given
 * by Vite (`VITE_MOCKYARD_URL`, cross-origin) or through the dev server's `/api` proxy. It does
 * not call startWorker(): a service worker would answer in the page and the listener (its
 * sessions and request log) would never see the requests.
 */
const api = import.meta.env.VITE_MOCKYARD_URL as string

async function show(url: string, init?: RequestInit): Promise<string> {
  const res = await fetch(url, init)
  const text = await res.text()
  let shown = text
  try {
    shown = (JSON.parse(text) as { file?: string }).file ?? text
  } catch {
    // not JSON: show the text
  }
  const line = `${res.status} ${shown}`.trim()
  const li = document.createElement('li')
  li.textContent = line
  document.getElementById('out')!.append(li)
  return line
}

Object.assign(window, {
  /** Calls the mock server directly (cross-origin, with credentials). */
  callDirect: (path: string, init?: RequestInit) => show(api + path, { credentials: 'include', ...init }),
  /** Calls it through the Vite proxy (same origin). */
  callProxied: (path: string, init?: RequestInit) => show('/api' + path, init),
})
document.getElementById('status')!.textContent = `ready: ${api}`
