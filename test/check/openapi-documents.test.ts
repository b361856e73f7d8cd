/**
 * How `mockyard check --openapi` and the `validate` option read documents as they are written in
 * the wild (src/check/check-openapi.ts, src/check/traffic.ts): 3.0's `nullable` without `type`,
 * split documents whose files `$ref` back into the root file, protocol-relative server URLs,
 * operation-level `servers`, `readOnly`/`writeOnly` required properties (through `allOf` too),
 * paths with non-ASCII literals, and remote `$ref`s refused in the words of the command reading.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { basePathOf, checkOpenApi, loadOpenApi, type OpenApiDocument } from '../../src/check/check-openapi.js'
import { DocumentError } from '../../src/check/read-document.js'
import { createTrafficCheck } from '../../src/check/traffic.js'
import type { MockResponse } from '../../src/core/build-response.js'
import type { Exchange } from '../../src/harness/traffic-check.js'

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-documents-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Writes files (objects as JSON, strings as they are) under a fresh folder of the temp root; returns the folder. */
let folders = 0
function project(files: Record<string, unknown>): string {
  const dir = join(root, `p${++folders}`)
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content))
  }
  return dir
}

const load = (dir: string, name = 'openapi.yaml', reader?: string) => loadOpenApi(join(dir, name), (file) => file.slice(dir.length + 1), reader ? { reader } : {})

/** `mockyard check --openapi` of routes over data files in the project's `data/` folder: each problem as `pointer: message`. */
async function problems(api: OpenApiDocument, dir: string, routes: Record<string, unknown>): Promise<string[]> {
  const { entries } = await checkOpenApi(api, [{ file: 'routes.json', routes, data: join(dir, 'data') }])
  return entries.map((entry) => `${entry.pointer}: ${entry.message}`)
}

/** The value under keys of a parsed document. */
const at = (value: unknown, ...keys: string[]): unknown => keys.reduce((node, key) => (node as Record<string, unknown>)[key], value)

const headers = (values: Record<string, string> = {}): Exchange['headers'] => ({ get: (name) => values[name.toLowerCase()] ?? null })
const exchange = (method: string, url: string, answer: string, request?: string): Exchange => ({
  method,
  url,
  headers: headers(request === undefined ? {} : { 'content-type': 'application/json' }),
  body: request === undefined ? null : new TextEncoder().encode(request),
  response: { status: method === 'POST' ? 201 : 200, headers: { 'content-type': 'application/json' }, body: answer } as MockResponse,
})

