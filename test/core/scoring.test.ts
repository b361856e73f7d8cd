/** docs/behaviour.md, "Selecting the entry (scoring)". */
import { describe, expect, it } from 'vitest'
import { engineFor, fileOf, form, json, named, send } from '../support/routes.js'

const files = named('default.json', 'entry.json', 'first.json', 'second.json', 'a.json', 'b.json', 'plain.json', 'seq.json', 'g.json', 'd.json', 'p.json', 'h.json')

describe('the default and entries without conditions', () => {
  it('the default takes the route fields, overridden by a method-key string', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', status: 201, responseHeader: { 'X-Route': 'r' }, get: 'g.json' } }, files)
    const res = await send(engine, '/v1/x')
    expect([res.status, res.file, res.headers['x-route']]).toEqual([201, 'g.json', 'r'])
  })

  it('entries with none of params, headers, response override the default field by field', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', status: 201, get: [{ status: 203 }, { file: 'plain.json' }] } }, files)
    const res = await send(engine, '/v1/x')
    expect([res.status, res.file]).toEqual([203, 'plain.json'])
  })

  // The route's status 201 tells a conditional entry (status its own only: 200) from a plain one.
  it('params: {} makes an entry conditional: 0 hits, 0 misses, and it wins over the default by coming later', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', status: 201, get: [{ params: {}, file: 'entry.json' }] } }, files)
    for (const path of ['/v1/x', '/v1/x?anything=1']) {
      const res = await send(engine, path)
      expect([res.status, res.file]).toEqual([200, 'entry.json'])
    }
  })

  it('headers: {} does the same', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', status: 201, get: [{ headers: {}, file: 'entry.json' }] } }, files)
    const res = await send(engine, '/v1/x')
    expect([res.status, res.file]).toEqual([200, 'entry.json'])
  })

  it('an entry with a response sequence but neither params nor headers wins over the default', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', status: 201, get: [{ response: [{ file: 'seq.json' }] }] } }, files)
    for (const path of ['/v1/x', '/v1/x?q=1']) {
      const res = await send(engine, path)
      expect([res.status, res.file]).toEqual([200, 'seq.json'])
    }
  })

  it('a conditional entry that scores 0 hits and 1 miss loses to the default (0 hits, 0 misses)', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { q: '1' }, file: 'entry.json' }] } }, files)
    expect(await fileOf(engine, '/v1/x')).toBe('default.json')
  })
})

describe('where params come from', () => {
  const routes = {
    'v1/x': {
      file: 'default.json',
      get: [{ params: { a: '1' }, file: 'entry.json', responseHeader: { 'X-Entry': 'get' } }],
      delete: [{ params: { a: '1' }, file: 'entry.json' }],
      post: [{ params: { a: '1', b: '2' }, file: 'entry.json' }],
      put: [{ params: { a: '1' }, file: 'entry.json' }],
      patch: [{ params: { a: '1' }, file: 'entry.json' }],
    },
  }
  const engine = engineFor(routes, files)

  it('GET: the query string', async () => {
    expect(await fileOf(engine, '/v1/x?a=1')).toBe('entry.json')
  })

  it('HEAD: the query string (through the GET entries)', async () => {
    const res = await send(engine, '/v1/x?a=1', { method: 'HEAD' })
    expect(res.headers['x-entry']).toBe('get')
    expect(res.body).toBeNull()
    expect((await send(engine, '/v1/x', { method: 'HEAD' })).headers['x-entry']).toBeUndefined()
  })

  it('DELETE: the query string, never the body', async () => {
    expect(await fileOf(engine, '/v1/x?a=1', { method: 'DELETE' })).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x', { ...json({ a: '1' }), method: 'DELETE' })).toBe('default.json')
  })

  it.each(['PUT', 'PATCH'])('%s: the body', async (method) => {
    expect(await fileOf(engine, '/v1/x', { ...json({ a: '1' }), method })).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x', { ...form('a=1'), method })).toBe('entry.json')
  })

  it('POST: the body first, then the query string for keys the body lacks', async () => {
    expect(await fileOf(engine, '/v1/x?b=2', json({ a: '1' }))).toBe('entry.json')
    // The body's a=1 wins over the query's a=9; the query's b=2 fills in.
    expect(await fileOf(engine, '/v1/x?a=9&b=2', json({ a: '1' }))).toBe('entry.json')
    // The body's a=9 wins over the query's a=1: the entry is out.
    expect(await fileOf(engine, '/v1/x?a=1&b=2', json({ a: '9' }))).toBe('default.json')
  })

  it('POST: the query string alone when there is no body', async () => {
    expect(await fileOf(engine, '/v1/x?a=1&b=2', { method: 'POST' })).toBe('entry.json')
  })
})

