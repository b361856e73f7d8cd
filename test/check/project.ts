/**
 * A project with one problem of every kind `mockyard check` finds, written into a temporary
 * folder (the tests run the built CLI there, as a user would).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

export function writeFiles(root: string, files: Record<string, unknown>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true })
    writeFileSync(join(root, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2) + '\n')
  }
}

/** Routes and data with a problem of each kind the loader and the dead-config rules find. */
export const CONFIG_PROJECT: Record<string, unknown> = {
  'mocks/routes.json': {
    $schema: 'https://unpkg.com/mockyard/schema/routes.json',
    'v1/users': { file: 'users.json', colour: 'red' },
    'v1/orders': { file: 'orders.json' },
    'v1/broken': { file: 'broken.json' },
    'v1/claims': {
      get: [
        { file: 'a.json', params: { status: 'open' } },
        { file: 'b.json', params: { status: 'open' } },
      ],
    },
    'v1/jobs': { get: [{ file: 'a.json' }, { file: 'b.json', params: {} }] },
    'v1/plain': { get: [{ file: 'a.json' }, { file: 'b.json' }] },
    'v1/items/:id': { file: 'a.json' },
    'v1/items/:name': { file: 'b.json' },
    'v1/help': { url: 'https://example.com/help', file: 'a.json' },
    'v1/gone': { delete: { status: 204, file: 'a.json' } },
  },
  'mocks/more-routes.json': {
    'v1/more': { status: '200', file: 'a.json', get: [{ file: 'missing.json', params: { a: 1 } }] },
  },
  'mocks/data/users.json': [{ id: 1 }],
  'mocks/data/a.json': { a: 1 },
  'mocks/data/b.json': { b: 1 },
  'mocks/data/broken.json': '{\n  "a": 1,\n  oops\n}\n',
}

/** An API document (3.1, YAML, $refs into a second file) and routes that disagree with it. */
export const API_PROJECT: Record<string, unknown> = {
  'api/openapi.yaml': `openapi: 3.1.0
info: { title: shop, version: '2' }
servers:
  - url: https://shop.example.com/api/{version}
    variables:
      version: { default: v2 }
paths:
  /users:
    get:
      operationId: listUsers
      parameters:
        - { name: role, in: query, schema: { type: string } }
      responses:
        '200':
          description: The users.
          content:
            application/json:
              schema: { type: array, items: { $ref: 'schemas.yaml#/User' } }
  /users/{id}:
    get:
      operationId: getUser
      responses:
        '200':
          description: One user.
          content:
            application/json:
              schema: { $ref: 'schemas.yaml#/User' }
        '404': { description: No such user. }
    delete:
      operationId: deleteUser
      responses:
        '204': { description: Deleted. }
  /orders:
    post:
      operationId: createOrder
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                lines: { type: array, items: { type: object, properties: { sku: { type: string } } } }
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: { type: object }
  /report.pdf:
    get:
      operationId: getReport
      responses:
        '200':
          description: The report.
          content:
            application/pdf: {}
  /health:
    get:
      operationId: health
      responses:
        '200': { description: Up. }
`,
  'api/schemas.yaml': `User:
  type: object
  required: [id, email]
  additionalProperties: false
  properties:
    id: { type: integer }
    email: { type: string, format: email }
`,
  'api/routes.json': {
    'api/v2/users': {
      get: [
        { file: 'users.json' },
        { file: 'users.json', params: { role: 'admin', page: 2 } },
      ],
    },
    'api/v2/users/:id': { get: 'user.json', delete: { status: 204 }, put: 'user.json' },
    'api/v2/users/42/': { get: { file: 'user.json', status: 201 } },
    'api/v2/orders': { post: [{ file: 'order.xml', status: 201, params: { 'lines[0].sku': 'X', 'lines[0].colour': 'red' } }] },
    'api/v2/report': { file: 'report.txt' },
    'api/v2/carts': { file: 'user.json' },
  },
  'api/data/users.json': [{ id: 1, email: 'ada@example.com' }, { id: '2', email: 'not-an-email', admin: true }],
  'api/data/user.json': { id: 1 },
  'api/data/order.xml': '<order/>',
  'api/data/report.txt': 'report',
}
