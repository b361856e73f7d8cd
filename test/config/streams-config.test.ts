/**
 * docs/behaviour.md, "Streams and Server-Sent Events": `stream` and `events` in a routes file as
 * the loader checks them (one ConfigError naming the file, the JSON path and the fix), and how
 * they are inherited and overridden, served by a real listener.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, startMockServer } from 'mockyard/node'
import { validateRoutes } from '../../src/core/validate-routes.js'
import { captureLogs, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

describe('the loader checks stream and events', () => {
  it('reports every bad stream and events at once, each with its JSON path and fix', async () => {
    const mocks = writeMocks({
      'v1/no-body': { stream: { by: 'line', delay: 10 } },
      'v1/bad-by': { file: 'a.txt', stream: { by: 'word' } },
      'v1/not-a-list': { events: { data: 'x' } },
      'v1/bad-events': { get: [{ params: { a: '1' }, events: [{ event: 'x' }, { data: 'ok', id: 'two\nlines' }, { close: 'later' }, 'hello'] }] },
      'v1/outside': { events: '../feed.json' },
    })
    let caught: unknown
    try {
      const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
      await server.stop()
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    const problems = (caught as ConfigError).problems.map((p) => [p.pointer, p.message, p.fix])
    const at = (pointer: string) => problems.find(([p]) => p === pointer)
    expect(at('/v1~1no-body/stream')?.[1]).toMatch(/no answer here has a file/)
    expect(at('/v1~1no-body/stream')?.[2]).toMatch(/Add "file" beside the stream/)
    expect(at('/v1~1bad-by/stream/by')?.[1]).toMatch(/"line" or a whole number of bytes/)
    expect(at('/v1~1not-a-list/events')?.[1]).toMatch(/array of events or the name of a JSON data file/)
    expect(at('/v1~1bad-events/get/0/events/0')?.[1]).toMatch(/an event needs data/)
    expect(at('/v1~1bad-events/get/0/events/1/id')?.[1]).toMatch(/one line/)
    expect(at('/v1~1bad-events/get/0/events/2/close')?.[2]).toMatch(/"stop"/)
    expect(at('/v1~1bad-events/get/0/events/3')?.[1]).toMatch(/an event must be an object/)
    expect(at('/v1~1outside/events')?.[1]).toMatch(/outside the data folder/)
    expect((caught as ConfigError).message).toContain(`${mocks.routes}#/v1~1no-body/stream`)
  })

  it('accepts a route-level stream that the methods answer with a file, and warns of an unknown key in an event', () => {
    const { errors, warnings } = validateRoutes(
      {
        'v1/a': { stream: { by: 8, delay: 5 }, get: 'a.txt', post: { status: 201 } },
        'v1/b': { events: [{ data: 1, dealy: 5 }] },
      },
      'routes.json',
    )
    expect(errors).toEqual([])
    expect(warnings.map((w) => [w.pointer, w.fix])).toEqual([['/v1~1b/events/0/dealy', 'Did you mean "delay"? Rename it, or remove it.']])
  })
})

describe('inheritance and overrides', () => {
  it('events fill the body slot as file does: the more specific wins; a route-level events override answers every method', async () => {
    const mocks = writeMocks(
      {
        'v1/x': { events: [{ data: 'route' }, { close: true }], post: { file: 'post.txt' } },
        'v1/y': { file: 'y.txt', get: { events: [{ data: 'method' }, { close: true }] } },
        'v1/seq': { get: [{ params: {}, response: [{ events: [{ data: 'first' }, { close: true }] }, { status: 503 }, { file: 'y.txt' }] }] },
      },
      { 'post.txt': 'posted', 'y.txt': 'file' },
    )
    const server = await startMockServer({ routes: mocks.routes })
    try {
      expect(await (await fetch(`${server.url}/v1/x`)).text()).toBe('data: route\n\n')
      const posted = await fetch(`${server.url}/v1/x`, { method: 'POST' })
      expect([posted.headers.get('content-type'), await posted.text()]).toEqual(['text/plain; charset=utf-8', 'posted'])
      expect(await (await fetch(`${server.url}/v1/y`)).text()).toBe('data: method\n\n')
      expect(await (await fetch(`${server.url}/v1/y`, { method: 'DELETE' })).text()).toBe('file')

      // In a sequence: events, then a plain 503, then events from the route's file.
      expect(await (await fetch(`${server.url}/v1/seq`)).text()).toBe('data: first\n\n')
      expect((await fetch(`${server.url}/v1/seq`)).status).toBe(503)
      expect(await (await fetch(`${server.url}/v1/seq`)).text()).toBe('file')

      server.useRoutes({ 'v1/y': { events: [{ data: 'override' }, { close: true }] } })
      expect(await (await fetch(`${server.url}/v1/y`, { method: 'DELETE' })).text()).toBe('data: override\n\n')
    } finally {
      await server.stop()
    }
  })
})