describe('query keys, body paths, form nesting', () => {
  it('query keys are literal names (param1.2 is the query key param1.2)', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { 'param1.2': 'x' }, file: 'entry.json' }] } }, files)
    expect(await fileOf(engine, '/v1/x?param1.2=x')).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x?param1=x')).toBe('default.json')
    expect(await fileOf(engine, '/v1/x?param1[2]=x')).toBe('default.json')
  })

  it('body keys are paths: a.b.c, a.b[2], items[0].id', async () => {
    const engine = engineFor(
      {
        'v1/x': {
          file: 'default.json',
          post: [
            { params: { 'a.b.c': 'deep' }, file: 'first.json' },
            { params: { 'a.b[2]': 'z' }, file: 'second.json' },
            { params: { 'items[0].id': 7 }, file: 'entry.json' },
          ],
        },
      },
      files,
    )
    expect(await fileOf(engine, '/v1/x', json({ a: { b: { c: 'deep' } } }))).toBe('first.json')
    expect(await fileOf(engine, '/v1/x', json({ a: { b: ['x', 'y', 'z'] } }))).toBe('second.json')
    expect(await fileOf(engine, '/v1/x', json({ items: [{ id: 7 }, { id: 8 }] }))).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x', json({ items: [{ id: 8 }, { id: 7 }] }))).toBe('default.json')
  })

  it('body keys are looked up as a path first, then as a literal name', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', post: [{ params: { 'a.b': 'v' }, file: 'entry.json' }] } }, files)
    // No path a -> b: the literal key "a.b".
    expect(await fileOf(engine, '/v1/x', json({ 'a.b': 'v' }))).toBe('entry.json')
    // The path a -> b exists and holds "v": a hit, whatever the literal key holds.
    expect(await fileOf(engine, '/v1/x', json({ a: { b: 'v' }, 'a.b': 'other' }))).toBe('entry.json')
    // The path a -> b exists and holds something else: out, even though the literal key holds "v".
    expect(await fileOf(engine, '/v1/x', json({ a: { b: 'other' }, 'a.b': 'v' }))).toBe('default.json')
  })

  it('a literal dotted name in a form body', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', post: [{ params: { 'x.y': '1' }, file: 'entry.json' }] } }, files)
    expect(await fileOf(engine, '/v1/x', form('x.y=1'))).toBe('entry.json')
  })

  it('form bodies nest brackets as qs does: a[b]=1 is the path a.b, a[0]=x is a[0]', async () => {
    const engine = engineFor(
      {
        'v1/x': {
          file: 'default.json',
          post: [
            { params: { 'a.b': '1' }, file: 'first.json' },
            { params: { 'list[0]': 'x' }, file: 'second.json' },
            { params: { 'deep.b.c': '2' }, file: 'entry.json' },
          ],
        },
      },
      files,
    )
    expect(await fileOf(engine, '/v1/x', form('a[b]=1'))).toBe('first.json')
    expect(await fileOf(engine, '/v1/x', form('list[0]=x'))).toBe('second.json')
    expect(await fileOf(engine, '/v1/x', form('deep[b][c]=2'))).toBe('entry.json')
  })

  it('the same nesting in a multipart form', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', post: [{ params: { 'a.b': '1', 'list[1]': 'y' }, file: 'entry.json' }] } }, files)
    const body = new FormData()
    body.set('a[b]', '1')
    body.append('list[0]', 'x')
    body.append('list[1]', 'y')
    expect(await fileOf(engine, '/v1/x', { method: 'POST', body })).toBe('entry.json')
  })
})

describe('multipart uploads', () => {
  it('a file field is matched by the uploaded file name', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', post: [{ params: { proof: 'receipt.pdf' }, file: 'entry.json' }] } }, files)
    const upload = (name: string): RequestInit => {
      const body = new FormData()
      body.set('proof', new File([new Uint8Array([1, 2, 3])], name, { type: 'application/pdf' }))
      return { method: 'POST', body }
    }
    expect(await fileOf(engine, '/v1/x', upload('receipt.pdf'))).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x', upload('other.pdf'))).toBe('default.json')
  })
})