describe("3.0's nullable without a type", () => {
  const doc = `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /things/{id}:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
      responses:
        '200':
          description: ok
          content:
            application/json:
              example: { owner: null, nullable: false }
              schema:
                type: object
                properties:
                  owner: { nullable: true, allOf: [{ $ref: '#/components/schemas/Owner' }] }
                  label: { nullable: false, type: string }
components:
  schemas:
    Owner: { type: object, properties: { name: { type: string } } }
`

  it('is read as "the schema, or null": the document loads, null and an owner pass, anything else fails once, where the schema says so', async () => {
    const dir = project({ 'openapi.yaml': doc, 'data/null.json': { owner: null }, 'data/owner.json': { owner: { name: 'Al' }, label: 'x' }, 'data/five.json': { owner: 5 } })
    const api = await load(dir)
    expect(await problems(api, dir, { 'things/:id': { get: 'null.json' } })).toEqual([])
    expect(await problems(api, dir, { 'things/:id': { get: 'owner.json' } })).toEqual([])
    expect(await problems(api, dir, { 'things/:id': { get: 'five.json' } })).toEqual(['/owner: must be object (schema openapi.yaml#/components/schemas/Owner/type, response 200 of GET /things/{id})'])
    const traffic = createTrafficCheck(api)
    expect(traffic.check(exchange('GET', 'http://localhost/things/1', '{"owner":null}'))).toEqual([])
    expect(traffic.check(exchange('GET', 'http://localhost/things/1', '{"owner":5}')).map((v) => `${v.message} ${v.schema}`)).toEqual([
      'must be object (response 200 of GET /things/{id}) openapi.yaml#/components/schemas/Owner/type',
    ])
  })

  it('the keyword is removed, and examples keep what they hold', async () => {
    const api = await load(project({ 'openapi.yaml': doc }))
    const media = at(api.doc, 'paths', '/things/{id}', 'get', 'responses', '200', 'content', 'application/json')
    expect(at(media, 'example')).toEqual({ owner: null, nullable: false })
    expect(at(media, 'schema', 'properties', 'label')).toEqual({ type: 'string' })
    expect(JSON.stringify(at(media, 'schema'))).not.toContain('nullable')
  })

  it('is rewritten wherever schemas are, under names that are keywords elsewhere (a default response, a schema named example)', async () => {
    const dir = project({
      'openapi.yaml': `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /things:
    get:
      responses:
        default:
          description: anything
          content: { application/json: { schema: { nullable: true, allOf: [{ $ref: '#/components/schemas/example' }] } } }
components:
  schemas:
    example: { nullable: true, properties: { name: { type: string } } }
`,
      'data/null.json': 'null',
      'data/number.json': '{"name":5}',
    })
    const api = await load(dir)
    expect(await problems(api, dir, { things: { get: 'null.json' } })).toEqual([])
    // Located where the keyword is written, though the schema was moved into an anyOf.
    expect(await problems(api, dir, { things: { get: { file: 'number.json', status: 500 } } })).toEqual(['/name: must be string (schema openapi.yaml#/components/schemas/example/properties/name/type, response default of GET /things)'])
    expect(JSON.stringify(api.doc)).not.toContain('nullable')
  })

  it('3.1 has no nullable keyword: it is dropped, and a schema without type no longer stops the document', async () => {
    const dir = project({
      'openapi.yaml': doc.replace('openapi: 3.0.3', 'openapi: 3.1.0').replace("label: { nullable: false, type: string }", 'label: { nullable: true, type: string }'),
      'data/null-label.json': { label: null },
    })
    const api = await load(dir)
    expect(await problems(api, dir, { 'things/:id': { get: 'null-label.json' } })).toEqual(['/label: must be string (schema openapi.yaml#/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/label/type, response 200 of GET /things/{id})'])
  })
})

describe('a document split in files that $ref back into the root file', () => {
  const files = {
    'openapi.yaml': `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /pets/{petId}:
    $ref: './paths/pet.yaml'
components:
  parameters:
    PetId: { name: petId, in: path, required: true, schema: { type: integer } }
  schemas:
    Pet: { type: object, required: [name], properties: { name: { type: string } } }
`,
    'paths/pet.yaml': `parameters:
  - $ref: '../openapi.yaml#/components/parameters/PetId'
get:
  responses:
    '200':
      description: ok
      content:
        application/json:
          schema: { $ref: '../openapi.yaml#/components/schemas/Pet' }
`,
    'data/pet.json': { name: 'Rex' },
    'data/nameless.json': {},
  }

  it('bundles them into internal $refs: check validates against the root schema, validate reads the path parameter', async () => {
    const dir = project(files)
    const api = await load(dir)
    expect(JSON.stringify(api.doc)).not.toContain('openapi.yaml#')
    expect(await problems(api, dir, { 'pets/:petId': { get: 'pet.json' } })).toEqual([])
    expect(await problems(api, dir, { 'pets/:petId': { get: 'nameless.json' } })).toEqual([": must have required property 'name' (schema openapi.yaml#/components/schemas/Pet/required, response 200 of GET /pets/{petId})"])
    const traffic = createTrafficCheck(api)
    expect(traffic.check(exchange('GET', 'http://localhost/pets/not-a-number', '{"name":"Rex"}')).map((v) => `${v.pointer} ${v.message} ${v.schema}`)).toEqual([
      '/path/petId the path parameter "petId" must be integer (GET /pets/{petId}) openapi.yaml#/components/parameters/PetId/schema/type',
    ])
  })
})

