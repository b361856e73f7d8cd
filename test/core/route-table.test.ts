/** docs/behaviour.md, "Route table". */
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, memoryFiles } from 'mockyard'
import { startMockServer } from 'mockyard/node'
import { captureLogs, engineFor, fileOf, named, removeTempDirs, send, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

describe('route table: paths', () => {
  const engine = engineFor(
    {
      'v1/users': { file: 'users.json' },
      '/v1/lead': { file: 'lead.json' },
      'V1/Mixed/Case': { file: 'mixed.json' },
      // The parameter comes first in the file: literal segments must still win.
      'v1/items/:id': { file: 'item.json' },
      'v1/items/new': { file: 'item-new.json' },
      'v1/people/:id/orders': { file: 'person-orders.json' },
      'v1/people/me/profile': { file: 'me-profile.json' },
      'v1/files/*': { file: 'files.json' },
    },
    named('users.json', 'lead.json', 'mixed.json', 'item.json', 'item-new.json', 'person-orders.json', 'me-profile.json', 'files.json'),
  )

  it('a key v1/users serves the path /v1/users', async () => {
    expect(await fileOf(engine, '/v1/users')).toBe('users.json')
  })

  it('a leading slash in the key is allowed', async () => {
    expect(await fileOf(engine, '/v1/lead')).toBe('lead.json')
  })

  it.each(['/v1/users.json', '/v1/users.xml', '/v1/users.csv', '/v1/lead.json'])('a format suffix (any extension): %s', async (path) => {
    expect(await fileOf(engine, path)).toBe(path.startsWith('/v1/lead') ? 'lead.json' : 'users.json')
  })

  it('a trailing slash is ignored', async () => {
    expect(await fileOf(engine, '/v1/users/')).toBe('users.json')
    expect(await fileOf(engine, '/v1/lead/')).toBe('lead.json')
  })

  it('a format suffix and a trailing slash together (the old server answered /v1/route1.json/ too)', async () => {
    expect(await fileOf(engine, '/v1/users.json/')).toBe('users.json')
    expect(await fileOf(engine, '/v1/lead.csv//')).toBe('lead.json')
    expect(await fileOf(engine, '/V1/MIXED/CASE.JSON/')).toBe('mixed.json')
    expect(await fileOf(engine, '/v1/items/42.json/')).toBe('item.json')
    expect((await send(engine, '/v1/nothing.json/')).matched).toBe(false)
    // A dot that starts the last segment is no suffix, with or without the slash.
    expect((await send(engine, '/v1/users/.json/')).matched).toBe(false)
  })

  it('path matching is case-insensitive, in the request and in the key', async () => {
    expect(await fileOf(engine, '/V1/USERS')).toBe('users.json')
    expect(await fileOf(engine, '/v1/mixed/case')).toBe('mixed.json')
    expect(await fileOf(engine, '/V1/MIXED/CASE')).toBe('mixed.json')
  })

  it('Express-style parameters match any one segment', async () => {
    expect(await fileOf(engine, '/v1/items/42')).toBe('item.json')
    expect(await fileOf(engine, '/v1/items/abc')).toBe('item.json')
    expect((await send(engine, '/v1/items/42/more')).matched).toBe(false)
  })

  it('literal segments win over parameters, whatever the order of the keys', async () => {
    expect(await fileOf(engine, '/v1/items/new')).toBe('item-new.json')
    expect(await fileOf(engine, '/v1/people/me/profile')).toBe('me-profile.json')
  })

  it('a literal segment that leads nowhere gives way to the parameter', async () => {
    expect(await fileOf(engine, '/v1/people/me/orders')).toBe('person-orders.json')
  })

  it('a trailing * matches the rest of the path', async () => {
    expect(await fileOf(engine, '/v1/files/a')).toBe('files.json')
    expect(await fileOf(engine, '/v1/files/a/b/c')).toBe('files.json')
  })

  it('a path no key serves is not matched', async () => {
    expect((await send(engine, '/v1/nothing')).matched).toBe(false)
    expect((await send(engine, '/v1')).matched).toBe(false)
  })
})

describe('route table: keys written as the characters, matched as the URL carries them', () => {
  const engine = engineFor(
    {
      'café/menu': { file: 'menu.json' },
      'v1/cafés/:id': { file: 'cafe.json' },
      'v1/with space': { file: 'space.json' },
      'v1/a^b': { file: 'caret.json' },
      'v1/stra%C3%9Fe': { file: 'strasse.json' },
    },
    named('menu.json', 'cafe.json', 'space.json', 'strasse.json', 'caret.json'),
  )

  it('a non-ASCII or space in a key matches the percent-encoded path a client sends', async () => {
    // `new Request` writes the path as browsers and fetch do: /caf%C3%A9/menu.
    expect(await fileOf(engine, '/café/menu')).toBe('menu.json')
    expect(await fileOf(engine, '/caf%C3%A9/menu')).toBe('menu.json')
    expect(await fileOf(engine, '/v1/cafés/7')).toBe('cafe.json')
    expect(await fileOf(engine, '/v1/with space')).toBe('space.json')
    expect(await fileOf(engine, '/v1/a^b')).toBe('caret.json')
    // A key written encoded still matches, as before.
    expect(await fileOf(engine, '/v1/straße')).toBe('strasse.json')
  })

  it('the two spellings of one path are one route, merged as one key', async () => {
    const both = engineFor({ 'café/menu': { get: 'menu.json' }, 'caf%C3%A9/menu': { post: 'cafe.json' } }, named('menu.json', 'cafe.json'))
    expect(await fileOf(both, '/café/menu')).toBe('menu.json')
    expect(await fileOf(both, '/café/menu', { method: 'POST' })).toBe('cafe.json')
  })
})

describe("route table: keys of one path that differ by a parameter's name", () => {
  const files = named('first.json', 'second.json', 'third.json', 'plugin.json', 'local.json', 'override.json')

  it('in one routes file the key written first answers every request to the path, as in the old server', async () => {
    const engine = engineFor(
      {
        'v1/users/:id': { get: 'first.json' },
        'v1/users/:userId': { file: 'second.json' },
        'v1/users/:uid': { post: 'third.json' },
        'v1/a/:x/*': { file: 'first.json' },
        'v1/a/:y/*': { file: 'second.json' },
      },
      files,
    )
    expect(await fileOf(engine, '/v1/users/7')).toBe('first.json')
    // The later key answers nothing, not even the methods the first lacks.
    expect((await send(engine, '/v1/users/7', { method: 'POST' })).matched).toBe(false)
    expect(await fileOf(engine, '/v1/a/1/b/c')).toBe('first.json')
  })

  it('a later routes source (local routes over a plugin, an override) replaces the route of the path', async () => {
    const plugin = { file: 'plugin/routes.json', routes: { 'v1/users/:id': { file: 'plugin.json' }, 'v1/users/:uid': { file: 'plugin.json' } }, files: memoryFiles(files) }
    const local = { file: 'routes.json', routes: { 'v1/users/:userId': { file: 'local.json' } }, files: memoryFiles(files) }
    expect(await fileOf(createEngine(compileRoutes([plugin, local])), '/v1/users/7')).toBe('local.json')
    // The local file merges into the plugin's second key: the route it gives is the later source's.
    const merged = { ...local, routes: { 'v1/users/:uid': { get: 'local.json' } } }
    expect(await fileOf(createEngine(compileRoutes([plugin, merged])), '/v1/users/7')).toBe('local.json')
    expect(await fileOf(createEngine(compileRoutes([plugin, merged])), '/v1/users/7', { method: 'POST' })).toBe('plugin.json')
    const override = { file: 'useRoutes()', routes: { 'v1/users/:name': { file: 'override.json' } }, files: memoryFiles(files), override: true }
    expect(await fileOf(createEngine(compileRoutes([plugin, local, override])), '/v1/users/7')).toBe('override.json')
  })

  it('is a load warning naming both keys and the one that answers', async () => {
    const mocks = writeMocks({ 'v1/users/:id': { file: 'first.json' }, 'v1/users/:userId': { file: 'second.json' } }, files)
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider })
    try {
      expect(logs.warn).toEqual([
        `[mockyard] ${mocks.routes}#/v1~1users~1:userId: "v1/users/:userId" is the same path as "v1/users/:id" (only the parameters' names differ): "v1/users/:id", written first, answers it, and this route is never used. Move what this route answers into "v1/users/:id" (one key per path), or remove it.`,
      ])
      expect(await (await fetch(server.url + '/v1/users/7')).json()).toEqual({ file: 'first.json' })
    } finally {
      await server.stop()
    }
  })
})

