import { describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, fromFetchRequest, memoryFiles, validateRoutes, type RoutesConfig } from 'mockyard'
import { parse } from 'graphql'
import { GRAPHQL_TOKEN_LIMIT, scanOperation } from '../../src/core/graphql-operation.js'
import { GRAPHQL_ROUTES } from '../graphql/cases.js'

const routes = GRAPHQL_ROUTES as RoutesConfig
const files = { 'user-1.json': '{"id":1}', 'user-2.json': '{"id":2}', 'shoes.json': '["shoe"]' }

function engineFor(config: RoutesConfig = routes) {
  return createEngine(compileRoutes([{ file: 'routes.json', routes: config, files: memoryFiles(files) }]))
}

async function send(engine: ReturnType<typeof engineFor>, url: string, init?: RequestInit) {
  const result = await engine.handle(fromFetchRequest(new Request(`http://localhost${url}`, init)))
  if (!result.matched) return { status: 0, body: result.explanation() }
  const body = result.response.body
  return { status: result.response.status, body: typeof body === 'string' ? body : body instanceof Uint8Array ? new TextDecoder().decode(body) : '' }
}

const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const getUrl = (fields: Record<string, string>) => `/graphql?${new URLSearchParams(fields)}`

describe('GraphQL operation entries, in the engine', () => {
  it('answers by the operation named in the document, and by variables through params', async () => {
    const engine = engineFor()
    expect(await send(engine, '/graphql', post({ query: 'query GetUser { user { id } }' }))).toEqual({ status: 200, body: '{"id":1}' })
    expect(await send(engine, '/graphql', post({ query: 'query GetUser($id: ID!) { user(id: $id) { id } }', operationName: 'GetUser', variables: { id: 2 } }))).toEqual({ status: 200, body: '{"id":2}' })
  })

  it('answers GET requests with query, operationName and variables (JSON) in the query string', async () => {
    const engine = engineFor()
    expect(await send(engine, getUrl({ query: 'query GetUser { user { id } }' }))).toEqual({ status: 200, body: '{"id":1}' })
    expect(await send(engine, getUrl({ query: '{ user { id } }', operationName: 'GetUser', variables: '{"id":"2"}' }))).toEqual({ status: 200, body: '{"id":2}' })
  })

  it('takes a persisted query (operationName, no query) by its operationName', async () => {
    const engine = engineFor()
    const persisted = { operationName: 'GetUser', variables: { id: 2 }, extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }
    expect(await send(engine, '/graphql', post(persisted))).toEqual({ status: 200, body: '{"id":2}' })
  })

  it('the operationName sent wins over the names in the document', async () => {
    const engine = engineFor()
    const document = 'query ListUsers { users { id } } query GetUser { user { id } }'
    expect((await send(engine, '/graphql', post({ query: document }))).status).toBe(0)
    expect(await send(engine, '/graphql', post({ query: document, operationName: 'GetUser' }))).toEqual({ status: 200, body: '{"id":1}' })
  })

  it('explains an unmatched operation with its name and the closest operations the route answers', async () => {
    const engine = engineFor()
    const result = await send(engine, '/graphql', post({ query: 'mutation DeletePet { deletePet(id: 1) }' }))
    expect(result.status).toBe(0)
    expect(result.body).toContain('GraphQL operation "DeletePet"')
    expect(result.body).toContain('operation is "DeletePet", expected "GetUser"')
    expect(result.body).toContain('Closest operations graphql (POST) answers: GetUser.')
    expect(result.body).toContain('"operation": "DeletePet"')
  })

  it('explains a request to an operation it answers whose variables fit no entry: the params, not a missing operation', async () => {
    const engine = engineFor({ graphql: { post: [{ operation: 'GetUser', params: { 'variables.id': '2' }, file: 'user-2.json' }] } } as RoutesConfig)
    const result = await send(engine, '/graphql', post({ query: 'query GetUser { user { id } }', variables: { id: 3 } }))
    expect(result.body).toBe(
      [
        '[mockyard] no route answers POST /graphql (GraphQL operation "GetUser"): every entry of graphql (POST) is out:',
        '  - post[0]: param "variables.id" is 3, expected "2"',
        'Operation "GetUser" has entries under "post" of "graphql", and the request fits none of them (see each entry\'s reason above).',
        'Send what one of them asks for, or add an entry { "operation": "GetUser", "file": "..." } without params as the default for that operation.',
      ].join('\n'),
    )
  })

  it('explains a document with no operation name', async () => {
    const result = await send(engineFor(), '/graphql', post({ query: '{ user { id } }' }))
    expect(result.body).toContain('no operation name: the document is anonymous')
  })

  it('never reads a REST body with a query field as GraphQL: params read it as always', async () => {
    const engine = engineFor()
    expect(await send(engine, '/search', post({ query: 'shoes' }))).toEqual({ status: 200, body: '["shoe"]' })
  })

  it('keeps non-GraphQL requests to a GraphQL method out of its operation entries, and answers them by the default', async () => {
    const engine = engineFor({ graphql: { file: 'shoes.json', post: [{ operation: 'GetUser', file: 'user-1.json' }] } } as RoutesConfig)
    expect(await send(engine, '/graphql', post({ hello: 'world' }))).toEqual({ status: 200, body: '["shoe"]' })
    expect(await send(engine, '/graphql', post({ query: 'query GetUser { user { id } }' }))).toEqual({ status: 200, body: '{"id":1}' })
  })

  it('indexes many operation entries like literal params, with the same answers', async () => {
    const many = { graphql: { post: Array.from({ length: 40 }, (_, i) => ({ operation: `Op${i}`, file: i === 17 ? 'user-2.json' : 'user-1.json' })) } } as RoutesConfig
    const engine = engineFor(many)
    expect(await send(engine, '/graphql', post({ query: 'query Op17 { a }' }))).toEqual({ status: 200, body: '{"id":2}' })
    expect(await send(engine, '/graphql', post({ query: 'query Op3 { a }' }))).toEqual({ status: 200, body: '{"id":1}' })
    expect((await send(engine, '/graphql', post({ query: 'query Op99 { a }' }))).status).toBe(0)
    // More documents in turn than an engine remembers, twice over: each still gets its own entry.
    for (let i = 0; i < 80; i++) {
      const n = i % 40
      expect(await send(engine, '/graphql', post({ query: `query Op${n} { a }` }))).toEqual({ status: 200, body: n === 17 ? '{"id":2}' : '{"id":1}' })
    }
  })

  it('still answers by operation under an override that only lays latency or headers over the route', async () => {
    // `useRoutes({ graphql: { latency: 1500 } })` to show a loading state keeps the operation entries.
    const engine = createEngine(
      compileRoutes([
        { file: 'routes.json', routes, files: memoryFiles(files) },
        { file: 'useRoutes()', routes: { graphql: { latency: 5, responseHeaders: { 'x-slow': 'yes' } } } as RoutesConfig, files: memoryFiles({}), override: true },
      ]),
    )
    const result = await engine.handle(fromFetchRequest(new Request('http://localhost/graphql', post({ query: 'query GetUser($id: ID!) { user(id: $id) { id } }', variables: { id: 2 } }))))
    expect(result.matched && { status: result.response.status, slow: result.response.headers['x-slow'], entry: result.info.entry }).toEqual({ status: 200, slow: 'yes', entry: 'post[1]' })
    expect(await send(engine, getUrl({ query: 'query GetUser { user { id } }' }))).toEqual({ status: 200, body: '{"id":1}' })
  })

  it('answers a huge document at once, not read past the token limit', async () => {
    const engine = engineFor()
    const huge = `query GetUser { ${'a '.repeat(GRAPHQL_TOKEN_LIMIT * 50)} }`
    const result = await send(engine, '/graphql', post({ query: huge }))
    expect(result.status).toBe(0)
    expect(result.body).toContain(`over the limit of ${GRAPHQL_TOKEN_LIMIT} tokens`)
    // With the operationName sent, the document is not read at all.
    expect((await send(engine, '/graphql', post({ query: huge, operationName: 'GetUser' }))).status).toBe(200)
  })
})