describe('how each configured key scores', () => {
  // a=1 is a hit; b absent is a miss; b different puts the entry out.
  const engine = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { a: '1', b: '2' }, file: 'entry.json' }] } }, files)

  it('equal -> hit; absent -> miss (1 hit, 1 miss beats the default)', async () => {
    expect(await fileOf(engine, '/v1/x?a=1')).toBe('entry.json')
  })

  it('present but different -> the entry is out', async () => {
    expect(await fileOf(engine, '/v1/x?a=1&b=3')).toBe('default.json')
  })

  it('scalars compare by their text form: a number matches query text and a JSON string', async () => {
    const numbers = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { n: 1 }, file: 'entry.json' }], post: [{ params: { n: 1, s: '2', t: true }, file: 'entry.json' }] } }, files)
    expect(await fileOf(numbers, '/v1/x?n=1')).toBe('entry.json')
    expect(await fileOf(numbers, '/v1/x?n=01')).toBe('default.json')
    expect(await fileOf(numbers, '/v1/x', json({ n: '1', s: 2, t: 'true' }))).toBe('entry.json')
    expect(await fileOf(numbers, '/v1/x', form('n=1&s=2&t=true'))).toBe('entry.json')
  })

  it('a scalar against a repeated query parameter: a hit when any of the values equals it', async () => {
    const scalar = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { tag: 'beta' }, file: 'entry.json' }] } }, files)
    expect(await fileOf(scalar, '/v1/x?tag=alpha&tag=beta')).toBe('entry.json')
    expect(await fileOf(scalar, '/v1/x?tag=alpha&tag=gamma')).toBe('default.json')
  })
})

describe('array values', () => {
  // first.json: both values; second.json (later): only alpha.
  const engine = engineFor(
    {
      'v1/x': {
        file: 'default.json',
        get: [
          { params: { tag: ['alpha', 'beta'] }, file: 'first.json' },
          { params: { tag: 'alpha' }, file: 'second.json' },
        ],
        post: [{ params: { tag: ['alpha', 'beta'], ids: [1, 2] }, file: 'entry.json' }],
      },
    },
    files,
  )

  it('each configured value present is a hit (2 hits beat 1)', async () => {
    expect(await fileOf(engine, '/v1/x?tag=alpha&tag=beta')).toBe('first.json')
  })

  it('each absent value is a miss (1 hit, 1 miss loses to 1 hit, 0 misses)', async () => {
    expect(await fileOf(engine, '/v1/x?tag=alpha')).toBe('second.json')
  })

  it('a single value counts like a one-value list', async () => {
    expect(await fileOf(engine, '/v1/x?tag=beta')).toBe('first.json')
  })

  it('extra request values are ignored', async () => {
    expect(await fileOf(engine, '/v1/x?tag=gamma&tag=beta&tag=alpha')).toBe('first.json')
  })

  it('the key present but holding none of the values: out', async () => {
    expect(await fileOf(engine, '/v1/x?tag=gamma')).toBe('default.json')
    expect(await fileOf(engine, '/v1/x?tag=gamma&tag=delta')).toBe('default.json')
  })

  it('against a JSON array (text forms compared)', async () => {
    expect(await fileOf(engine, '/v1/x', json({ tag: ['zeta', 'beta', 'alpha'], ids: ['2', 3, 1] }))).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x', json({ tag: ['zeta'], ids: [1, 2] }))).toBe('default.json')
  })
})

describe('object values (JSON bodies)', () => {
  const engine = engineFor(
    { 'v1/x': { file: 'default.json', post: [{ params: { filter: { status: 'open', tags: ['a', 'b'] }, kind: 'x' }, file: 'entry.json' }] } },
    files,
  )

  it('deep-equal -> hit (key order does not matter)', async () => {
    expect(await fileOf(engine, '/v1/x', json({ filter: { tags: ['a', 'b'], status: 'open' } }))).toBe('entry.json')
  })

  it('absent -> miss', async () => {
    expect(await fileOf(engine, '/v1/x', json({ kind: 'x' }))).toBe('entry.json')
  })

  it('different -> out (an extra key, another order of an array, another value)', async () => {
    expect(await fileOf(engine, '/v1/x', json({ kind: 'x', filter: { status: 'open', tags: ['a', 'b'], extra: 1 } }))).toBe('default.json')
    expect(await fileOf(engine, '/v1/x', json({ kind: 'x', filter: { status: 'open', tags: ['b', 'a'] } }))).toBe('default.json')
    expect(await fileOf(engine, '/v1/x', json({ kind: 'x', filter: { status: 'closed', tags: ['a', 'b'] } }))).toBe('default.json')
  })
})

