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

describe('Express path syntax mockyard does not read (docs/behaviour.md, "Route table")', () => {
  const warningOf = (key: string) => {
    const { errors, warnings } = validateRoutes({ [key]: { file: 'a.json' } }, 'routes.json')
    expect(errors).toEqual([])
    return warnings.map((w) => `${w.file}#${w.pointer}: ${w.message}. ${w.fix}`)
  }

  it('a "*" before the last segment is a literal segment', () => {
    expect(warningOf('v1/*/meta')).toEqual([
      'routes.json#/v1~1*~1meta: "v1/*/meta": a "*" matches the rest of the path only as the last segment of a key; here it is the literal segment "*", so this route answers only the path /v1/*/meta. Write ":any" for any one segment ("v1/:any/meta"), or end the key with the "*" to match everything below ("v1/*").',
    ])
  })

  it('a "*" inside a segment is literal', () => {
    expect(warningOf('v1/file*')).toEqual([
      'routes.json#/v1~1file*: "v1/file*": a "*" inside a segment ("file*") is literal, so this route answers only the path /v1/file*. A "*" matches the rest of the path only as a whole last segment ("v1/*"); write one key per path instead (such as "v1/file"), or ":any" for any one segment ("v1/:any").',
    ])
  })

  it('a group of alternatives is literal; the fix lists one key per alternative', () => {
    expect(warningOf('v1/(foo|bar)')).toEqual([
      'routes.json#/v1~1(foo|bar): "v1/(foo|bar)": parentheses and "|" are not patterns in a route key; the segment "(foo|bar)" is literal, so this route answers only the path /v1/(foo|bar). Write one key per path, with the same answers: "v1/foo", "v1/bar".',
    ])
  })

  it("a parameter's constraint is ignored", () => {
    expect(warningOf('v1/users/:id(\\d+)')).toEqual([
      'routes.json#/v1~1users~1:id(\\d+): "v1/users/:id(\\d+)": a route key cannot constrain a parameter; "(\\d+)" is ignored, and ":id(\\d+)" matches any one segment. Write "v1/users/:id". To answer some values differently, add keys with the value in place of ":id" (such as "v1/users/42"): a literal segment wins over a parameter.',
    ])
  })

  it('text after a parameter is part of it: the parameter takes the whole segment', () => {
    expect(warningOf('v1/docs/:id.pdf')).toEqual([
      'routes.json#/v1~1docs~1:id.pdf: "v1/docs/:id.pdf": a parameter takes a whole segment, so ":id.pdf" matches any one segment, not only ":id" followed by ".pdf". Write "v1/docs/:id": a request whose path ends in ".pdf" reaches it too.',
    ])
  })

  it('an optional parameter is an error that says so, with the two keys to write', () => {
    const { errors, warnings } = validateRoutes({ 'v1/items/:id?': { file: 'a.json' }, 'v1/a/:x?/:y?': { file: 'a.json' } }, 'routes.json')
    expect(warnings).toEqual([])
    expect(errors.map((e) => `${e.file}#${e.pointer}: ${e.message}. ${e.fix}`)).toEqual([
      'routes.json#/v1~1items~1:id?: "v1/items/:id?" has an optional parameter (":id?"), which mockyard does not support. Write two keys with the same answers: "v1/items" and "v1/items/:id".',
      'routes.json#/v1~1a~1:x?~1:y?: "v1/a/:x?/:y?" has an optional parameter (":x?", ":y?"), which mockyard does not support. Write one key for each combination of the parameters, with the same answers, from "v1/a" to "v1/a/:x/:y".',
    ])
    // Any other "?" is a query: the key is no path at all.
    expect(validateRoutes({ 'v1/items?id=1': { file: 'a.json' } }, 'routes.json').errors.map((e) => e.message)).toEqual(['"v1/items?id=1" is not a route path'])
  })

  it("keys mockyard reads as written raise none: parameters (init's names too), a last *, escaped segments", () => {
    const routes = { 'v1/users/:id': {}, 'v1/x/:user-id/:a$b/:c_1': {}, 'v1/files/*': {}, '*': {}, 'v1/glob/\\*': {}, 'v1/docs/\\:name': {}, 'v1/things:batchGet': {}, 'v1/report.pdf': {} }
    expect(validateRoutes(routes, 'routes.json')).toEqual({ errors: [], warnings: [] })
  })

  it('the routes still load, with the warnings logged', async () => {
    const mocks = writeMocks({ 'v1/(foo|bar)': { file: 'a.json' } }, named('a.json'))
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider })
    try {
      expect(logs.warn).toEqual([
        `[mockyard] ${mocks.routes}#/v1~1(foo|bar): "v1/(foo|bar)": parentheses and "|" are not patterns in a route key; the segment "(foo|bar)" is literal, so this route answers only the path /v1/(foo|bar). Write one key per path, with the same answers: "v1/foo", "v1/bar".`,
      ])
      expect((await fetch(server.url + '/v1/foo')).status).toBe(404)
      expect(await (await fetch(server.url + '/v1/(foo|bar)')).json()).toEqual({ file: 'a.json' })
    } finally {
      await server.stop()
    }
  })
})
