/** docs/behaviour.md, "Keys allowed in a routes file". */
import { afterAll, describe, expect, it } from 'vitest'
import { validateRoutes, type RoutesConfig } from 'mockyard'
import { startMockServer } from 'mockyard/node'
import { captureLogs, engineFor, fileOf, named, removeTempDirs, send, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

describe('method key values', () => {
  const files = named('route.json', 'get.json', 'put.json', 'patch.json', 'q1.json', 'q2.json')

  it('a string is a file name', async () => {
    const engine = engineFor({ 'v1/x': { file: 'route.json', get: 'get.json', put: 'put.json', patch: 'patch.json' } }, files)
    expect(await fileOf(engine, '/v1/x')).toBe('get.json')
    expect(await fileOf(engine, '/v1/x', { method: 'PUT' })).toBe('put.json')
    expect(await fileOf(engine, '/v1/x', { method: 'PATCH' })).toBe('patch.json')
    expect(await fileOf(engine, '/v1/x', { method: 'POST' })).toBe('route.json')
  })

  it('an entry object answers like a one-element array', async () => {
    const single = engineFor({ 'v1/x': { file: 'route.json', get: { file: 'q1.json', params: { q: '1' } } } }, files)
    const array = engineFor({ 'v1/x': { file: 'route.json', get: [{ file: 'q1.json', params: { q: '1' } }] } }, files)
    for (const path of ['/v1/x', '/v1/x?q=1', '/v1/x?q=2', '/v1/x?other=1']) {
      expect(await fileOf(single, path), path).toBe(await fileOf(array, path))
    }
    expect(await fileOf(single, '/v1/x?q=1')).toBe('q1.json')
    expect(await fileOf(single, '/v1/x?q=2')).toBe('route.json')
  })

  it('a plain entry object (no conditions) answers like a one-element array too', async () => {
    const single = engineFor({ 'v1/x': { file: 'route.json', get: { status: 203 } } }, files)
    const array = engineFor({ 'v1/x': { file: 'route.json', get: [{ status: 203 }] } }, files)
    const a = await send(single, '/v1/x')
    const b = await send(array, '/v1/x')
    expect([a.status, a.file]).toEqual([203, 'route.json'])
    expect([b.status, b.file]).toEqual([203, 'route.json'])
  })

  it('an array holds alternatives chosen by matching', async () => {
    const engine = engineFor({ 'v1/x': { get: [{ file: 'q1.json', params: { q: '1' } }, { file: 'q2.json', params: { q: '2' } }] } }, files)
    expect(await fileOf(engine, '/v1/x?q=1')).toBe('q1.json')
    expect(await fileOf(engine, '/v1/x?q=2')).toBe('q2.json')
  })
})

describe('allowed and unknown keys', () => {
  /** Every key docs/behaviour.md allows, at every level. */
  const allKeys: RoutesConfig = {
    'v1/all': {
      file: 'a.json',
      url: 'https://example.test/a',
      status: 200,
      latency: 0,
      responseHeader: { 'X-A': 'a' },
      responseHeaders: { 'X-B': 'b' },
      get: 'a.json',
      put: { file: 'a.json' },
      post: [
        {
          file: 'a.json',
          url: 'https://example.test/b',
          status: 201,
          latency: 0,
          responseHeader: { 'X-C': 'c' },
          responseHeaders: { 'X-D': 'd' },
          params: { q: '1' },
          headers: { 'X-E': 'e' },
          response: [{ file: 'a.json', url: 'https://example.test/c', status: 202, latency: 0, responseHeader: { 'X-F': 'f' }, responseHeaders: { 'X-G': 'g' }, repeat: 2 }],
        },
      ],
      delete: { status: 204 },
      patch: 'a.json',
      head: { status: 200 },
    },
  }

  it('the keys of the table raise neither errors nor warnings', () => {
    expect(validateRoutes(allKeys, 'routes.json')).toEqual({ errors: [], warnings: [] })
  })

  it('an unknown key is a warning naming the file and the JSON path, with what to do', () => {
    const routes = {
      'v1/x': {
        file: 'a.json',
        params: { q: '1' }, // not a route key
        bogus: true,
        get: [{ file: 'a.json', params: { q: '1' }, repeat: 2, extra: 1 }], // repeat belongs to sequence items
        post: { file: 'a.json', response: [{ status: 202, params: { q: '1' }, headers: { 'X-A': 'a' } }] },
      },
    }
    const { errors, warnings } = validateRoutes(routes, 'mocks/routes.json')
    expect(errors).toEqual([])
    expect(warnings.map((w) => w.pointer).sort()).toEqual(
      ['/v1~1x/params', '/v1~1x/bogus', '/v1~1x/get/0/repeat', '/v1~1x/get/0/extra', '/v1~1x/post/response/0/params', '/v1~1x/post/response/0/headers'].sort(),
    )
    for (const warning of warnings) {
      expect(warning.file).toBe('mocks/routes.json')
      expect(warning.message).toContain(warning.pointer.split('/').pop()!)
      expect(warning.fix.length).toBeGreaterThan(0)
    }
  })

  it('an unknown key does not stop the load: it is logged as a warning and the route is served', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json', bogus: true, get: [{ file: 'a.json', extra: 1 }] } }, named('a.json'))
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider })
    try {
      expect(logs.warn.some((w) => w.includes(`${mocks.routes}#/v1~1x/bogus`))).toBe(true)
      expect(logs.warn.some((w) => w.includes(`${mocks.routes}#/v1~1x/get/0/extra`))).toBe(true)
      expect(logs.error).toEqual([])
      const res = await fetch(server.url + '/v1/x')
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ file: 'a.json' })
    } finally {
      await server.stop()
    }
  })

  it('an unknown key in the options is a warning naming the closest option (docs/behaviour.md, "Options")', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider, lateny: 100 } as never)
    await server.stop()
    expect(logs.warn).toEqual(['[mockyard] options#/lateny: unknown option "lateny", ignored. Did you mean "latency"?'])
  })
})