describe('servers', () => {
  it("a protocol-relative URL (swagger2openapi's //host/v2) gives its path, not its host", async () => {
    expect(basePathOf({ url: '//petstore.swagger.io/v2' })).toBe('/v2')
    expect(basePathOf({ url: '//{host}/{base}', variables: { host: { default: 'x.test' }, base: { default: 'api' } } })).toBe('/api')
    expect(basePathOf({ url: '/v1' })).toBe('/v1')
    const dir = project({
      'openapi.yaml': `openapi: 3.0.0
info: { title: t, version: '1' }
servers: [{ url: '//petstore.swagger.io/v2' }]
paths:
  /pet/{petId}:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
`,
    })
    const traffic = createTrafficCheck(await load(dir))
    expect(traffic.check(exchange('GET', 'http://localhost/v2/pet/1', '{}'))).toEqual([])
    expect(traffic.check(exchange('GET', 'http://localhost/petstore.swagger.io/v2/pet/1', '{}')).map((v) => v.message)).toEqual([
      "no path of openapi.yaml matches GET /petstore.swagger.io/v2/pet/1 (the servers' base path: /v2)",
    ])
  })

  it('each value of a server variable enum is a base path, for check and validate alike', async () => {
    const dir = project({
      'openapi.yaml': `openapi: 3.0.3
info: { title: t, version: '1' }
servers:
  - url: https://api.example.test/{basePath}
    variables: { basePath: { default: v1, enum: [v1, v2] } }
paths:
  /pets:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array } } } } }
`,
      'data/pets.json': [],
    })
    const api = await load(dir)
    expect(await problems(api, dir, { 'v1/pets': { get: 'pets.json' }, 'v2/pets': { get: 'pets.json' } })).toEqual([])
    expect(await problems(api, dir, { 'v3/pets': { get: 'pets.json' } })).toEqual(['/v3~1pets: no path of openapi.yaml matches the route "v3/pets" (the servers\' base path: /v1, /v2); it would match /pets under the base path /v3'])
    const traffic = createTrafficCheck(api)
    expect(traffic.check(exchange('GET', 'http://localhost/v2/pets', '[]'))).toEqual([])
    expect(traffic.check(exchange('GET', 'http://localhost/v3/pets', '[]')).map((v) => v.message)).toEqual(["no path of openapi.yaml matches GET /v3/pets (the servers' base path: /v1, /v2)"])
  })

  it("a route under the document's base path, for an operation with servers of its own, is told the operation's base path", async () => {
    const dir = project({
      'openapi.yaml': `openapi: 3.0.3
info: { title: t, version: '1' }
servers: [{ url: 'https://api.example.com/v1' }]
paths:
  /reports:
    get:
      servers: [{ url: 'https://files.example.com/v2' }]
      responses: { '200': { description: ok } }
  /users:
    get:
      responses: { '200': { description: ok } }
`,
    })
    const api = await load(dir)
    expect(await problems(api, dir, { 'v2/reports': { get: { status: 200 } }, 'v1/users': { get: { status: 200 } } })).toEqual([])
    const { entries } = await checkOpenApi(api, [{ file: 'routes.json', routes: { 'v1/reports': { get: { status: 200 } } }, data: dir }])
    expect(entries.map((entry) => `${entry.message}. ${entry.fix}`)).toEqual([
      `no path of openapi.yaml matches the route "v1/reports" (the servers' base path: /v1); it would match /reports, but GET /reports has servers of its own, which replace the document's: it is served under the base path /v2, not /v1. Write the route under the operation's base path ("v2/reports") if the API is served there, or fix the operation's servers in the document.`,
    ])
  })
})

