/** docs/behaviour.md, "GraphQL": over the HTTP listener (startMockServer and the CLI), with the platform's fetch. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, removeTempDirs, writeMocks } from '../support/routes.js'
import { killClis, runCli, startCli } from '../cli/support.js'
import { DELETE_PET, GET_USER, GRAPHQL_FILES, GRAPHQL_ROUTES, graphqlGet, graphqlPost } from './cases.js'

afterAll(removeTempDirs)

describe('GraphQL over the listener (startMockServer)', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startMockServer({ routes: writeMocks(GRAPHQL_ROUTES, GRAPHQL_FILES).routes, logProvider: captureLogs().logProvider })
  })
  afterAll(() => server.stop())

  it('answers POST by the operation named in the document', async () => {
    const res = await graphqlPost(server.url, { query: 'query GetUser { user { id } }' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ data: { user: { id: '1' } } })
  })

  it('answers POST by operationName and variables', async () => {
    const res = await graphqlPost(server.url, { query: GET_USER, operationName: 'GetUser', variables: { id: 2 } })
    expect(await res.json()).toEqual({ data: { user: { id: '2' } } })
  })

  it('answers GET with query, operationName and variables in the query string', async () => {
    expect(await (await graphqlGet(server.url, { query: 'query GetUser { user { id } }' })).json()).toEqual({ data: { user: { id: '1' } } })
    expect(await (await graphqlGet(server.url, { query: GET_USER, operationName: 'GetUser', variables: { id: '2' } })).json()).toEqual({ data: { user: { id: '2' } } })
  })

  it('answers a persisted query (operationName and a hash, no query)', async () => {
    const res = await graphqlPost(server.url, { operationName: 'GetUser', variables: { id: 2 }, extensions: { persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' } } })
    expect(await res.json()).toEqual({ data: { user: { id: '2' } } })
  })

  it('explains an unmatched operation in its 404: the operation and the closest ones', async () => {
    const res = await graphqlPost(server.url, { query: DELETE_PET })
    expect(res.status).toBe(404)
    const text = ((await res.json()) as { message: string }).message
    expect(text).toContain('GraphQL operation "DeletePet"')
    expect(text).toContain('Closest operations graphql (POST) answers: GetUser.')
  })

  it('explains a batch (a JSON array body): its operations are not read, and how to send them', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: 'query GetUser { user { id } }' }, { query: DELETE_PET }]),
    })
    expect(res.status).toBe(404)
    const lines = ((await res.json()) as { message: string }).message.split('\n')
    expect(lines.slice(-2)).toEqual([
      'The body is a JSON array (a batch of 2 operations): mockyard reads one GraphQL operation per request, so a batch fits no "operation" entry.',
      'Turn batching off in the client (Apollo Client: HttpLink in place of BatchHttpLink), or add an entry without params to "graphql" to answer batches with a file of its own.',
    ])
  })

  it('explains a file upload (multipart) and an application/graphql body: not read for an operation, and how to send them', async () => {
    const form = new FormData()
    form.set('operations', JSON.stringify({ query: 'query GetUser { user { id } }', operationName: 'GetUser' }))
    form.set('map', '{}')
    const upload = await fetch(`${server.url}/graphql`, { method: 'POST', body: form })
    expect(upload.status).toBe(404)
    expect(((await upload.json()) as { message: string }).message.split('\n').slice(-2)).toEqual([
      'The body is a multipart form (a GraphQL file upload): mockyard reads the operation of a GraphQL request from a JSON body ({ "query", "operationName", "variables" }) or a GET\'s query string, so this request fits no "operation" entry.',
      'Send it as JSON, or add an entry without params to "graphql" to answer it with a file of its own.',
    ])
    const bare = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/graphql' }, body: 'query GetUser { user { id } }' })
    expect(bare.status).toBe(404)
    expect(((await bare.json()) as { message: string }).message).toContain('The body is application/graphql (a bare document): mockyard reads the operation')
  })

  it('does not take a urlencoded POST for GraphQL (GraphQL POST is a JSON body): no operation entry answers it', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: 'query GetUser { user { id } }', operationName: 'GetUser' }).toString(),
    })
    expect(res.status).toBe(404)
    const text = ((await res.json()) as { message: string }).message
    expect(text.split('\n').slice(0, 3)).toEqual([
      '[mockyard] no route answers POST /graphql: every entry of graphql (POST) is out:',
      '  - post[0]: no GraphQL operation name, expected operation "GetUser"',
      '  - post[1]: no GraphQL operation name, expected operation "GetUser"',
    ])
  })

  it('reads a REST route with {"query":"shoes"} as always', async () => {
    const res = await graphqlPost(server.url, { query: 'shoes' }, '/search')
    expect(await res.json()).toEqual(['shoes'])
  })

  it('answers a huge document quickly, without reading it past the token limit, and keeps serving', async () => {
    // About 4 MB: a million tokens after the operation's name, within the listener's body limit.
    const huge = `query GetUser { ${'a '.repeat(2_000_000)} }`
    const res = await graphqlPost(server.url, { query: huge })
    expect(res.status).toBe(404)
    expect(((await res.json()) as { message: string }).message).toContain('over the limit of 10000 tokens')
    expect((await graphqlPost(server.url, { query: 'query GetUser { user { id } }' })).status).toBe(200)
  })
})

describe('GraphQL over the CLI', () => {
  afterEach(killClis)

  it('serves operation entries from a routes file', async () => {
    const mocks = writeMocks(GRAPHQL_ROUTES, GRAPHQL_FILES)
    const cli = await startCli(['--routes', mocks.routes, '--data', mocks.data, '--port', '0', '--latency', '0'])
    expect(await (await graphqlPost(cli.url, { query: GET_USER, operationName: 'GetUser', variables: { id: 2 } })).json()).toEqual({ data: { user: { id: '2' } } })
    const unmatched = await graphqlPost(cli.url, { query: DELETE_PET })
    expect(unmatched.status).toBe(404)
    expect(((await unmatched.json()) as { message: string }).message).toContain('GraphQL operation "DeletePet"')
  })
})

describe('a bad operation in a routes file', () => {
  const bad = { graphql: { post: [{ operation: 5, file: 'user-1.json' }, { operation: '', file: 'user-1.json' }] } }

  it('refuses to start, naming the file, the JSON path and the fix', async () => {
    const mocks = writeMocks(bad, GRAPHQL_FILES)
    const error = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual([
      expect.objectContaining({ file: mocks.routes, pointer: '/graphql/post/0/operation', message: 'operation must be a non-empty string (a GraphQL operation name), got 5', fix: 'Write the operation name as a string, for example "operation": "GetUser".' }),
      expect.objectContaining({ file: mocks.routes, pointer: '/graphql/post/1/operation', message: 'operation must be a non-empty string (a GraphQL operation name), got ""' }),
    ])
  })

  it('the CLI says so without a stack trace and exits non-zero', () => {
    const mocks = writeMocks(bad, GRAPHQL_FILES)
    const result = runCli(['--routes', mocks.routes, '--data', mocks.data, '--port', '0'])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('#/graphql/post/0/operation')
    expect(result.stderr).toContain('"operation": "GetUser"')
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })
})