describe('regular-expression values', () => {
  it('flags absent or empty mean i', async () => {
    const engine = engineFor(
      {
        'v1/x': {
          file: 'default.json',
          get: [
            { params: { a: { pattern: '^abc$' } }, file: 'first.json' },
            { params: { b: { pattern: '^abc$', flags: '' } }, file: 'second.json' },
          ],
        },
      },
      files,
    )
    expect(await fileOf(engine, '/v1/x?a=ABC')).toBe('first.json')
    expect(await fileOf(engine, '/v1/x?b=AbC')).toBe('second.json')
  })

  it('flags given without i are case-sensitive', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { a: { pattern: '^abc$', flags: 's' } }, file: 'entry.json' }] } }, files)
    expect(await fileOf(engine, '/v1/x?a=abc')).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x?a=ABC')).toBe('default.json')
  })

  it.each(['g', 'gi', 'y', 'gy'])('the stateful flag(s) %s are dropped: the same request matches every time', async (flags) => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { a: { pattern: 'abc', flags } }, file: 'entry.json' }] } }, files)
    const answers: Array<string | undefined> = []
    for (let i = 0; i < 4; i++) answers.push(await fileOf(engine, '/v1/x?a=abc'))
    expect(answers).toEqual(['entry.json', 'entry.json', 'entry.json', 'entry.json'])
  })

  it('the sticky flag y is dropped: the pattern may match anywhere in the value', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { a: { pattern: 'abc', flags: 'y' } }, file: 'entry.json' }] } }, files)
    expect(await fileOf(engine, '/v1/x?a=xxabc')).toBe('entry.json')
  })

  it('absent -> miss; present and not matching -> out', async () => {
    const engine = engineFor({ 'v1/x': { file: 'default.json', get: [{ params: { a: '1', year: { pattern: '^20[0-9]{2}$' } }, file: 'entry.json' }] } }, files)
    expect(await fileOf(engine, '/v1/x?a=1')).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x?a=1&year=2024')).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x?a=1&year=1999')).toBe('default.json')
  })
})

describe('headers conditions', () => {
  const engine = engineFor(
    {
      'v1/x': {
        file: 'default.json',
        get: [
          { headers: { 'X-Role': 'admin' }, file: 'first.json' },
          { headers: { 'x-CLIENT': { pattern: '^web-', flags: 'g' } }, file: 'second.json' },
          { params: { a: '1' }, headers: { 'X-Tenant': 't1' }, file: 'entry.json' },
        ],
      },
    },
    files,
  )

  it('names are case-insensitive', async () => {
    expect(await fileOf(engine, '/v1/x', { headers: { 'x-role': 'admin' } })).toBe('first.json')
    expect(await fileOf(engine, '/v1/x', { headers: { 'X-ROLE': 'admin' } })).toBe('first.json')
    expect(await fileOf(engine, '/v1/x', { headers: { 'X-Client': 'web-1' } })).toBe('second.json')
  })

  it('values are exact', async () => {
    expect(await fileOf(engine, '/v1/x', { headers: { 'x-role': 'Admin' } })).toBe('default.json')
    expect(await fileOf(engine, '/v1/x', { headers: { 'x-role': 'admin2' } })).toBe('default.json')
  })

  it('a regex object for a header (g dropped: every repeat matches; given flags replace the default i)', async () => {
    for (let i = 0; i < 3; i++) expect(await fileOf(engine, '/v1/x', { headers: { 'x-client': 'web-42' } })).toBe('second.json')
    // flags "g" minus g leaves no flags: case-sensitive, as the old server's RegExp(pattern, "g") was.
    expect(await fileOf(engine, '/v1/x', { headers: { 'x-client': 'WEB-42' } })).toBe('default.json')
    expect(await fileOf(engine, '/v1/x', { headers: { 'x-client': 'app-42' } })).toBe('default.json')
  })

  it('absent -> miss; different -> out', async () => {
    expect(await fileOf(engine, '/v1/x?a=1')).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x?a=1', { headers: { 'x-tenant': 't1' } })).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x?a=1', { headers: { 'x-tenant': 't2' } })).toBe('default.json')
  })
})

