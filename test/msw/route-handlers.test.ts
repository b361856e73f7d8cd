/**
 * `createRouteHandlers` in an app's own `setupServer`: the `origin` option's path is a prefix of
 * whole segments, and an answer with a status that has no body never fails the Response.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileRoutes, memoryFiles } from 'mockyard'
import { createRouteHandlers } from 'mockyard/msw'

const table = compileRoutes([
  {
    file: 'inline',
    routes: { 'v2/users': { file: 'users.json' }, 'v1/form': { post: { status: 205, file: 'users.json' } } },
    files: memoryFiles({ 'users.json': '[1]' }),
  },
])
const server = setupServer(...createRouteHandlers(table, { origin: 'http://api.test/api' }))
beforeAll(() => server.listen())
afterAll(() => server.close())

describe('createRouteHandlers with an origin', () => {
  it('answers under the prefix, and not where the prefix is only the start of a segment', async () => {
    expect(await (await fetch('http://api.test/api/v2/users')).json()).toEqual([1])
    // `/apiv2/users` is not under `/api`: nothing answers it here (the request goes on to the network).
    await expect(fetch('http://api.test/apiv2/users')).rejects.toThrow(TypeError)
  })

  it('a 205 with a file answers 205 without a body, not a failed Response', async () => {
    const res = await fetch('http://api.test/api/v1/form', { method: 'POST' })
    expect({ status: res.status, body: await res.text() }).toEqual({ status: 205, body: '' })
  })
})
