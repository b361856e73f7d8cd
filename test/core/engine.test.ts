import { describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, fromFetchRequest, memoryFiles, type Engine, type EngineRequest, type FileSource, type RoutesConfig } from 'mockyard'

function engineFor(routes: RoutesConfig, files: Record<string, string> = {}) {
  return createEngine(compileRoutes([{ file: 'routes.json', routes, files: memoryFiles(files) }]))
}

async function send(engine: ReturnType<typeof engineFor>, url: string, init?: RequestInit) {
  const result = await engine.handle(fromFetchRequest(new Request(`http://localhost${url}`, init)))
  if (!result.matched) return { status: 0, body: result.explanation(), headers: {} as Record<string, string> }
  const body = result.response.body
  return { status: result.response.status, body: typeof body === 'string' ? body : body ? await new Response(body as BodyInit).text() : '', headers: result.response.headers, info: result.info }
}

describe('engine', () => {
  it('serves a route file for every method', async () => {
    const engine = engineFor({ 'v1/users': { file: 'users.json' } }, { 'users.json': '[1]' })
    for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH']) {
      const res = await send(engine, '/v1/users', { method })
      expect(res.status).toBe(200)
      expect(res.body).toBe('[1]')
    }
  })
})

describe('engine.handle: the same choice again', () => {
  const routes: RoutesConfig = {
    'v1/claims/search': {
      file: 'none.json',
      post: [
        { params: { 'member.state': 'CA' }, file: 'ca.json' },
        { params: { 'member.state': 'NY' }, file: 'ny.json' },
        { params: { 'member.state': 'NY', page: '2' }, file: 'ny-2.json' },
      ],
    },
    'v1/tenant': { get: [{ headers: { 'x-tenant': 'a' }, file: 'a.json' }, { headers: { 'x-tenant': 'b' }, file: 'b.json' }] },
    'v1/jobs': { post: [{ params: { kind: 'export' }, response: [{ file: 'running.json' }, { file: 'done.json' }] }] },
  }
  const files = Object.fromEntries(['none', 'ca', 'ny', 'ny-2', 'a', 'b', 'running', 'done', 'other'].map((name) => [`${name}.json`, `"${name}"`]))
  /** The file that answers, with the body read already (a new copy of its bytes each time, as a listener reads them). */
  const fileOf = (engine: ReturnType<typeof engineFor>, url: string, init: RequestInit & { body?: string } = {}) => {
    const bytes = init.body === undefined ? null : new TextEncoder().encode(init.body)
    const result = engine.handle({ ...fromFetchRequest(new Request(`http://localhost${url}`, { ...init, body: undefined })), body: () => bytes })
    if (result instanceof Promise) throw new Error('expected an answer at once')
    return result.matched ? result.info.file : 'unmatched'
  }
  const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const state = (value: string) => post({ member: { state: value } })

  it('chooses by each body, query and header, whatever was chosen just before', () => {
    const engine = engineFor(routes, files)
    // Each body often enough to be remembered, then in turn.
    const sent = ['CA', 'CA', 'CA', 'NY', 'NY', 'NY', 'CA', 'NY', 'TX', 'TX', 'TX', 'CA']
    expect(sent.map((value) => fileOf(engine, '/v1/claims/search', state(value)))).toEqual(['ca.json', 'ca.json', 'ca.json', 'ny.json', 'ny.json', 'ny.json', 'ca.json', 'ny.json', 'none.json', 'none.json', 'none.json', 'ca.json'])
    expect(['', '?page=2', '?page=2', ''].map((query) => fileOf(engine, `/v1/claims/search${query}`, state('NY')))).toEqual(['ny.json', 'ny-2.json', 'ny-2.json', 'ny.json'])
    const tenant = (name: string) => fileOf(engine, '/v1/tenant', { headers: { 'x-tenant': name } })
    expect(['a', 'a', 'b', 'b', 'a', 'c'].map(tenant)).toEqual(['a.json', 'a.json', 'b.json', 'b.json', 'a.json', 'unmatched'])
  })

  it('still steps the sequence of an entry chosen again', () => {
    const engine = engineFor(routes, files)
    expect([1, 2].map(() => fileOf(engine, '/v1/jobs', post({ kind: 'export' })))).toEqual(['running.json', 'done.json'])
  })

  it('chooses in the new table after a reload, for the request it answered just before', () => {
    const engine = engineFor(routes, files)
    for (let i = 0; i < 3; i++) expect(fileOf(engine, '/v1/claims/search', state('CA'))).toBe('ca.json')
    engine.setTable(compileRoutes([{ file: 'routes.json', routes: { 'v1/claims/search': { post: [{ params: { 'member.state': 'CA' }, file: 'other.json' }] } }, files: memoryFiles(files) }]))
    expect(fileOf(engine, '/v1/claims/search', state('CA'))).toBe('other.json')
  })
})

