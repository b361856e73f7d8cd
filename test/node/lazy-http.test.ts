/**
 * setupMockServer() loads @mswjs/interceptors' ClientRequest interceptor on the first http/https
 * request only (a test file that only uses fetch never pays for it); requests made through
 * `node:http` imported or required at any time are intercepted all the same.
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'

const overrides = fileURLToPath(new URL('../fixtures/overrides/', import.meta.url))
setupMockServer({ routes: `${overrides}routes.json`, data: `${overrides}data` })

function get(module: typeof import('node:http'), url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    module
      .get(url, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      .on('error', reject)
  })
}

/** Whether the CommonJS build of the ClientRequest interceptor has been loaded in this process. */
const interceptorLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => /@mswjs[\\/]interceptors[\\/].*ClientRequest/.test(path))

/** The interceptor, once applied, replaces the global Fetch classes with recording Proxies. */
const nativeHeaders = globalThis.Headers

it('fetch alone does not load the http interceptor', async () => {
  const response = await fetch('http://api.test/v1/users')
  expect(await response.json()).toEqual({ overridden: 'from its own data folder' })
  expect(interceptorLoaded()).toBe(false)
  expect(globalThis.Headers).toBe(nativeHeaders)
})

it('node:http imported after the start is intercepted', async () => {
  const http = await import('node:http')
  const answer = await get(http, 'http://api.test/v1/users')
  expect(interceptorLoaded()).toBe(true)
  expect(answer.status).toBe(200)
  expect(JSON.parse(answer.body)).toEqual({ overridden: 'from its own data folder' })
})

it('require("https") and a kept reference to get are intercepted too', async () => {
  const { get: httpsGet } = createRequire(import.meta.url)('https') as typeof import('node:https')
  const response = await new Promise<number>((resolve, reject) => httpsGet('https://api.test/v1/users', (res) => resolve(res.statusCode ?? 0)).on('error', reject))
  expect(response).toBe(200)
})
