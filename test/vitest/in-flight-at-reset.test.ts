/**
 * docs/behaviour.md, "Reset": a request still waiting on its latency when a test ends is answered
 * at the reset, and recorded in no later test's log (the tests run in order, in one file).
 */
import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { removeTempDirs, writeMocks } from '../support/routes.js'

const files = writeMocks({ 'v1/orders': { latency: 10_000, status: 201, file: 'orders.json' }, 'v1/users': { file: 'users.json' } }, { 'orders.json': '[]', 'users.json': '[]' })
const mocks = setupMockServer({ routes: files.routes, data: files.data })
let leftBehind: Promise<number> | undefined

it('a test that leaves a slow request behind', async () => {
  leftBehind = fetch('http://api.test/v1/orders').then((res) => res.status)
  await new Promise((resolve) => setTimeout(resolve, 50))
})

it("the next test's log holds its own requests only, and the request left behind was answered at the reset", async () => {
  // Answered at the reset that ended the last test, not 10 s later.
  expect(await leftBehind).toBe(201)
  await fetch('http://api.test/v1/users')
  expect(mocks.requests().map((record) => `${record.method} ${new URL(record.url).pathname} ${record.status}`)).toEqual(['GET /v1/users 200'])
  removeTempDirs()
})