describe('the best entry', () => {
  const engine = engineFor(
    {
      'v1/x': {
        file: 'default.json',
        get: [
          { params: { a: '1' }, file: 'a.json' },
          { params: { a: '1', b: '2', c: '3' }, file: 'b.json' },
        ],
        post: [
          { params: { a: '1' }, file: 'first.json' },
          { params: { a: '1' }, file: 'second.json' },
        ],
        put: [
          { params: { a: '1', b: '2' }, file: 'first.json' },
          { params: { a: '1', c: '3' }, file: 'second.json' },
        ],
      },
    },
    files,
  )

  it('most hits first (2 hits, 1 miss beat 1 hit, 0 misses)', async () => {
    expect(await fileOf(engine, '/v1/x?a=1&b=2')).toBe('b.json')
  })

  it('then fewest misses (1 hit, 0 misses beat 1 hit, 2 misses, though it comes earlier)', async () => {
    expect(await fileOf(engine, '/v1/x?a=1')).toBe('a.json')
  })

  it('then the later one in the config', async () => {
    expect(await fileOf(engine, '/v1/x?a=1', { method: 'POST' })).toBe('second.json')
    expect(await fileOf(engine, '/v1/x?a=1', { method: 'PUT' })).toBe('second.json')
    expect(await fileOf(engine, '/v1/x?a=1&b=2', { method: 'PUT' })).toBe('first.json')
  })
})

describe('methods', () => {
  const engine = engineFor(
    { 'v1/x': { get: 'g.json', delete: 'd.json', put: 'p.json', post: 'p.json', head: { file: 'h.json', status: 203, responseHeader: { 'X-Head': 'own' } } }, 'v1/y': { get: 'g.json' } },
    files,
  )

  it('X-HTTP-Method-Override on a POST makes the request count as that method', async () => {
    expect(await fileOf(engine, '/v1/x', { method: 'POST', headers: { 'X-HTTP-Method-Override': 'delete' } })).toBe('d.json')
  })

  it('X-HTTP-Method-Override on other methods changes nothing', async () => {
    expect(await fileOf(engine, '/v1/x', { method: 'GET', headers: { 'X-HTTP-Method-Override': 'DELETE' } })).toBe('g.json')
    expect(await fileOf(engine, '/v1/x', { method: 'PUT', headers: { 'X-HTTP-Method-Override': 'DELETE' } })).toBe('p.json')
  })

  it('HEAD answers from a head key when the route has one', async () => {
    const res = await send(engine, '/v1/x', { method: 'HEAD' })
    expect(res.status).toBe(203)
    expect(res.headers['x-head']).toBe('own')
    expect(res.body).toBeNull()
  })

  it('HEAD answers as GET would, without a body, when there is no head key', async () => {
    const get = await send(engine, '/v1/y')
    const head = await send(engine, '/v1/y', { method: 'HEAD' })
    expect(head.status).toBe(get.status)
    expect(head.headers['content-type']).toBe(get.headers['content-type'])
    expect(head.body).toBeNull()
  })

  it('a method the route does not answer is not matched, and the explanation says which methods it answers', async () => {
    const routes = engineFor({ 'v1/x': { get: 'g.json', post: 'p.json' } }, files)
    const res = await send(routes, '/v1/x', { method: 'PATCH' })
    expect(res.matched).toBe(false)
    expect(res.explanation).toBe(
      '[mockyard] no route answers PATCH /v1/x: v1/x answers GET and POST, not PATCH.\nAdd a "patch" key (or a route-level "file") to "v1/x" in your routes file.',
    )
  })

  it('a route file, url or status answers every method', async () => {
    const routes = engineFor({ 'v1/f': { file: 'g.json' }, 'v1/s': { status: 202 }, 'v1/u': { url: 'https://example.test/' } }, files)
    for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH']) {
      expect((await send(routes, '/v1/f', { method })).file).toBe('g.json')
      expect((await send(routes, '/v1/s', { method })).status).toBe(202)
      expect((await send(routes, '/v1/u', { method })).status).toBe(302)
    }
  })
})
