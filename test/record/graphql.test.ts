/** docs/behaviour.md, "GraphQL" and "Record, import and proxy": GraphQL traffic recorded as `operation` entries, replayed by the CLI. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { killAll, runCli, startCli } from './support.js'

/** A GraphQL back end: the answer depends on the operation and, for GetUser, on `variables.id`. */
function answer(body: { query?: string; operationName?: string; variables?: Record<string, unknown> }): unknown {
  const operation = body.operationName ?? /(?:query|mutation)\s+(\w+)/.exec(body.query ?? '')?.[1]
  if (operation === 'GetUser') return { data: { user: { id: String(body.variables?.id), name: body.variables?.id === 2 ? 'Grace' : 'Ada' } } }
  if (operation === 'ListPets') return { data: { pets: [{ name: 'Rex' }] } }
  if (operation === 'DeletePet') return { data: { deletePet: true } }
  return { results: ['shoes'] }
}

let backEnd: Server
let target: string
const dirs: string[] = []

beforeAll(async () => {
  backEnd = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk) => (text += chunk)).on('end', () => {
      const url = new URL(req.url!, 'http://x')
      const body = req.method === 'GET' ? { query: url.searchParams.get('query') ?? undefined, variables: JSON.parse(url.searchParams.get('variables') ?? '{}') } : JSON.parse(text)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(body)))
    })
  })
  await new Promise<void>((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
  target = `http://127.0.0.1:${(backEnd.address() as AddressInfo).port}`
})
afterEach(() => killAll())
afterAll(() => {
  backEnd.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const post = (base: string, path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const GET_USER = 'query GetUser($id: ID!) { user(id: $id) { id name } }'
const CALLS: Array<(base: string) => Promise<Response>> = [
  (b) => post(b, '/graphql', { query: GET_USER, operationName: 'GetUser', variables: { id: 1 } }),
  (b) => post(b, '/graphql', { query: GET_USER, operationName: 'GetUser', variables: { id: 2 } }),
  (b) => post(b, '/graphql', { query: GET_USER, variables: { id: 1 } }),
  // The same answer whatever `first` is: no params for ListPets.
  (b) => post(b, '/graphql', { query: 'query ListPets($first: Int) { pets(first: $first) { name } }', variables: { first: 10 } }),
  (b) => post(b, '/graphql', { query: 'query ListPets($first: Int) { pets(first: $first) { name } }', variables: { first: 20 } }),
  (b) => post(b, '/graphql', { query: 'mutation DeletePet { deletePet(id: 1) }' }),
  // GET, as urql's preferGetMethod sends it.
  (b) => fetch(`${b}/graphql?${new URLSearchParams({ query: GET_USER, variables: '{"id":2}' })}`),
  // A REST body with a query field: recorded as always.
  (b) => post(b, '/search', { query: 'shoes' }),
]

describe('mockyard record, GraphQL traffic', () => {
  it('writes one operation entry per operation, variables as params only where the answers differ, and the mock replays them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-record-graphql-'))
    dirs.push(dir)
    const out = join(dir, 'mocks')
    const recorder = await startCli(['record', '--target', target, '--out', out, '--port', '0'])
    const recorded: string[] = []
    for (const call of CALLS) recorded.push(await (await call(recorder.url)).text())
    expect(await recorder.stop('SIGINT')).toBe(0)

    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes.graphql).toEqual({
      post: [
        { operation: 'GetUser', params: { 'variables.id': 1 }, file: 'graphql-GetUser.json' },
        { operation: 'GetUser', params: { 'variables.id': 2 }, file: 'graphql-GetUser-2.json' },
        { operation: 'ListPets', file: 'graphql-ListPets.json' },
        { operation: 'DeletePet', file: 'graphql-DeletePet.json' },
      ],
      get: [{ operation: 'GetUser', file: 'graphql-GetUser-2.json' }],
    })
    expect(routes.search).toEqual({ post: { file: 'search-post.json' } })

    const mock = await startCli(['--routes', join(out, 'routes.json'), '--data', join(out, 'data'), '--latency', '0', '--port', '0', '--no-watch'])
    for (const [index, call] of CALLS.entries()) expect(await (await call(mock.url)).text(), `call ${index}`).toBe(recorded[index])
    expect(await mock.stop('SIGTERM')).toBe(0)
  })
})

describe('mockyard import, GraphQL traffic in a HAR', () => {
  it('writes operation entries as record does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-graphql-'))
    dirs.push(dir)
    const exchange = (body: Record<string, unknown>, answerBody: unknown) => ({
      startedDateTime: '2026-01-01T00:00:00.000Z',
      time: 1,
      request: { method: 'POST', url: 'https://api.example.com/graphql', httpVersion: 'HTTP/1.1', headers: [{ name: 'content-type', value: 'application/json' }], queryString: [], cookies: [], headersSize: -1, bodySize: -1, postData: { mimeType: 'application/json', text: JSON.stringify(body) } },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'content-type', value: 'application/json' }], cookies: [], content: { size: -1, mimeType: 'application/json', text: JSON.stringify(answerBody) }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    })
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'test', version: '1' },
        entries: [
          exchange({ query: GET_USER, operationName: 'GetUser', variables: { id: 1 } }, answer({ operationName: 'GetUser', variables: { id: 1 } })),
          exchange({ query: GET_USER, operationName: 'GetUser', variables: { id: 2 } }, answer({ operationName: 'GetUser', variables: { id: 2 } })),
          exchange({ query: 'query ListPets { pets { name } }' }, answer({ operationName: 'ListPets' })),
        ],
      },
    }
    const file = join(dir, 'session.har')
    writeFileSync(file, JSON.stringify(har))
    const out = join(dir, 'mocks')
    const result = runCli(['import', file, '--out', out])
    expect(result.code).toBe(0)
    expect(JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')).graphql).toEqual({
      post: [
        { operation: 'GetUser', params: { 'variables.id': 1 }, file: 'graphql-GetUser.json' },
        { operation: 'GetUser', params: { 'variables.id': 2 }, file: 'graphql-GetUser-2.json' },
        { operation: 'ListPets', file: 'graphql-ListPets.json' },
      ],
    })
  })
})
