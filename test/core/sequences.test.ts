/** docs/behaviour.md, "Sequences" and "Reset". */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, memoryFiles, type Engine, type RoutesConfig } from 'mockyard'
import { createMiddleware, MockServer, startMockServer } from 'mockyard/node'
import { captureLogs, engineFor, fileOf, json, named, removeTempDirs, send, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const files = named('a.json', 'b.json', 'c.json', 'p1.json', 'p2.json', 'x1.json', 'x2.json', 'y1.json', 'y2.json', 'default.json')

async function series(engine: Engine, count: number, path: string, init?: RequestInit & { session?: string }): Promise<Array<string | undefined>> {
  const out: Array<string | undefined> = []
  for (let i = 0; i < count; i++) out.push(await fileOf(engine, path, init))
  return out
}

describe('sequences', () => {
  it('items are served in order; repeat R serves an item R times in a row; repeat 0 or absent means once', async () => {
    const engine = engineFor({ 'v1/s': { get: [{ response: [{ file: 'a.json', repeat: 3 }, { file: 'b.json' }, { file: 'c.json', repeat: 0 }] }] } }, files)
    expect(await series(engine, 5, '/v1/s')).toEqual(['a.json', 'a.json', 'a.json', 'b.json', 'c.json'])
  })

  it('after the last item the sequence starts over from the first', async () => {
    const engine = engineFor({ 'v1/s': { get: [{ response: [{ file: 'a.json', repeat: 2 }, { file: 'b.json' }] }] } }, files)
    expect(await series(engine, 7, '/v1/s')).toEqual(['a.json', 'a.json', 'b.json', 'a.json', 'a.json', 'b.json', 'a.json'])
  })

  it('only requests that the entry answers advance it', async () => {
    const engine = engineFor({ 'v1/s': { file: 'default.json', get: [{ params: { go: '1' }, response: [{ file: 'a.json' }, { file: 'b.json' }] }] } }, files)
    expect(await fileOf(engine, '/v1/s?go=1')).toBe('a.json')
    expect(await series(engine, 3, '/v1/s')).toEqual(['default.json', 'default.json', 'default.json'])
    expect(await fileOf(engine, '/v1/s?go=2')).toBe('default.json')
    expect(await fileOf(engine, '/v1/s?go=1')).toBe('b.json')
  })

  const routes: RoutesConfig = {
    'v1/s': {
      get: [
        { params: { k: 'x' }, response: [{ file: 'x1.json' }, { file: 'x2.json' }] },
        { params: { k: 'y' }, response: [{ file: 'y1.json' }, { file: 'y2.json' }] },
      ],
      post: [{ params: { k: 'x' }, response: [{ file: 'p1.json' }, { file: 'p2.json' }] }],
    },
    'v1/t': { get: [{ params: { k: 'x' }, response: [{ file: 'x1.json' }, { file: 'x2.json' }] }] },
  }

  it('a HEAD answered by the GET entries steps their sequence, as a GET without its body; one with a head key steps its own', async () => {
    const engine = engineFor(
      {
        'v1/jobs': { get: [{ response: [{ file: 'a.json' }, { file: 'b.json' }, { file: 'c.json' }] }] },
        'v1/own': { get: [{ response: [{ file: 'x1.json' }, { file: 'x2.json' }] }], head: [{ response: [{ file: 'y1.json' }, { file: 'y2.json' }] }] },
      },
      files,
    )
    const entryOf = async (path: string, method = 'GET') => (await send(engine, path, { method })).entry
    // A client polling with HEAD, then reading with GET, walks one sequence.
    expect(await entryOf('/v1/jobs', 'HEAD')).toBe('get[0].response[0]')
    expect(await entryOf('/v1/jobs', 'HEAD')).toBe('get[0].response[1]')
    expect(await entryOf('/v1/jobs')).toBe('get[0].response[2]')
    expect(await entryOf('/v1/jobs', 'HEAD')).toBe('get[0].response[0]')
    expect(await entryOf('/v1/own', 'HEAD')).toBe('head[0].response[0]')
    expect(await entryOf('/v1/own')).toBe('get[0].response[0]')
    expect(await entryOf('/v1/own', 'HEAD')).toBe('head[0].response[1]')
  })

  it('state is kept per route, per method and per entry', async () => {
    const engine = engineFor(routes, files)
    expect(await fileOf(engine, '/v1/s?k=x')).toBe('x1.json')
    expect(await fileOf(engine, '/v1/s?k=y')).toBe('y1.json')
    expect(await fileOf(engine, '/v1/s?k=x', { method: 'POST' })).toBe('p1.json')
    expect(await fileOf(engine, '/v1/t?k=x')).toBe('x1.json')
    expect(await fileOf(engine, '/v1/s?k=x')).toBe('x2.json')
    expect(await fileOf(engine, '/v1/s', json({ k: 'x' }))).toBe('p2.json')
    expect(await fileOf(engine, '/v1/s?k=y')).toBe('y2.json')
    expect(await fileOf(engine, '/v1/t?k=x')).toBe('x2.json')
  })

  it('one route, one state: /v1/s, /v1/s/ and /v1/s.json advance the same sequence', async () => {
    const engine = engineFor(routes, files)
    expect(await fileOf(engine, '/v1/s?k=x')).toBe('x1.json')
    expect(await fileOf(engine, '/V1/S/?k=x')).toBe('x2.json')
    expect(await fileOf(engine, '/v1/s.json?k=x')).toBe('x1.json')
  })

  it('state belongs to one surface instance', async () => {
    const table = compileRoutes([{ file: 'routes.json', routes, files: memoryFiles(files) }])
    const one = createEngine(table)
    const two = createEngine(table)
    expect(await series(one, 2, '/v1/s?k=x')).toEqual(['x1.json', 'x2.json'])
    expect(await fileOf(two, '/v1/s?k=x')).toBe('x1.json')
  })

  it('and to one session', async () => {
    const engine = engineFor(routes, files)
    expect(await series(engine, 2, '/v1/s?k=x', { session: 'A' })).toEqual(['x1.json', 'x2.json'])
    expect(await fileOf(engine, '/v1/s?k=x', { session: 'B' })).toBe('x1.json')
    expect(await fileOf(engine, '/v1/s?k=x')).toBe('x1.json')
    expect(await fileOf(engine, '/v1/s?k=x', { session: 'A' })).toBe('x1.json')
  })
})

describe('reset', () => {
  const routes: RoutesConfig = {
    'v1/s': { get: [{ params: { k: 'x' }, response: [{ file: 'x1.json' }, { file: 'x2.json' }] }] },
    'v1/t': { post: [{ response: [{ file: 'p1.json' }, { file: 'p2.json' }] }] },
  }

  it("engine.reset() restarts every sequence; reset(session) that session's only", async () => {
    const engine = engineFor(routes, files)
    await fileOf(engine, '/v1/s?k=x', { session: 'A' })
    await fileOf(engine, '/v1/s?k=x', { session: 'B' })
    await fileOf(engine, '/v1/t', { method: 'POST', session: 'A' })
    engine.reset('A')
    expect(await fileOf(engine, '/v1/s?k=x', { session: 'A' })).toBe('x1.json')
    expect(await fileOf(engine, '/v1/t', { method: 'POST', session: 'A' })).toBe('p1.json')
    expect(await fileOf(engine, '/v1/s?k=x', { session: 'B' })).toBe('x2.json')
    engine.reset()
    expect(await fileOf(engine, '/v1/s?k=x', { session: 'A' })).toBe('x1.json')
    expect(await fileOf(engine, '/v1/s?k=x', { session: 'B' })).toBe('x1.json')
  })

  /** Advances both sequences, resets, and expects both to start over. */
  async function checkReset(base: string, reset: () => unknown): Promise<void> {
    const file = async (path: string, init?: RequestInit) => ((await (await fetch(base + path, init)).json()) as { file: string }).file
    expect(await file('/v1/s?k=x')).toBe('x1.json')
    expect(await file('/v1/t', { method: 'POST' })).toBe('p1.json')
    await reset()
    expect(await file('/v1/s?k=x')).toBe('x1.json')
    expect(await file('/v1/t', { method: 'POST' })).toBe('p1.json')
  }

  it('startMockServer exposes reset()', async () => {
    const mocks = writeMocks(routes, files)
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      await checkReset(server.url, () => server.reset())
    } finally {
      await server.stop()
    }
  })

  it('MockServer exposes reset()', async () => {
    const mocks = writeMocks(routes, files)
    const server = new MockServer({ routes: mocks.routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const { port } = await server.start({ host: '127.0.0.1' })
    try {
      await checkReset(`http://127.0.0.1:${port}`, () => server.reset())
    } finally {
      await server.stop()
    }
  })

  it("createMiddleware's returned function exposes reset()", async () => {
    const mocks = writeMocks(routes, files)
    const middleware = await createMiddleware({ routes: mocks.routes, latency: 0, watch: false, logProvider: captureLogs().logProvider })
    const app = express()
    app.use(middleware)
    const server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      await checkReset(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, () => middleware.reset())
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await middleware.close()
    }
  })
})