describe('engine.handle: the same answer again (decision 0034)', () => {
  const routes: RoutesConfig = {
    'v1/claims/search': {
      file: 'none.json',
      post: [
        { params: { 'member.state': 'CA' }, file: 'ca.json' },
        { params: { 'member.state': 'NY' }, file: 'ny.json' },
      ],
      put: [{ params: { 'member.state': 'CA' }, file: 'put-ca.json' }],
    },
    'v1/report': { file: 'report.json', responseHeader: { 'x-kind': 'report' } },
    'v1/jobs': { get: [{ response: [{ file: 'running.json' }, { file: 'done.json' }] }] },
    'v1/tenant': { get: [{ headers: { 'x-tenant': 'a' }, file: 'a.json' }, { headers: { 'x-tenant': 'b' }, file: 'b.json' }] },
  }
  const names = ['none', 'ca', 'ny', 'put-ca', 'report', 'running', 'done', 'a', 'b']
  /** Data files whose contents a test may replace, as a live reload does (a new bytes object). */
  function files() {
    const contents = new Map(names.map((name) => [`${name}.json`, new TextEncoder().encode(`"${name}"`)]))
    const source: FileSource = { label: 'memory', read: async (name) => contents.get(name), readCached: (name) => contents.get(name) }
    return { source, replace: (name: string, text: string) => contents.set(name, new TextEncoder().encode(text)) }
  }
  function engineOver(source: FileSource) {
    return createEngine(compileRoutes([{ file: 'routes.json', routes, files: source }]))
  }
  /** Status, body text, headers and entry, with the body read already (a new copy of its bytes each time, as a listener reads them). */
  function answer(engine: Engine, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    const bytes = init.body === undefined ? null : new TextEncoder().encode(init.body)
    const result = engine.handle({ ...fromFetchRequest(new Request(`http://localhost${url}`, { method: init.method, headers: init.headers })), body: () => bytes })
    if (result instanceof Promise) throw new Error('expected an answer at once')
    if (!result.matched) return { status: 0 }
    const { status, headers, body } = result.response
    return { status, headers, body: typeof body === 'string' ? body : body === null ? '' : new TextDecoder().decode(body as Uint8Array), entry: result.info.entry, file: result.info.file }
  }
  const json = { 'content-type': 'application/json' }
  const state = (value: string, method = 'POST', headers: Record<string, string> = json) => ({ method, headers, body: JSON.stringify({ member: { state: value } }) })

  it('gives each request its own answer when one thing changes from the request before: body, content type, method, Origin, URL', () => {
    const engine = engineOver(files().source)
    const search = '/v1/claims/search'
    const sent = [
      [search, state('CA')],
      [search, state('CA')],
      // The same length of body, other bytes.
      [search, state('NY')],
      [search, state('NY')],
      // The same bytes as another type: not read as JSON.
      [search, state('NY', 'POST', { 'content-type': 'text/plain' })],
      [search, state('NY', 'POST', { 'content-type': 'text/plain' })],
      // The same bytes by another method, and through X-HTTP-Method-Override.
      [search, state('CA', 'PUT')],
      [search, state('CA', 'POST', { ...json, 'x-http-method-override': 'PUT' })],
      [search, state('CA', 'POST')],
      [`${search}?page=2`, state('CA')],
    ] as const
    expect(sent.map(([url, init]) => answer(engine, url, init).file)).toEqual(['ca.json', 'ca.json', 'ny.json', 'ny.json', 'none.json', 'none.json', 'put-ca.json', 'put-ca.json', 'ca.json', 'ca.json'])
    const origins = [undefined, undefined, 'http://a.test', 'http://a.test', 'http://b.test', undefined]
    const seen = origins.map((origin) => answer(engine, '/v1/report', { headers: origin ? { origin } : {} }).headers?.['access-control-allow-origin'])
    expect(seen).toEqual(['*', '*', 'http://a.test', 'http://a.test', 'http://b.test', '*'])
  })

  it('gives every answer headers of its own, so that what a surface adds to one is not in the next', () => {
    const engine = engineOver(files().source)
    const answers = [1, 2, 3].map(() => {
      const { headers } = answer(engine, '/v1/report')
      const sent = { ...headers }
      headers!['content-length'] = '8'
      headers!['x-kind'] = 'changed'
      return sent
    })
    expect(answers).toEqual(Array(3).fill({ 'x-kind': 'report', 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-kind' }))
    // HEAD and GET are two requests: HEAD has the length and no body.
    expect(answer(engine, '/v1/report', { method: 'HEAD' })).toMatchObject({ status: 200, body: '', headers: { 'content-length': '8' } })
    expect(answer(engine, '/v1/report')).toMatchObject({ status: 200, body: '"report"' })
  })

  it('serves a data file changed since (a live reload), and a new table', () => {
    const { source, replace } = files()
    const engine = engineOver(source)
    expect([1, 2].map(() => answer(engine, '/v1/report').body)).toEqual(['"report"', '"report"'])
    replace('report.json', '"report v2"')
    expect([1, 2].map(() => answer(engine, '/v1/report').body)).toEqual(['"report v2"', '"report v2"'])
    engine.setTable(compileRoutes([{ file: 'routes.json', routes: { 'v1/report': { file: 'ca.json' } }, files: source }]))
    expect(answer(engine, '/v1/report')).toMatchObject({ body: '"ca"', file: 'ca.json' })
  })

  it('gives a tus upload chunk its Upload-Offset after the same PATCH without tus headers', () => {
    const engine = engineOver(files().source)
    const chunk = { method: 'PATCH', body: 'abcd', headers: { 'content-type': 'application/offset+octet-stream' } }
    const tus = { ...chunk, headers: { ...chunk.headers, 'tus-resumable': '1.0.0' } }
    const offsets = [chunk, chunk, tus, tus, chunk].map((init) => answer(engine, '/v1/report', init).headers?.['upload-offset'])
    expect(offsets).toEqual([undefined, undefined, '4', '4', undefined])
  })

  it('still steps a sequence, and still chooses by headers, for the same request again', () => {
    const engine = engineOver(files().source)
    expect([1, 2, 3].map(() => answer(engine, '/v1/jobs').file)).toEqual(['running.json', 'done.json', 'running.json'])
    const tenant = (name: string) => answer(engine, '/v1/tenant', { headers: { 'x-tenant': name } }).file
    expect(['a', 'a', 'b', 'b', 'a'].map(tenant)).toEqual(['a.json', 'a.json', 'b.json', 'b.json', 'a.json'])
  })
})

describe('engine.handle: a result at once, or a promise only when it must wait', () => {
  const enc = (text: string) => new TextEncoder().encode(text)
  const request = (url: string, init?: RequestInit) => fromFetchRequest(new Request(`http://localhost${url}`, init))
  /** A request whose body its adapter has read already (`null`: none), as the listener hands it over. */
  const read = (engineRequest: EngineRequest, bytes: Uint8Array | null): EngineRequest => ({ ...engineRequest, body: () => bytes })
  const routes: RoutesConfig = {
    'v1/claims': {
      file: 'all.json',
      post: [{ params: { 'member.state': 'OH' }, file: 'ohio.json' }],
    },
    'v1/slow': { file: 'all.json', latency: 30 },
    'v1/missing': { file: 'nope.json' },
  }
  const files = { 'all.json': '"all"', 'ohio.json': '"ohio"' }

  it('answers without a promise when nothing needs a wait, scoring the given body', () => {
    const engine = engineFor(routes, files)
    const json = { 'content-type': 'application/json' }
    const result = engine.handle(read(request('/v1/claims', { method: 'POST', headers: json }), enc('{"member":{"state":"OH"}}')))
    expect(result).not.toBeInstanceOf(Promise)
    expect(result).toMatchObject({ matched: true, info: { entry: 'post[0]', file: 'ohio.json', status: 200 } })
    const other = engine.handle(read(request('/v1/claims', { method: 'POST', headers: json }), enc('{"member":{"state":"TX"}}')))
    expect(other).toMatchObject({ matched: true, info: { entry: 'default', file: 'all.json' } })
    expect(engine.handle(read(request('/v1/claims'), null))).toMatchObject({ matched: true, info: { file: 'all.json' } })
    expect(engine.handle(read(request('/v1/none'), null))).toMatchObject({ matched: false })
  })

  it('answers a malformed JSON body with 400 at once', () => {
    const engine = engineFor(routes, files)
    const result = engine.handle(read(request('/v1/claims', { method: 'POST', headers: { 'content-type': 'application/json' } }), enc('{"member":')))
    expect(result).not.toBeInstanceOf(Promise)
    expect(result).toMatchObject({ matched: true, response: { status: 400 }, info: { entry: 'body' } })
  })

  it('returns a promise where it must wait: latency, a file not in memory, the first form body (then a multipart body answers at once)', async () => {
    const engine = engineFor(routes, files)
    const slow = engine.handle(read(request('/v1/slow'), null))
    expect(slow).toBeInstanceOf(Promise)
    await expect(slow).resolves.toMatchObject({ matched: true, info: { file: 'all.json' } })

    const form = new FormData()
    form.set('member[state]', 'OH')
    const multipart = new Request('http://localhost/v1/claims', { method: 'POST', body: form })
    const bytes = new Uint8Array(await multipart.clone().arrayBuffer())
    // The process's first form body waits for the form parser to load (once); after that, at once.
    const first = engine.handle(read(fromFetchRequest(multipart.clone()), bytes))
    await expect(Promise.resolve(first)).resolves.toMatchObject({ matched: true, info: { file: 'ohio.json' } })
    const parsed = engine.handle(read(fromFetchRequest(multipart), bytes))
    expect(parsed).not.toBeInstanceOf(Promise)
    expect(parsed).toMatchObject({ matched: true, info: { file: 'ohio.json' } })

    const missing = engine.handle(read(request('/v1/missing'), null))
    expect(missing).toBeInstanceOf(Promise)
    await expect(missing).resolves.toMatchObject({ matched: true, response: { status: 404 } })
  })

  it('a Fetch request: at once without a body, a promise while its body is read, at once once it is', async () => {
    const engine = engineFor(routes, files)
    expect(engine.handle(request('/v1/claims'))).not.toBeInstanceOf(Promise)
    const post = request('/v1/claims', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"member":{"state":"OH"}}' })
    const first = engine.handle(post)
    expect(first).toBeInstanceOf(Promise)
    await expect(first).resolves.toMatchObject({ matched: true, info: { file: 'ohio.json' } })
    expect(engine.handle(post)).toMatchObject({ matched: true, info: { file: 'ohio.json' } })
  })
})

describe('engine.handle: the same URL again', () => {
  const routes: RoutesConfig = {
    'v1/claims': {
      file: 'all.json',
      get: [
        { params: { status: 'open' }, file: 'open.json' },
        { params: { status: 'closed' }, file: 'closed.json' },
      ],
    },
    'v1/users': { file: 'users.json' },
  }
  const files = { 'all.json': '"all"', 'open.json': '"open"', 'closed.json': '"closed"', 'users.json': '"users"', 'people.json': '"people"' }
  const fileOf = (engine: ReturnType<typeof engineFor>, url: string) => {
    const result = engine.handle(fromFetchRequest(new Request(`http://localhost${url}`)))
    if (result instanceof Promise) throw new Error('expected an answer at once')
    return result.matched ? result.info.file : `unmatched: ${result.explanation().split('\n')[0]}`
  }

  it('answers each URL by its own path and query, whatever came before', () => {
    const engine = engineFor(routes, files)
    const urls = ['/v1/claims?status=open', '/v1/claims?status=open', '/v1/claims?status=closed', '/v1/claims?status=open', '/v1/users?status=open', '/v1/users?status=open', '/v1/claims?status=open', '/v1/claims', '/v1/claims?status=closed', '/v1/claims?status=closed', '/v1/none?status=closed', '/v1/claims?status=closed']
    expect(urls.map((url) => fileOf(engine, url))).toEqual(['open.json', 'open.json', 'closed.json', 'open.json', 'users.json', 'users.json', 'open.json', 'all.json', 'closed.json', 'closed.json', 'unmatched: [mockyard] no route answers GET /v1/none?status=closed: no route has the path /v1/none.', 'closed.json'])
  })

  it('reads the new table after a reload, for the URL it answered just before', () => {
    const engine = engineFor(routes, files)
    expect(fileOf(engine, '/v1/users')).toBe('users.json')
    engine.setTable(compileRoutes([{ file: 'routes.json', routes: { 'v1/users': { file: 'people.json' } }, files: memoryFiles(files) }]))
    expect(fileOf(engine, '/v1/users')).toBe('people.json')
    engine.setTable(compileRoutes([{ file: 'routes.json', routes: {}, files: memoryFiles(files) }]))
    expect(fileOf(engine, '/v1/users')).toMatch(/^unmatched: /)
  })

  it('does not remember a URL that does not parse', () => {
    const engine = engineFor(routes, files)
    const bad: EngineRequest = { ...fromFetchRequest(new Request('http://localhost/v1/users')), url: 'http://local host/v1/users' }
    expect(fileOf(engine, '/v1/users')).toBe('users.json')
    expect(() => engine.handle(bad)).toThrow(TypeError)
    expect(() => engine.handle(bad)).toThrow(TypeError)
    expect(fileOf(engine, '/v1/users')).toBe('users.json')
  })
})
