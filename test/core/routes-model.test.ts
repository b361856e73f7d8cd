import { describe, expect, it } from 'vitest'
import { compileRoutes, memoryFiles } from 'mockyard'
import { answersOf, overlay, patternFlags, sequenceItemAt, walkRoutes, type Path } from '../../src/core/routes-model.js'
import { createSequenceState } from '../../src/core/sequence-state.js'

/** A routes file in the shape of the examples: a default, a method file, plain and conditional entries, a sequence. */
const routes = {
  $schema: './node_modules/mockyard/schema/routes.json',
  'v1/claims': {
    file: 'claims.json',
    latency: 30,
    responseHeader: { 'X-Source': 'route' },
    get: [
      { status: 203 },
      { file: 'open.json', params: { status: 'open' } },
      { params: { status: 'closed' }, response: [{ status: 202 }, { file: 'done.json', repeat: 2, responseHeaders: { Location: '/x' } }] },
    ],
    post: { url: 'https://example.test/claims', status: 307 },
    delete: 'deleted.json',
  },
  'v1/users/:id': { get: { file: 'user.json', headers: { 'X-Role': 'admin' } } },
}

describe('walkRoutes: route -> method -> entry -> sequence item, with pointer tokens', () => {
  it('visits every node once, in file order, with its path', () => {
    const seen: Array<[string, Path]> = []
    walkRoutes(routes, {
      route: (key, _route, path) => seen.push([`route ${key}`, path]),
      method: (method, _value, path) => seen.push([`method ${method}`, path]),
      entry: (_entry, path, method, index) => seen.push([`entry ${method} ${index}`, path]),
      item: (_item, path) => seen.push(['item', path]),
    })
    expect(seen).toEqual([
      ['route v1/claims', ['v1/claims']],
      ['method get', ['v1/claims', 'get']],
      ['entry get 0', ['v1/claims', 'get', 0]],
      ['entry get 1', ['v1/claims', 'get', 1]],
      ['entry get 2', ['v1/claims', 'get', 2]],
      ['item', ['v1/claims', 'get', 2, 'response', 0]],
      ['item', ['v1/claims', 'get', 2, 'response', 1]],
      ['method post', ['v1/claims', 'post']],
      ['entry post undefined', ['v1/claims', 'post']],
      ['method delete', ['v1/claims', 'delete']],
      ['route v1/users/:id', ['v1/users/:id']],
      ['method get', ['v1/users/:id', 'get']],
      ['entry get undefined', ['v1/users/:id', 'get']],
    ])
  })
})

describe('answersOf: every answer of a method, with where each field is written', () => {
  it('GET: the default inherits from the route field by field; entries keep their own and the route latency; items lay over their entry', () => {
    expect(answersOf(routes['v1/claims'], 'v1/claims', 'get')).toEqual([
      {
        label: 'default',
        path: ['v1/claims', 'get', 0],
        fields: {
          file: { value: 'claims.json', path: ['v1/claims', 'file'] },
          latency: { value: 30, path: ['v1/claims', 'latency'] },
          status: { value: 203, path: ['v1/claims', 'get', 0, 'status'] },
          headers: { 'x-source': { value: 'route', path: ['v1/claims', 'responseHeader', 'X-Source'] } },
        },
      },
      {
        label: 'get[1]',
        path: ['v1/claims', 'get', 1],
        fields: { file: { value: 'open.json', path: ['v1/claims', 'get', 1, 'file'] }, latency: { value: 30, path: ['v1/claims', 'latency'] } },
      },
      {
        label: 'get[2].response[0]',
        path: ['v1/claims', 'get', 2, 'response', 0],
        fields: { status: { value: 202, path: ['v1/claims', 'get', 2, 'response', 0, 'status'] }, latency: { value: 30, path: ['v1/claims', 'latency'] } },
      },
      {
        label: 'get[2].response[1]',
        path: ['v1/claims', 'get', 2, 'response', 1],
        fields: {
          file: { value: 'done.json', path: ['v1/claims', 'get', 2, 'response', 1, 'file'] },
          latency: { value: 30, path: ['v1/claims', 'latency'] },
          headers: { location: { value: '/x', path: ['v1/claims', 'get', 2, 'response', 1, 'responseHeaders', 'Location'] } },
        },
      },
    ])
  })

  it('a url laid over an inherited file keeps both (url wins when serving); a method file name replaces an inherited url', () => {
    const [post] = answersOf(routes['v1/claims'], 'v1/claims', 'post')
    expect(post!.fields.url).toEqual({ value: 'https://example.test/claims', path: ['v1/claims', 'post', 'url'] })
    expect(post!.fields.file).toEqual({ value: 'claims.json', path: ['v1/claims', 'file'] })
    const [del] = answersOf({ url: 'https://example.test', delete: 'deleted.json' }, 'v1/a', 'delete')
    expect(del).toEqual({ label: 'default', path: ['v1/a', 'delete'], fields: { file: { value: 'deleted.json', path: ['v1/a', 'delete'] } } })
  })

  it('a route with only a conditional entry has no default', () => {
    expect(answersOf(routes['v1/users/:id'], 'v1/users/:id', 'get').map((a) => a.label)).toEqual(['get'])
  })

  it('agrees with the compiled table: the same answers, files and statuses, in the same order', () => {
    const table = compileRoutes([{ file: 'routes.json', routes: routes as never, files: memoryFiles({}) }])
    const method = table.lookup('/v1/claims')!.route.methods.get('GET')!
    const compiled = [method.default!, ...method.conditionals].flatMap((c) => (c.sequence ?? [c.response]).map((r) => ({ file: r.file?.name, url: r.url, status: r.status, latency: r.latency })))
    const model = answersOf(routes['v1/claims'], 'v1/claims', 'get').map(({ fields }) => ({ file: fields.file?.value, url: fields.url?.value, status: fields.status?.value, latency: fields.latency?.value }))
    expect(model).toEqual(compiled)
  })
})

describe('the shared rules', () => {
  it('pattern flags: absent or empty is i; g and y are dropped', () => {
    expect([undefined, '', 'g', 'gi', 'ms', 'y'].map(patternFlags)).toEqual(['i', 'i', '', 'i', 'ms', ''])
  })

  it('overlay: fields of the later object win, headers merge, a file replaces an inherited url', () => {
    expect(overlay({ url: 'u', status: 200, headers: { a: '1' } }, { file: 'f', headers: { b: '2' } })).toEqual({ file: 'f', status: 200, headers: { a: '1', b: '2' } })
    expect(overlay({ file: 'f' }, { url: 'u' })).toEqual({ file: 'f', url: 'u' })
  })

  it('the next sequence item: each repeat times, starting over; the engine steps sequences by the same rule', () => {
    expect(Array.from({ length: 8 }, (_, count) => sequenceItemAt(count, [1, 2, 1]))).toEqual([0, 1, 1, 2, 0, 1, 1, 2])
    const state = createSequenceState()
    const candidate = { repeats: [1, 2, 1], sequence: [{}, {}, {}] } as never
    expect(Array.from({ length: 8 }, () => state.next('', 'k', candidate))).toEqual([0, 1, 1, 2, 0, 1, 1, 2])
  })
})
