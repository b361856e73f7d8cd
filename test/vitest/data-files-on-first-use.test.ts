/**
 * docs/behaviour.md, "Building the response": under Vitest (no `logProvider`), the data files a
 * config names are read when first served, then kept (only their existence is checked at load);
 * with a `logProvider` they are read and checked at load. Each test file then loads faster (bench/README.md, "Per-file cost
 * under Vitest").
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { captureLogs, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const body = async (path: string) => (await fetch(`http://api.test${path}`)).json() as Promise<unknown>

describe('with the default logging: read on first use', () => {
  const mocks = writeMocks({ 'v1/a': { file: 'a.json' }, 'v1/missing': { file: 'missing.json' } }, { 'a.json': '{"v":1}' })
  setupMockServer({ routes: mocks.routes, data: mocks.data })

  it('serves a file as it is when first asked for, then keeps it', async () => {
    writeFileSync(join(mocks.data, 'a.json'), '{"v":2}')
    expect(await body('/v1/a')).toEqual({ v: 2 })
    writeFileSync(join(mocks.data, 'a.json'), '{"v":3}')
    expect(await body('/v1/a')).toEqual({ v: 2 })
  })

  it('a missing file is a 404 that names it, and is served once it exists', async () => {
    const missing = await fetch('http://api.test/v1/missing')
    expect(missing.status).toBe(404)
    expect(await missing.text()).toContain('missing.json')
    writeFileSync(join(mocks.data, 'missing.json'), '{"now":"here"}')
    expect(await body('/v1/missing')).toEqual({ now: 'here' })
  })
})

describe('with a logProvider: read and checked at load', () => {
  const logs = captureLogs()
  const mocks = writeMocks({ 'v1/a': { file: 'a.json' }, 'v1/missing': { file: 'gone.json' } }, { 'a.json': '{"v":1}' })
  setupMockServer({ routes: mocks.routes, data: mocks.data, logProvider: logs.logProvider })

  it('warns about the missing file at load, and serves the contents read then', async () => {
    expect(logs.warn.join('\n')).toContain('the data file "gone.json" does not exist')
    writeFileSync(join(mocks.data, 'a.json'), '{"v":2}')
    expect(await body('/v1/a')).toEqual({ v: 1 })
  })
})