describe('paths that differ by a parameter name or by text beside a template', () => {
  const doc = `openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /orgs/{org}/attestations/{attestation_id}:
    delete:
      responses: { '204': { description: deleted } }
  /orgs/{org}/attestations/{subject_digest}:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object, required: [attestations] } } } } }
  /reports/{id}.json:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object, required: [id] } } } } }
  /reports/{id}.csv:
    get:
      responses: { '200': { description: ok, content: { text/csv: { schema: { type: string } } } } }
`

  it("one route answers the methods of every path of its shape (GitHub's attestations), as init writes it", async () => {
    const dir = project({ 'openapi.yaml': doc, 'data/a.json': { attestations: [] } })
    const api = await load(dir)
    expect(await problems(api, dir, { 'orgs/:org/attestations/:attestation_id': { delete: { status: 204 }, get: 'a.json' } })).toEqual([])
    const { unmocked } = await checkOpenApi(api, [{ file: 'routes.json', routes: { 'orgs/:org/attestations/:id': { delete: { status: 204 }, get: 'a.json' } }, data: join(dir, 'data') }])
    expect(unmocked.map((operation) => operation.entry.operation)).toEqual(['GET /reports/{id}.json', 'GET /reports/{id}.csv'])
    expect(await problems(api, dir, { 'orgs/:org/attestations/:id': { patch: { status: 200 } } })).toEqual([
      '/orgs~1:org~1attestations~1:id/patch: PATCH /orgs/{org}/attestations/{attestation_id} or /orgs/{org}/attestations/{subject_digest} is not an operation of openapi.yaml (it has DELETE, GET)',
    ])
  })

  it('a literal must carry the text beside the template: 5.csv is /reports/{id}.csv, 5 is no path', async () => {
    const dir = project({ 'openapi.yaml': doc, 'data/r.json': { id: 5 }, 'data/r.csv': 'id\n5\n' })
    const api = await load(dir)
    expect(await problems(api, dir, { 'reports/5.json': { get: 'r.json' }, 'reports/5.csv': { get: 'r.csv' } })).toEqual([])
    expect(await problems(api, dir, { 'reports/5': { get: 'r.json' } })).toEqual(['/reports~15: no path of openapi.yaml matches the route "reports/5"'])
  })
})

describe('polymorphism written as a cycle (Pet oneOf Cat, Cat allOf Pet)', () => {
  const pet = `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /pets/{id}:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Pet' } } } } }
components:
  schemas:
    Pet:
      type: object
      required: [petType, name]
      properties: { petType: { type: string }, name: { type: string } }
      discriminator: { propertyName: petType }
      oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }]
    Cat: { allOf: [{ $ref: '#/components/schemas/Pet' }, { type: object, required: [huntingSkill], properties: { huntingSkill: { type: string } } }] }
    Dog: { allOf: [{ $ref: '#/components/schemas/Pet' }, { type: object, required: [packSize], properties: { packSize: { type: integer } } }] }
`

  it('validates as OpenAPI means it: each branch extends the parent, without the stack running out', async () => {
    const dir = project({ 'openapi.yaml': pet, 'data/cat.json': { petType: 'Cat', name: 'Tom', huntingSkill: 'lazy' }, 'data/nameless.json': { petType: 'Cat', huntingSkill: 'lazy' } })
    const api = await load(dir)
    expect(await problems(api, dir, { 'pets/:id': { get: 'cat.json' } })).toEqual([])
    expect(await problems(api, dir, { 'pets/:id': { get: 'nameless.json' } })).toContain(": must have required property 'name' (schema openapi.yaml#/components/schemas/Pet/required, response 200 of GET /pets/{id})")
    const traffic = createTrafficCheck(api)
    expect(traffic.check(exchange('GET', 'http://localhost/pets/1', '{"petType":"Dog","name":"Rex","packSize":3}'))).toEqual([])
  })

  it('a cycle no reading can end (A allOf B, B anyOf C, C allOf A) is named, where it starts, and init refuses it too', async () => {
    const dir = project({
      'openapi.yaml': `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /a:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/A' } } } } }
components:
  schemas:
    A: { allOf: [{ $ref: '#/components/schemas/B' }] }
    B: { anyOf: [{ $ref: '#/components/schemas/C' }, { type: string }] }
    C: { allOf: [{ $ref: '#/components/schemas/A' }], required: [x] }
`,
    })
    const error = (await load(dir).catch((error: unknown) => error)) as DocumentError
    expect(error).toBeInstanceOf(DocumentError)
    expect([error.message, error.place, error.fix]).toEqual([
      'the schemas openapi.yaml#/components/schemas/A -> openapi.yaml#/components/schemas/B -> openapi.yaml#/components/schemas/C -> openapi.yaml#/components/schemas/A apply each other to the same value without end (through $ref, allOf, anyOf, oneOf, not, if, then or else), so no value can be validated against them',
      { file: join(dir, 'openapi.yaml'), pointer: '/components/schemas/A' },
      'Break the cycle: a part that extends a schema should $ref a base schema without the oneOf or anyOf that lists the part.',
    ])
    await expect(load(dir, 'openapi.yaml', 'mockyard init')).rejects.toThrow('apply each other to the same value without end')
  })
})

