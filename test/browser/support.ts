/**
 * Helpers of the worker tests: a page of the Vite app with the worker running, and `fetch` run
 * inside such a page (request and response carried across `page.evaluate` as plain data).
 */
import { expect, test, type Page, type TestInfo } from '@playwright/test'

/** What a worker project says about its app (playwright.config.ts). */
export interface AppProject {
  /** The msw package the app runs on: `msw` (3) or `msw2` (2.15). */
  msw: 'msw' | 'msw2'
  /** The environment variable holding the app's URL. */
  appUrlEnv: string
}

export const projectOf = (info: TestInfo = test.info()) => info.project.metadata as AppProject

/** The app's dev server of this project (examples fixture plus the app's routes, latency 0). */
export const APP_URL = (info?: TestInfo) => process.env[projectOf(info).appUrlEnv]!

/** Console messages of a page, as `type: text`. */
export function collectConsole(page: Page): string[] {
  const messages: string[] = []
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`))
  return messages
}

/** Opens a page of the app and waits until `startWorker()` has resolved. */
export async function openApp(page: Page, path = '', base = APP_URL()): Promise<void> {
  await page.goto(new URL(path, base).href)
  await expect(page.locator('#status')).toHaveText('ready', { timeout: 20_000 })
}

type SerializedBody =
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; base64: string }
  | { kind: 'form'; fields: Array<{ name: string; value?: string; file?: { name: string; type: string; base64: string } }> }

interface SerializedResponse {
  status: number
  statusText: string
  type: string
  url: string
  redirected: boolean
  headers: Array<[string, string]>
  base64: string
}

const toBase64 = (bytes: ArrayBuffer | ArrayBufferView) =>
  Buffer.from(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('base64')

/** Turns a `RequestInit` body into plain data that `page.evaluate` can carry. */
async function serializeBody(body: BodyInit | null | undefined): Promise<SerializedBody | undefined> {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return { kind: 'text', text: body }
  if (body instanceof URLSearchParams) return { kind: 'text', text: body.toString() }
  if (body instanceof FormData) {
    const fields: Extract<SerializedBody, { kind: 'form' }>['fields'] = []
    for (const [name, value] of body) {
      if (typeof value === 'string') fields.push({ name, value })
      else fields.push({ name, file: { name: value.name, type: value.type, base64: toBase64(await value.arrayBuffer()) } })
    }
    return { kind: 'form', fields }
  }
  if (body instanceof Blob) return { kind: 'bytes', base64: toBase64(await body.arrayBuffer()) }
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return { kind: 'bytes', base64: toBase64(body) }
  throw new TypeError(`pageFetch: a ${Object.prototype.toString.call(body)} body cannot be sent into the page`)
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

/** Rebuilds a Node `Response` from what the page saw (opaque redirects included). */
function rebuildResponse(seen: SerializedResponse): Response {
  const extra: PropertyDescriptorMap = {
    url: { value: seen.url },
    redirected: { value: seen.redirected },
  }
  if (seen.status === 0) {
    // An opaque redirect (or a network error): no status, no headers, no body.
    const response = new Response(null)
    return Object.defineProperties(response, { ...extra, status: { value: 0 }, ok: { value: false }, statusText: { value: '' }, type: { value: seen.type } })
  }
  const body = NULL_BODY_STATUSES.has(seen.status) ? null : Buffer.from(seen.base64, 'base64')
  const response = new Response(body, { status: seen.status, statusText: seen.statusText, headers: seen.headers })
  return Object.defineProperties(response, { ...extra, type: { value: seen.type } })
}

/**
 * `fetch` run by the page (so through its service worker): a path of the page's origin, the
 * init's method, headers, body (text, bytes, `FormData` with files) and redirect mode.
 */
export async function pageFetch(page: Page, path: string, init: RequestInit = {}): Promise<Response> {
  const request = {
    path,
    method: init.method,
    headers: [...new Headers(init.headers)],
    body: await serializeBody(init.body),
    redirect: init.redirect,
  }
  const seen = await page.evaluate(async ({ path, method, headers, body, redirect }) => {
    const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
    let payload: BodyInit | undefined
    if (body?.kind === 'text') payload = body.text
    else if (body?.kind === 'bytes') payload = fromBase64(body.base64)
    else if (body?.kind === 'form') {
      const form = new FormData()
      for (const field of body.fields) {
        if (field.file) form.append(field.name, new File([fromBase64(field.file.base64)], field.file.name, { type: field.file.type }))
        else form.append(field.name, field.value ?? '')
      }
      payload = form
    }
    let res: Response
    try {
      res = await fetch(path, { method, headers, body: payload, redirect })
    } catch (error) {
      // A network error (a fault's): rethrown below as the page saw it.
      return { failed: { name: (error as Error).name, message: (error as Error).message } }
    }
    const bytes = new Uint8Array(await res.arrayBuffer())
    let binary = ''
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
    return {
      status: res.status,
      statusText: res.statusText,
      type: res.type,
      url: res.url,
      redirected: res.redirected,
      headers: [...res.headers] as Array<[string, string]>,
      base64: btoa(binary),
    }
  }, request)
  if ('failed' in seen && seen.failed) {
    const { name, message } = seen.failed
    throw name === 'TypeError' ? new TypeError(message) : Object.assign(new Error(message), { name })
  }
  return rebuildResponse(seen)
}