describe('the document scanner', () => {
  it('loads with an engine\'s first GraphQL request: that one waits for it, every other request is answered at once', async () => {
    const engine = engineFor()
    const request = (path: string, init?: RequestInit) => {
      const fetchRequest = fromFetchRequest(new Request(`http://localhost${path}`, init))
      const bytes = init?.body ? new TextEncoder().encode(String(init.body)) : null
      // The body already read, as the listener hands it over: only a load can make a promise.
      return { ...fetchRequest, body: () => bytes }
    }
    expect(engine.handle(request('/search', post({ query: 'shoes' })))).not.toBeInstanceOf(Promise)
    const first = engine.handle(request('/graphql', post({ query: 'query GetUser { user { id } }' })))
    expect(first).toBeInstanceOf(Promise)
    expect(await first).toMatchObject({ matched: true, info: { entry: 'post[0]' } })
    expect(engine.handle(request('/graphql', post({ query: 'query GetUser { user { id } }' })))).toMatchObject({ matched: true, info: { entry: 'post[0]' } })
    // Each engine owns what it loaded: a new engine waits again.
    expect(engineFor().handle(request('/graphql', post({ operationName: 'GetUser' })))).toBeInstanceOf(Promise)
  })
})

describe('scanOperation', () => {
  it('finds the one operation and skips strings, comments, fragments, directives and variables', () => {
    expect(scanOperation('query GetUser { user { id } }')).toEqual({ name: 'GetUser' })
    expect(scanOperation('mutation DeletePet($id: ID = 1) @auth(role: "x") { deletePet(id: $id) }')).toEqual({ name: 'DeletePet' })
    expect(scanOperation('# query Fake { a }\nsubscription OnChat { messages(where: "query Other {") { text } }')).toEqual({ name: 'OnChat' })
    expect(scanOperation('fragment query on query { id } query Real { ...query }')).toEqual({ name: 'Real' })
    expect(scanOperation('query Q($query: In = {a: {b: 1}}) { x(s: """a "query" B {""") }')).toEqual({ name: 'Q' })
  })

  it('has no name for anonymous, multi-operation and unreadable documents', () => {
    expect(scanOperation('{ user { id } }')).toEqual({ why: 'anonymous' })
    expect(scanOperation('query { user { id } }')).toEqual({ why: 'anonymous' })
    expect(scanOperation('query A { a } query B { b }')).toEqual({ why: '2 operations' })
    expect(scanOperation('query A { a ')).toEqual({ why: 'unreadable (unbalanced braces)' })
    expect(scanOperation('query A { a(s: "x) }')).toEqual({ why: 'unreadable (a string does not end)' })
    expect(scanOperation('shoes')).toEqual({ why: 'unreadable (no operation)' })
  })

  it('reads no name from a document with a character GraphQL has no token for, as graphql-js refuses it', () => {
    for (const [document, at, character] of [
      ['query GetUserÜber { a }', 13, 'Ü'],
      ['query GetUser-Admin { a }', 13, '-'],
      ['query GetUser.Admin { a }', 13, '.'],
    ] as const) {
      expect(() => parse(document)).toThrow()
      expect(scanOperation(document)).toEqual({ why: `unreadable (the character "${character}" at ${at} is not GraphQL)` })
    }
    // In a string, a negative number and a spread they are GraphQL.
    expect(scanOperation('query GetUser($n: Int = -1) { a(s: "Ü-.") { ...F } } fragment F on T { b }')).toEqual({ name: 'GetUser' })
  })

  it('names the operation graphql-js names, for documents as clients write them', () => {
    const documents = [
      'query GetUser($id: ID!) { user(id: $id) { ...UserFields } } fragment UserFields on User { id name }',
      'fragment F on Query { a } query Q { ...F }',
      'mutation AddTodo($input: TodoInput! = { title: "x {", tags: ["a", "b"] }) { addTodo(input: $input) { id } }',
      'subscription OnMessage { messages { text } }',
      'query Search @cached(ttl: 60) { search(text: """block "quoted" } text""") { __typename ... on Book { title } } }',
      '\uFEFF# leading comment\nquery\tTabbed{a}',
      'query Numbers { a(x: -1.5e10, y: 0, z: [1, 2.0]) }',
      'query Escapes { a(s: "\\"}\\u00e9") }',
      '{ anonymous }',
      'query { alsoAnonymous }',
      'query A { a } mutation B { b }',
      'query query { query(query: $query) }',
    ]
    for (const document of documents) {
      const operations = parse(document).definitions.filter((definition) => definition.kind === 'OperationDefinition')
      const expected = operations.length === 1 ? operations[0]!.name?.value : undefined
      expect([document, scanOperation(document).name]).toEqual([document, expected])
    }
  })

  it('stops at the token limit', () => {
    expect(scanOperation('query A { a b c d }', 5)).toEqual({ why: 'over the limit of 5 tokens' })
    expect(scanOperation('query A { a b }', 6)).toEqual({ name: 'A' })
  })
})

describe('validation of operation', () => {
  const problems = (entry: unknown, method = 'post') => validateRoutes({ graphql: { [method]: [entry] } }, 'mocks/routes.json').errors
  it('refuses a non-string, empty or ill-formed operation, and one under a method GraphQL never uses, with the JSON path and the fix', () => {
    expect(problems({ operation: 5, file: 'a.json' })).toEqual([
      expect.objectContaining({ file: 'mocks/routes.json', pointer: '/graphql/post/0/operation', message: expect.stringContaining('operation must be a non-empty string'), fix: expect.stringContaining('"operation": "GetUser"') }),
    ])
    expect(problems({ operation: '', file: 'a.json' })[0]).toMatchObject({ pointer: '/graphql/post/0/operation' })
    expect(problems({ operation: 'Get User', file: 'a.json' })[0]).toMatchObject({ message: '"Get User" is not a GraphQL operation name' })
    expect(problems({ operation: 'GetUser', file: 'a.json' }, 'put')[0]).toMatchObject({ pointer: '/graphql/put/0/operation', fix: 'Move the entry under "post" (or "get").' })
    expect(problems({ operation: 'GetUser', file: 'a.json' })).toEqual([])
  })
})