describe('documents that cannot be used, named with the place and the fix', () => {
  const refusal = async (files: Record<string, unknown>, name: string) => {
    const dir = project(files)
    const error = await load(dir, name).catch((error: Error) => error)
    return error instanceof DocumentError ? `${error.message}${error.place ? ` @${error.place.pointer}` : ''}. ${error.fix}` : `${(error as Error).message}`
  }
  const ok = `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}`

  it('a .json document is read as JSON: a broken one, or one with a trailing comma, is named with its line and column', async () => {
    expect(await refusal({ 'api.json': ok.replace('},"paths"', '},\n"paths"').slice(0, -1) }, 'api.json')).toBe('it is not valid JSON (line 2, column 66). Fix the file at that place (JSON allows no trailing comma, comment or single quote), or write it as YAML in a .yaml file.')
    expect(await refusal({ 'api.json': ok.replace('"ok"}', '"ok",}') }, 'api.json')).toBe('it is not valid JSON (line 1, column 116). Fix the file at that place (JSON allows no trailing comma, comment or single quote), or write it as YAML in a .yaml file.')
  })

  it('an empty file, a $ref to a place that does not exist, a version YAML reads as a number', async () => {
    expect(await refusal({ 'openapi.yaml': '\n' }, 'openapi.yaml')).toBe('it is empty. Give an OpenAPI 3.0 or 3.1 document (JSON or YAML), or point the $ref at a file that holds a schema.')
    expect(await refusal({ 'openapi.yaml': "openapi: 3.0.3\ninfo: { title: x, version: '1' }\npaths:\n  /a:\n    get:\n      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Nope' } } } } }\n" }, 'openapi.yaml')).toBe(
      'the $ref "#/components/schemas/Nope" at openapi.yaml#/paths/~1a/get/responses/200/content/application~1json/schema points to openapi.yaml#/components/schemas/Nope, which does not exist @/paths/~1a/get/responses/200/content/application~1json/schema. Point the $ref at a schema the document has, or add the schema there.',
    )
    expect(await refusal({ 'openapi.yaml': "openapi: 3.0\ninfo: { title: x, version: '1' }\npaths: {}\n" }, 'openapi.yaml')).toBe('its "openapi" field is the number 3, not a version string (YAML reads an unquoted 3.0 as a number) @/openapi. Write the version in quotes, with its patch number: openapi: "3.0.3" (or "3.1.0").')
  })

  it('a 3.1 document of webhooks only is a document (3.1 makes paths optional), with no operations', async () => {
    const dir = project({ 'openapi.yaml': "openapi: 3.1.0\ninfo: { title: x, version: '1' }\nwebhooks:\n  ping:\n    post:\n      responses: { '200': { description: ok } }\n" })
    const api = await load(dir)
    expect((await checkOpenApi(api, [])).operations).toBe(0)
  })
})

