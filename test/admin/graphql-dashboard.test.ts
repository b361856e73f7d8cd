/** docs/behaviour.md, "GraphQL": the dashboard's request list shows the operation of each GraphQL request. */
import { afterAll, expect, it } from 'vitest'
import { startMockServer } from 'mockyard/node'
import { captureLogs, removeTempDirs, writeMocks } from '../support/routes.js'
import { DELETE_PET, GET_USER, GRAPHQL_FILES, GRAPHQL_ROUTES, graphqlGet, graphqlPost } from '../graphql/cases.js'

afterAll(removeTempDirs)

it('lists the operation of GraphQL requests, matched or not, POST or GET; none for a REST body with a query field', async () => {
  const server = await startMockServer({ routes: writeMocks(GRAPHQL_ROUTES, GRAPHQL_FILES).routes, logProvider: captureLogs().logProvider })
  try {
    await graphqlPost(server.url, { query: GET_USER, variables: { id: 2 } })
    await graphqlGet(server.url, { query: '{ user { id } }', operationName: 'GetUser' })
    await graphqlPost(server.url, { query: DELETE_PET })
    await graphqlPost(server.url, { query: 'shoes' }, '/search')
    const state = (await (await fetch(`${server.url}/__mockyard/dashboard/state`)).json()) as { requests: Array<{ method: string; status: number; operation?: string }> }
    expect(state.requests.map((r) => [r.method, r.status, r.operation ?? null])).toEqual([
      ['POST', 200, 'GetUser'],
      ['GET', 200, 'GetUser'],
      ['POST', 404, 'DeletePet'],
      ['POST', 200, null],
    ])
    // The routes view names each entry's operation.
    const routes = (await (await fetch(`${server.url}/__mockyard/dashboard/routes`)).json()) as { routes: Array<{ key: string; entries: Array<{ method: string; label: string; operation?: string }> }> }
    const graphql = routes.routes.find((route) => route.key === 'graphql')!
    expect(graphql.entries.filter((e) => e.method === 'POST').map((e) => [e.label, e.operation])).toEqual([
      ['post[0]', 'GetUser'],
      ['post[1]', 'GetUser'],
    ])
  } finally {
    await server.stop()
  }
})
