// src/main.ts, before the app starts
import { startWorker } from 'mockyard/browser'

// Local development: the mocks answer in the page. Under Playwright the mock server answers.
if (import.meta.env.DEV && !import.meta.env.VITE_MOCKYARD_URL) await startWorker()

/**
 * The rest of the recipe app: it calls its API the two ways the Playwright guide shows, at the
 * mock server's URL (`VITE_MOCKYARD_URL`, cross-origin) or through the dev server's `/api` proxy,
 * and shows the users on load.
 */
const api = import.meta.env.VITE_MOCKYARD_URL as string

/** Fetches `url` and shows `STATUS FILE` (the `file` field of the JSON data files, or the text). */
async function show(url: string, init?: RequestInit, into = 'out'): Promise<string> {
  const res = await fetch(url, init)
  const text = await res.text()
  let shown = text
  try {
    shown = (JSON.parse(text) as { file?: string }).file ?? text
  } catch {
    // not JSON: show the text
  }
  const line = `${res.status} ${shown}`.trim()
  const target = document.getElementById(into)!
  if (into === 'out') target.append(Object.assign(document.createElement('li'), { textContent: line }))
  else target.textContent = line
  return line
}

Object.assign(window, {
  /** Calls the mock server directly (cross-origin, with credentials). */
  callDirect: (path: string, init?: RequestInit) => show(api + path, { credentials: 'include', ...init }),
  /** Calls it through the Vite proxy (same origin). */
  callProxied: (path: string, init?: RequestInit) => show('/api' + path, init),
})
await show(api + '/v1/users', { credentials: 'include' }, 'users')
document.getElementById('status')!.textContent = `ready: ${api}`
