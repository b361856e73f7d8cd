/**
 * docs/behaviour.md, "Requests on the wire": a form (urlencoded or multipart) with more than
 * 1,000 fields is a 413 JSON naming the limit, on every surface that parses forms (listener,
 * middleware, in process), never read cut short to its first 1,000 fields.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandlers, createMiddleware, startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, named, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

// Without the limit, the 1,001-field form would be cut to its first 1,000 and answer default.json.
const routes = { 'v1/forms': { file: 'default.json', post: [{ params: { p1001: 'x' }, file: 'last.json' }] } }
const files = named('default.json', 'last.json')

const urlencoded = (count: number) => ({
  body: Array.from({ length: count }, (_, i) => `p${i + 1}=x`).join('&'),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
})
const multipart = (count: number) => ({
  body: Array.from({ length: count }, (_, i) => `--B\r\nContent-Disposition: form-data; name="p${i + 1}"\r\n\r\nx\r\n`).join('') + '--B--\r\n',
  headers: { 'content-type': 'multipart/form-data; boundary=B' },
})

interface Answer {
  status: number
  body: { error?: string; message?: string; limit?: number; file?: string }
}

async function post(base: string, form: { body: string; headers: Record<string, string> }): Promise<Answer> {
  const res = await fetch(`${base}/v1/forms`, { method: 'POST', ...form })
  return { status: res.status, body: (await res.json()) as Answer['body'] }
}

function expectLimit(answer: Answer, kind: string): void {
  expect(answer.status).toBe(413)
  expect(answer.body.error).toBe('Payload Too Large')
  expect(answer.body.limit).toBe(1000)
  expect(answer.body.message).toContain(`POST /v1/forms: the ${kind} form has more than 1000 fields`)
  expect(answer.body.message).toContain('Send at most 1000 fields')
}

/** The same checks on one surface, reached at `base()`. */
function formLimitChecks(base: () => string): void {
  it('a 1,001-field urlencoded form: 413 naming the limit', async () => {
    expectLimit(await post(base(), urlencoded(1001)), 'urlencoded')
  })

  it('a 1,001-field multipart form: 413 naming the limit', async () => {
    expectLimit(await post(base(), multipart(1001)), 'multipart')
  })

  it('1,000 fields are read whole, and the surface keeps serving', async () => {
    expect(await post(base(), urlencoded(1000))).toEqual({ status: 200, body: { file: 'default.json' } })
    expect(await post(base(), { ...urlencoded(1), body: 'p1001=x' })).toEqual({ status: 200, body: { file: 'last.json' } })
    expect(await post(base(), multipart(1000))).toEqual({ status: 200, body: { file: 'default.json' } })
  })
}

describe('the listener', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startMockServer({ routes: writeMocks(routes, files).routes, latency: 0, logProvider: captureLogs().logProvider })
  })
  afterAll(() => server.stop())
  formLimitChecks(() => server.url)

  it('the request log records the 413', async () => {
    await post(server.url, urlencoded(1001))
    const { requests } = (await (await fetch(`${server.url}/__mockyard/requests`)).json()) as { requests: Array<{ status: number; entry: string }> }
    expect(requests.at(-1)).toMatchObject({ status: 413, entry: 'body' })
  })
})

describe('the middleware', () => {
  let server: Server
  let base = ''
  beforeAll(async () => {
    const app = express()
    app.use(await createMiddleware({ routes: writeMocks(routes, files).routes, latency: 0, watch: false, logProvider: captureLogs().logProvider }))
    server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })
  formLimitChecks(() => base)
})

describe('in process', () => {
  let server: ReturnType<typeof setupServer>
  beforeAll(async () => {
    server = setupServer(...(await createHandlers({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })))
    server.listen()
  })
  afterAll(() => server.close())
  formLimitChecks(() => 'http://api.forms.test')
})