describe('route table: literal segments escaped with a backslash', () => {
  const engine = engineFor(
    {
      'v1/docs/\\:name': { file: 'colon.json' },
      'v1/glob/\\*': { file: 'star.json' },
      'v1/deep/\\:id/items/:item': { file: 'deep.json' },
    },
    named('colon.json', 'star.json', 'deep.json'),
  )

  it('\\:name answers the path /:name only, \\* the path /* only', async () => {
    expect(await fileOf(engine, '/v1/docs/:name')).toBe('colon.json')
    expect(await fileOf(engine, '/v1/glob/*')).toBe('star.json')
    expect((await send(engine, '/v1/docs/other')).matched).toBe(false)
    expect((await send(engine, '/v1/glob/a')).matched).toBe(false)
    expect((await send(engine, '/v1/glob/a/b')).matched).toBe(false)
  })

  it('an escaped segment and a real parameter in one key', async () => {
    expect(await fileOf(engine, '/v1/deep/:id/items/7')).toBe('deep.json')
    expect((await send(engine, '/v1/deep/5/items/7')).matched).toBe(false)
  })
})

describe('route table: several routes files', () => {
  const first = {
    file: 'first/routes.json',
    routes: {
      'v1/x': { get: 'x-get.json', post: 'x-post.json', responseHeader: { 'X-From': 'first', 'X-Keep': 'kept' } },
      'v1/list': {
        get: [
          { params: { k: '1' }, file: 'list-1.json' },
          { params: { k: '2' }, file: 'list-2.json' },
        ],
      },
      'v1/only-first': { file: 'shared.json' },
    },
    files: memoryFiles({ ...named('x-get.json', 'x-post.json', 'list-1.json', 'list-2.json'), 'shared.json': '"first"' }, 'first'),
  }
  const second = {
    file: 'second/routes.json',
    routes: {
      'v1/x': { post: 'x-post-2.json', responseHeader: { 'X-From': 'second' } },
      'v1/list': { get: [{ params: { k: '2' }, file: 'shared.json' }] },
      'v1/only-second': { file: 'shared.json' },
    },
    files: memoryFiles({ ...named('x-post-2.json'), 'shared.json': '"second"' }, 'second'),
  }
  const engine = createEngine(compileRoutes([first, second]))

  it('a later file replaces one method of an earlier route; the other methods stay', async () => {
    expect(await fileOf(engine, '/v1/x', { method: 'POST' })).toBe('x-post-2.json')
    expect(await fileOf(engine, '/v1/x')).toBe('x-get.json')
  })

  it('merges deep, key by key (a header of the earlier file survives)', async () => {
    const res = await send(engine, '/v1/x')
    expect(res.headers['x-from']).toBe('second')
    expect(res.headers['x-keep']).toBe('kept')
  })

  it('arrays are replaced, not concatenated', async () => {
    expect((await send(engine, '/v1/list?k=1')).matched).toBe(false)
    expect((await send(engine, '/v1/list?k=2')).text).toBe('"second"')
  })

  it('every file is read from the data folder of the routes file that named it', async () => {
    expect((await send(engine, '/v1/only-first')).text).toBe('"first"')
    expect((await send(engine, '/v1/only-second')).text).toBe('"second"')
  })

  it('the order decides: the same files in the other order give the other answer', async () => {
    const reversed = createEngine(compileRoutes([second, first]))
    expect(await fileOf(reversed, '/v1/x', { method: 'POST' })).toBe('x-post.json')
    expect((await send(reversed, '/v1/x')).headers['x-from']).toBe('first')
    expect(await fileOf(reversed, '/v1/list?k=1')).toBe('list-1.json')
  })
})

describe('route table: GET /', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; description: string; version: string }

  it('answers { name, description, version } of the package', async () => {
    const mocks = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      const res = await fetch(server.url + '/')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await res.json()).toEqual({ name: pkg.name, description: pkg.description, version: pkg.version })
    } finally {
      await server.stop()
    }
  })

  it('a route that claims / answers instead', async () => {
    const mocks = writeMocks({ '/': { file: 'root.json' }, 'v1/users': { file: 'users.json' } }, named('root.json', 'users.json'))
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      const res = await fetch(server.url + '/')
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ file: 'root.json' })
    } finally {
      await server.stop()
    }
  })
})
