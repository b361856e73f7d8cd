/** docs/behaviour.md, "GraphQL": in process under setupMockServer (Vitest), with the platform's fetch. */
import { describe, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { captureLogs, writeMocks } from '../support/routes.js'
import { DELETE_PET, GET_USER, GRAPHQL_FILES, GRAPHQL_ROUTES, graphqlGet, graphqlPost } from '../graphql/cases.js'

const files = writeMocks(GRAPHQL_ROUTES, GRAPHQL_FILES)
const logs = captureLogs()
// 'warn': an unmatched request is explained in the log and goes on to the network (a closed port here).
const mocks = setupMockServer({ routes: files.routes, data: files.data, onUnhandledRequest: 'warn', logProvider: logs.logProvider })
const API = 'http://api.test'

describe('GraphQL under setupMockServer', () => {
  it('answers POST by the operation named in the document, and by operationName and variables', async () => {
    expect(await (await graphqlPost(API, { query: 'query GetUser { user { id } }' })).json()).toEqual({ data: { user: { id: '1' } } })
    expect(await (await graphqlPost(API, { query: GET_USER, operationName: 'GetUser', variables: { id: 2 } })).json()).toEqual({ data: { user: { id: '2' } } })
    expect(mocks.requests({ method: 'POST' }).map((record) => record.entry)).toEqual(['post[0]', 'post[1]'])
  })

  it('answers GET with the fields in the query string', async () => {
    expect(await (await graphqlGet(API, { query: GET_USER, variables: { id: 2 } })).json()).toEqual({ data: { user: { id: '2' } } })
    expect(await (await graphqlGet(API, { query: '{ user { id } }', operationName: 'GetUser' })).json()).toEqual({ data: { user: { id: '1' } } })
  })

  it('answers a persisted query', async () => {
    const res = await graphqlPost(API, { operationName: 'GetUser', variables: { id: 2 }, extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } })
    expect(await res.json()).toEqual({ data: { user: { id: '2' } } })
  })

  it('reads a REST route with {"query":"shoes"} as always', async () => {
    expect(await (await graphqlPost(API, { query: 'shoes' }, '/search')).json()).toEqual(['shoes'])
  })

  it('explains an unmatched operation: the operation and the closest ones', async () => {
    await expect(graphqlPost('http://127.0.0.1:9', { query: DELETE_PET })).rejects.toThrow()
    const [record] = mocks.requests()
    expect(record).toMatchObject({ matched: false })
    expect(record!.explanation).toContain('GraphQL operation "DeletePet"')
    expect(record!.explanation).toContain('Closest operations graphql (POST) answers: GetUser.')
    expect(logs.warn.join('\n')).toContain('Closest operations graphql (POST) answers: GetUser.')
  })

  it('useRoutes() replaces the operation entries for one test', async () => {
    mocks.useRoutes({ graphql: { post: [{ operation: 'DeletePet', status: 204 }] } })
    expect((await graphqlPost(API, { query: DELETE_PET })).status).toBe(204)
  })

  it('useRoutes() that only slows the route keeps answering by operation', async () => {
    mocks.useRoutes({ graphql: { latency: 20, responseHeaders: { 'x-slow': 'yes' } } })
    const res = await graphqlPost(API, { query: GET_USER, variables: { id: 2 } })
    expect({ status: res.status, slow: res.headers.get('x-slow'), body: await res.json() }).toEqual({ status: 200, slow: 'yes', body: { data: { user: { id: '2' } } } })
    expect(mocks.requests().map((record) => record.entry)).toEqual(['post[1]'])
  })
})
