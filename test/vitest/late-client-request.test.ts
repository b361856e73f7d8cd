/**
 * docs/behaviour.md, "Reset", and docs/faults.md: a request a test made with Node's `http` client
 * and did not await belongs to that test, also when the interceptor hands it over only after the
 * test ended (a few ticks after `http.get()` returned, past the reset): it steps no sequence of
 * the next test, lands in no later test's log, and a hung one does not outlive its test. The
 * tests run in order, in one file.
 */
import { get as httpGet } from 'node:http'
import axios from 'axios'
import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { removeTempDirs, writeMocks } from '../support/routes.js'

const files = writeMocks(
  {
    'v1/users': { get: [{ response: [{ status: 503 }, { status: 200 }] }] },
    'v1/stuck': { fault: 'hang' },
  },
  {},
)
const mocks = setupMockServer({ routes: files.routes, data: files.data })

/** How a request left behind ended: its status, or its error's code, and when. */
let leftBehind: Promise<{ outcome: number | string; at: number }> | undefined
const fireAndForget = (url: string) => {
  leftBehind = new Promise((resolve) => {
    httpGet(url, (res) => {
      res.resume()
      resolve({ outcome: res.statusCode!, at: performance.now() })
    }).on('error', (error: NodeJS.ErrnoException) => resolve({ outcome: error.code ?? error.message, at: performance.now() }))
  })
}

it('a test that fires an http.get at a sequence and does not await it', () => {
  fireAndForget('http://api.test/v1/users')
})

it("the next test's sequence starts at its first answer, and its log holds its own requests only", async () => {
  // The request left behind was failed as the reset fails what its test left open.
  expect((await leftBehind)?.outcome).toBe('ECONNRESET')
  expect((await fetch('http://api.test/v1/users')).status).toBe(503)
  expect(mocks.requests().map((record) => `${record.method} ${new URL(record.url).pathname} ${record.status}`)).toEqual(['GET /v1/users 503'])
})

it('a test that fires an axios request at the sequence and does not await it', () => {
  leftBehind = axios.get('http://api.test/v1/users').then(
    (res) => ({ outcome: res.status, at: performance.now() }),
    (error: { code?: string }) => ({ outcome: error.code ?? 'no code', at: performance.now() }),
  )
})

it("the next test's sequence is untouched by it too", async () => {
  expect((await leftBehind)?.outcome).toBe('ECONNRESET')
  expect((await fetch('http://api.test/v1/users')).status).toBe(503)
  expect(mocks.requests()).toHaveLength(1)
})

let ended = 0
it('a test that fires an http.get at a hang and does not await it', () => {
  fireAndForget('http://api.test/v1/stuck')
  ended = performance.now()
})

it('the hung request ends with its test (ECONNRESET), not at the end of the next one', { timeout: 5000 }, async () => {
  const { outcome, at } = await leftBehind!
  expect(outcome).toBe('ECONNRESET')
  expect(at - ended).toBeLessThan(1000)
  expect(mocks.requests()).toEqual([])
  removeTempDirs()
})
