/**
 * The explanation of a request no route answers, every branch pinned to its exact text
 * (docs/behaviour.md, "Selecting the entry (scoring)" and "Errors and limits").
 */
import { describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, fromFetchRequest, memoryFiles, type RoutesConfig } from 'mockyard'
import { formatMessage } from '../../src/core/errors.js'

function engineFor(routes: RoutesConfig) {
  return createEngine(compileRoutes([{ file: 'routes.json', routes, files: memoryFiles({ 'a.json': '"a"' }) }]))
}

async function explain(routes: RoutesConfig, path: string, init?: RequestInit): Promise<string> {
  const result = await engineFor(routes).handle(fromFetchRequest(new Request(`http://mock.test${path}`, init)))
  if (result.matched) throw new Error(`${path} was answered: ${result.response.status}`)
  return result.explanation()
}

const text = (...lines: string[]) => formatMessage(lines.join('\n'))

const routes: RoutesConfig = {
  'v1/users': { file: 'a.json' },
  'v1/orders': { get: 'a.json', post: 'a.json' },
  'v1/orders/:id': { get: 'a.json', head: 'a.json' },
  'v2/accounts': { delete: 'a.json' },
}

describe('no route has the path', () => {
  it('names the three closest routes with their methods, and a route to add', async () => {
    expect(await explain(routes, '/v1/order?x=1')).toBe(
      text(
        'no route answers GET /v1/order?x=1: no route has the path /v1/order.',
        'Closest routes:',
        '  - v1/orders (GET, POST)',
        '  - v1/users (GET, POST, PUT, PATCH, DELETE)',
        '  - v1/orders/:id (GET, HEAD)',
        'Add a route to your routes file, for example "v1/order": { "file": "order.json" }.',
      ),
    )
  })

  it('says when no routes are configured at all', async () => {
    expect(await explain({}, '/')).toBe(
      text('no route answers GET /: no route has the path /.', 'No routes are configured.', 'Add a route to your routes file, for example "v1/example": { "file": "example.json" }.'),
    )
  })
})

