// @vitest-environment happy-dom
/**
 * `mockyard/vitest` under Vitest's happy-dom environment with mockyard inlined (this repository
 * resolves it to its sources): happy-dom's global `URL` resolves no `file:` URL, so mockyard's own
 * files are found with node's.
 */
import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { named, writeMocks } from '../support/routes.js'

const files = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
const mocks = setupMockServer({ routes: files.routes, data: files.data })

it('loads, and answers fetch', async () => {
  expect(typeof window).toBe('object')
  expect(await (await fetch('http://api.test/v1/users')).json()).toEqual({ file: 'users.json' })
  expect(mocks.requests().map((record) => record.file)).toEqual(['users.json'])
})