describe('readOnly and writeOnly required properties', () => {
  const doc = `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /users:
    post:
      requestBody:
        required: true
        content: { application/json: { schema: { $ref: '#/components/schemas/User' } } }
      responses:
        '201':
          description: created
          content: { application/json: { schema: { $ref: '#/components/schemas/User' } } }
components:
  schemas:
    Entity:
      type: object
      properties:
        id: { type: integer, readOnly: true }
        password: { type: string, writeOnly: true }
    User:
      allOf:
        - $ref: '#/components/schemas/Entity'
        - type: object
          required: [id, name, password]
          properties:
            name: { type: string }
`

  it('a readOnly property declared in another part of the allOf is not required in a request; a writeOnly one is not in an answer', async () => {
    const api = await load(project({ 'openapi.yaml': doc }))
    const traffic = createTrafficCheck(api)
    expect(traffic.check(exchange('POST', 'http://localhost/users', '{"id":1,"name":"Al"}', '{"name":"Al","password":"x"}'))).toEqual([])
    expect(traffic.check(exchange('POST', 'http://localhost/users', '{"name":"Al","password":"x"}', '{"password":"x"}')).map((v) => `${v.where} ${v.message}`)).toEqual([
      "request must have required property 'name' (request body of POST /users)",
      "response must have required property 'id' (response 201 of POST /users)",
    ])
  })

  it('a shared schema requires a property that the schema pulling it in through allOf declares readOnly: not required in a request', async () => {
    const shared = `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /users:
    post:
      requestBody:
        required: true
        content: { application/json: { schema: { $ref: '#/components/schemas/User' } } }
      responses:
        '201':
          description: created
          content: { application/json: { schema: { type: object, properties: { user: { $ref: '#/components/schemas/User' } } } } }
components:
  schemas:
    Base:
      type: object
      required: [id, name]
    User:
      allOf:
        - $ref: '#/components/schemas/Base'
        - type: object
          properties:
            id: { type: integer, readOnly: true }
            name: { type: string }
`
    const dir = project({ 'openapi.yaml': shared, 'data/wrapped.json': { user: { name: 'Al' } } })
    const api = await load(dir)
    const traffic = createTrafficCheck(api)
    expect(traffic.check(exchange('POST', 'http://localhost/users', '{"user":{"id":1,"name":"Al"}}', '{"name":"Al"}'))).toEqual([])
    // Still required in an answer, found at its place inside the answer's value.
    expect(traffic.check(exchange('POST', 'http://localhost/users', '{"user":{"name":"Al"}}', '{}')).map((v) => `${v.where} ${v.message}`)).toEqual([
      "request must have required property 'name' (request body of POST /users)",
      "response must have required property 'id' (response 201 of POST /users)",
    ])
    expect(await problems(api, dir, { users: { post: { status: 201, file: 'wrapped.json' } } })).toEqual([
      "/user: must have required property 'id' (schema openapi.yaml#/components/schemas/Base/required, response 201 of POST /users)",
    ])
  })

  it('check reads a data file as an answer, by the same rule: a required writeOnly property is not expected in it', async () => {
    const dir = project({ 'openapi.yaml': doc, 'data/user.json': { id: 1, name: 'Al' }, 'data/no-id.json': { name: 'Al' } })
    const api = await load(dir)
    expect(await problems(api, dir, { users: { post: { status: 201, file: 'user.json' } } })).toEqual([])
    expect(await problems(api, dir, { users: { post: { status: 201, file: 'no-id.json' } } })).toEqual([": must have required property 'id' (schema openapi.yaml#/components/schemas/User/allOf/1/required, response 201 of POST /users)"])
  })
})

describe('paths with non-ASCII literals', () => {
  it('a request path and a route key carry them percent-encoded, and reach the operation', async () => {
    const dir = project({
      'openapi.yaml': `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /café/menu:
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
`,
      'data/menu.json': {},
    })
    const api = await load(dir)
    expect(await problems(api, dir, { 'caf%C3%A9/menu': { get: 'menu.json' } })).toEqual([])
    expect(createTrafficCheck(api).check(exchange('GET', 'http://localhost/café/menu', '{}'))).toEqual([])
  })
})

describe('remote $refs', () => {
  it('are refused in the words of the command that reads the document', async () => {
    const dir = project({ 'openapi.yaml': "openapi: 3.1.0\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    get:\n      responses: { '200': { $ref: 'http://example.invalid/a.yaml' } }\n" })
    await expect(load(dir, 'openapi.yaml', 'mockyard init')).rejects.toThrow('is remote (http://example.invalid/a.yaml); mockyard init makes no network access, so it was not fetched')
    await expect(load(dir)).rejects.toThrow('; mockyard check makes no network access')
  })
})