describe('the route has the path', () => {
  it('names the methods it answers when the method is not one of them', async () => {
    expect(await explain(routes, '/v1/orders', { method: 'PATCH' })).toBe(
      text('no route answers PATCH /v1/orders: v1/orders answers GET and POST, not PATCH.', 'Add a "patch" key (or a route-level "file") to "v1/orders" in your routes file.'),
    )
    expect(await explain(routes, '/v2/accounts')).toBe(
      text('no route answers GET /v2/accounts: v2/accounts answers DELETE, not GET.', 'Add a "get" key (or a route-level "file") to "v2/accounts" in your routes file.'),
    )
  })

  it('says plainly when the route answers no method, naming the likely typo', async () => {
    expect(await explain({ 'v1/users': { fiel: 'a.json' } as never }, '/v1/users')).toBe(
      text(
        'no route answers GET /v1/users: v1/users answers no method: it has no file, url or status and no method key. Did you mean "file" for "fiel"?',
        'Rename "fiel" to "file" in "v1/users" in your routes file.',
      ),
    )
    expect(await explain({ 'v1/users': { latency: 5 } }, '/v1/users', { method: 'POST' })).toBe(
      text(
        'no route answers POST /v1/users: v1/users answers no method: it has no file, url or status and no method key.',
        'Add a "file" (or a method key such as "get") to "v1/users" in your routes file.',
      ),
    )
  })

  it('gives each entry the reason it is out, when every entry is', async () => {
    const search: RoutesConfig = {
      'v1/search': {
        get: [
          { params: { q: 'cats' }, file: 'a.json' },
          { params: { limit: 10 }, file: 'a.json' },
          { params: { tags: ['a', 'b'] }, file: 'a.json' },
          { params: { code: { pattern: '^2[0-9]{2}$' } }, file: 'a.json' },
          { headers: { 'x-role': 'admin' }, file: 'a.json' },
          { headers: { 'x-trace': { pattern: '^abc' } }, file: 'a.json' },
          { headers: { authorization: 'Bearer s3cret' }, file: 'a.json' },
          { headers: { cookie: { pattern: 'sid=1' } }, file: 'a.json' },
        ],
        post: [
          { params: { filter: { kind: 'x' } }, file: 'a.json' },
          { params: { 'items[0].id': 7 }, file: 'a.json' },
        ],
      },
    }
    const headers = { 'x-role': 'user', 'x-trace': 'zzz', authorization: 'Bearer other', cookie: 'sid=2' }
    expect(await explain(search, '/v1/search?q=dogs&limit=5&tags=c&tags=d&code=500', { headers })).toBe(
      text(
        'no route answers GET /v1/search?q=dogs&limit=5&tags=c&tags=d&code=500: every entry of v1/search (GET) is out:',
        '  - get[0]: param "q" is "dogs", expected "cats"',
        '  - get[1]: param "limit" is "5", expected 10',
        '  - get[2]: param "tags" is ["c","d"], expected ["a","b"]',
        '  - get[3]: param "code" is "500", expected /^2[0-9]{2}$/i',
        '  - get[4]: header "x-role" is "user", expected "admin"',
        '  - get[5]: header "x-trace" is "zzz", expected /^abc/i',
        '  - get[6]: header "authorization" is <redacted>, expected <redacted>',
        '  - get[7]: header "cookie" is <redacted>, expected <redacted>',
        'Add an entry without params to "v1/search" as the default, or send a request that fits one of the entries.',
      ),
    )
    const body = JSON.stringify({ filter: { kind: 'y', extra: true }, items: [{ id: 8 }] })
    expect(await explain(search, '/v1/search', { method: 'POST', body, headers: { 'content-type': 'application/json' } })).toBe(
      text(
        'no route answers POST /v1/search: every entry of v1/search (POST) is out:',
        '  - post[0]: param "filter" is {"kind":"y","extra":true}, expected {"kind":"x"}',
        '  - post[1]: param "items[0].id" is 8, expected 7',
        'Add an entry without params to "v1/search" as the default, or send a request that fits one of the entries.',
      ),
    )
  })

  it("says where each entry's sequence stands in the request's session, as it stood when the request came", async () => {
    const engine = engineFor({
      'v1/jobs': {
        get: [
          { params: { id: '1' }, response: [{ status: 202, repeat: 2 }, { status: 200 }, { status: 410 }] },
          { params: { id: '2' }, response: [{ status: 202 }, { status: 200 }] },
          { params: { id: '3' }, file: 'a.json' },
        ],
      },
    })
    const send = (path: string, session?: string) =>
      engine.handle(fromFetchRequest(new Request(`http://mock.test${path}`)), session === undefined ? {} : { session })
    for (let i = 0; i < 3; i++) await send('/v1/jobs?id=1')
    await send('/v1/jobs?id=2')
    const shared = await send('/v1/jobs?id=9')
    const other = await send('/v1/jobs?id=9', 'tab-2')
    // Requests after the unmatched one do not change what its explanation says.
    await send('/v1/jobs?id=1')
    if (shared.matched || other.matched) throw new Error('/v1/jobs?id=9 was answered')
    expect(shared.explanation()).toBe(
      text(
        'no route answers GET /v1/jobs?id=9: every entry of v1/jobs (GET) is out:',
        '  - get[0]: param "id" is "9", expected "1"',
        '    sequence: item 3 of 3 next, after 3 requests',
        '  - get[1]: param "id" is "9", expected "2"',
        '    sequence: item 2 of 2 next, after 1 request',
        '  - get[2]: param "id" is "9", expected "3"',
        'Add an entry without params to "v1/jobs" as the default, or send a request that fits one of the entries.',
      ),
    )
    expect(other.explanation()).toBe(
      text(
        'no route answers GET /v1/jobs?id=9: every entry of v1/jobs (GET) is out:',
        '  - get[0]: param "id" is "9", expected "1"',
        '    sequence: item 1 of 3 next, after 0 requests in session "tab-2"',
        '  - get[1]: param "id" is "9", expected "2"',
        '    sequence: item 1 of 2 next, after 0 requests in session "tab-2"',
        '  - get[2]: param "id" is "9", expected "3"',
        'Add an entry without params to "v1/jobs" as the default, or send a request that fits one of the entries.',
      ),
    )
  })

  it('answers a body that does not parse with a 400 that says so, when the method key exists', async () => {
    const engine = engineFor({ 'v1/forms': { post: [{ params: { a: '1' }, file: 'a.json' }] } })
    const request = new Request('http://mock.test/v1/forms', { method: 'POST', body: 'a=1', headers: { 'content-type': 'multipart/form-data' } })
    const result = await engine.handle(fromFetchRequest(request))
    expect(result).toMatchObject({ matched: true, response: { status: 400 }, info: { route: 'v1/forms', entry: 'body', status: 400 } })
    const sent = result.matched ? JSON.parse(String(result.response.body)) : undefined
    expect(sent).toEqual({
      error: 'Bad Request',
      message: formatMessage('POST /v1/forms: the multipart body does not parse: the content-type header has no boundary. Send a well-formed body or fix the content-type header'),
    })
  })
})
