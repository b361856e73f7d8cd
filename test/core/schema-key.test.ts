/** docs/behaviour.md, "Keys allowed in a routes file": a top-level "$schema" is allowed and ignored. */
import { validateRoutes } from 'mockyard'
import { startMockServer } from 'mockyard/node'
import { afterAll, describe, expect, it } from 'vitest'
import { captureLogs, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const routes = { $schema: 'https://example.com/mockyard-routes.schema.json', 'v1/users': { file: 'users.json' } }

describe('"$schema" at the top of a routes file', () => {
  it('is neither an error nor a warning', () => {
    expect(validateRoutes(routes, 'routes.json')).toEqual({ errors: [], warnings: [] })
  })

  it('loads without a word and is not a route', async () => {
    const logs = captureLogs()
    const server = await startMockServer({ routes: writeMocks(routes, { 'users.json': '[]' }).routes, logProvider: logs.logProvider })
    try {
      expect([...logs.warn, ...logs.error]).toEqual([])
      expect((await fetch(`${server.url}/v1/users`)).status).toBe(200)
      expect((await fetch(`${server.url}/$schema`)).status).toBe(404)
    } finally {
      await server.stop()
    }
  })
})
