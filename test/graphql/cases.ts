/**
 * The GraphQL cases of docs/behaviour.md, "GraphQL", shared by the listener and the in-process
 * tests: one routes file, the requests a GraphQL client sends (POST JSON, GET), and what each
 * gets.
 */
export const GRAPHQL_ROUTES = {
  graphql: {
    post: [
      { operation: 'GetUser', file: 'user-1.json' },
      { operation: 'GetUser', params: { 'variables.id': '2' }, file: 'user-2.json' },
    ],
    get: [
      { operation: 'GetUser', file: 'user-1.json' },
      { operation: 'GetUser', params: { 'variables.id': '2' }, file: 'user-2.json' },
    ],
  },
  search: { post: [{ params: { query: 'shoes' }, file: 'shoes.json' }] },
}

export const GRAPHQL_FILES = {
  'user-1.json': '{"data":{"user":{"id":"1"}}}',
  'user-2.json': '{"data":{"user":{"id":"2"}}}',
  'shoes.json': '["shoes"]',
}

/** A POST as Apollo Client and urql send it: JSON with query, operationName and variables. */
export function graphqlPost(base: string, body: Record<string, unknown>, path = '/graphql'): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' }, body: JSON.stringify(body) })
}

/** A GET with the fields in the query string (`variables` as JSON text), as urql's `preferGetMethod` sends it. */
export function graphqlGet(base: string, fields: Record<string, unknown>): Promise<Response> {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) search.set(name, typeof value === 'string' ? value : JSON.stringify(value))
  return fetch(`${base}/graphql?${search}`)
}

export const GET_USER = 'query GetUser($id: ID!) { user(id: $id) { id } }'
export const DELETE_PET = 'mutation DeletePet { deletePet(id: 1) }'
