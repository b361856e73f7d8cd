/**
 * mocks/openapi.yaml describes the notifications endpoint as the bundled mocks serve it: real
 * answers of mocks/config.js over HTTP validate against the document's response schemas, and
 * every query parameter the endpoint reads is declared.
 */
import { fileURLToPath } from 'node:url'
import $RefParser from '@apidevtools/json-schema-ref-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer } from 'mockyard/node'

const MOCKS = fileURLToPath(new URL('../../mocks/', import.meta.url))
// ajv-formats is CommonJS: its function is the `default` of its exports.
type AddFormats = (ajv: Ajv2020) => unknown
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats
let server: Awaited<ReturnType<typeof startMockServer>>
interface Operation {
  parameters?: Array<{ name: string; in: string }>
  responses: Record<string, { content?: Record<string, { schema: object }> }>
}
let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } }
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)

beforeAll(async () => {
  server = await startMockServer(`${MOCKS}config.js`)
  doc = (await $RefParser.dereference(`${MOCKS}openapi.yaml`)) as typeof doc
})
afterAll(() => server.stop())

/** Requests the mock and validates the answer against the document's schema for it. */
async function expectDocumented(method: string, path: string, query: string, init: RequestInit, status: number) {
  const res = await fetch(`${server.url}${path.replace('{id}', 'n-1')}${query}`, { method, ...init })
  expect(res.status).toBe(status)
  if (status === 204) return
  const validate = ajv.compile(doc.paths[path]![method.toLowerCase()]!.responses[status]!.content!['application/json']!.schema)
  const body = await res.json()
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true)
}

describe('mocks/openapi.yaml and the notifications endpoint', () => {
  it.each([
    ['GET', '', 200],
    ['GET', '?includeSources=true&includeRead=true&includeInactive=true&limit=1000', 200],
    ['GET', '?nature=ALERT&nature[]=INFORMATIONAL&sortBy=title&sortDirection=ASC&offset=2&limit=3', 200],
    ['GET', '?limit=0', 400],
    ['GET', '?to.userId=other', 403],
  ] as const)('%s /api/v1/notifications%s answers as documented', (method, query, status) => expectDocumented(method, '/api/v1/notifications', query, {}, status))

  it('DELETE ?topicId answers 204, and 400 without it', async () => {
    await expectDocumented('DELETE', '/api/v1/notifications', '?topicId=claims', { headers: { 'x-mockyard-session': 'delete' } }, 204)
    await expectDocumented('DELETE', '/api/v1/notifications', '', {}, 400)
  })

  it.each(['PUT', 'PATCH'])('%s /api/v1/notifications/{id} answers the notification, 400 and 404 as documented', async (method) => {
    const json = { 'content-type': 'application/json', 'x-mockyard-session': method }
    await expectDocumented(method, '/api/v1/notifications/{id}', '', { headers: json, body: JSON.stringify({ read: true }) }, 200)
    await expectDocumented(method, '/api/v1/notifications/{id}', '', { headers: json, body: JSON.stringify({}) }, 400)
    const res = await fetch(`${server.url}/api/v1/notifications/nobody`, { method, headers: json, body: '{"viewed":true}' })
    expect(res.status).toBe(404)
    const validate = ajv.compile(doc.components.schemas.Error!)
    expect(validate(await res.json())).toBe(true)
  })

  it('declares every query parameter the endpoint reads', () => {
    const names = doc.paths['/api/v1/notifications']!.get!.parameters!.filter((p) => p.in === 'query').map((p) => p.name)
    expect(names.sort()).toEqual(
      ['nature', 'type', 'topic', 'includeRead', 'includeUnread', 'includeViewed', 'includeUnviewed', 'includeInactive', 'includeSources', 'sortBy', 'sortDirection', 'offset', 'limit', 'to.userId', 'to.userSource'].sort(),
    )
    expect(doc.paths['/api/v1/notifications']!.delete!.parameters!.map((p) => p.name)).toContain('topicId')
  })
})
