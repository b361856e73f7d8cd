/**
 * The `validate` option on the node handles, in process: unset, nothing of the checker is loaded
 * and nothing changes (no `violations`, coverage explains what to set); set, `startMockServer`,
 * `MockServer` and `createMiddleware` check what they answer and count it for `coverage()`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ConfigError, createMiddleware, MockServer, startMockServer } from 'mockyard/node'
import { createAdminClient } from 'mockyard/playwright'
import { API_PROJECT, writeFiles } from './project.js'

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-validate-handles-'))
  writeFiles(root, API_PROJECT)
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Whether the document reader or the JSON Schema validator (CommonJS packages) are loaded in this process. */
const checkerLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => /node_modules[\\/](ajv|ajv-formats|@apidevtools)[\\/]/.test(path))

const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error() {} })
const options = () => ({ routes: join(root, 'api/routes.json'), data: join(root, 'api/data') })

it('unset: nothing of the checker loads, records have no violations, and coverage says what to set', async () => {
  const server = await startMockServer(options())
  try {
    expect((await fetch(`${server.url}/api/v2/users/7`)).status).toBe(200)
    expect(checkerLoaded()).toBe(false)
    expect(server.requests()[0]).not.toHaveProperty('violations')
    expect(((await (await fetch(`${server.url}/__mockyard/requests`)).json()) as { requests: object[] }).requests[0]).not.toHaveProperty('violations')
    const coverage = await fetch(`${server.url}/__mockyard/coverage`)
    expect(coverage.status).toBe(404)
    expect(((await coverage.json()) as { message: string }).message).toBe('[mockyard] /__mockyard/coverage needs the validate option: start mockyard with --validate <your OpenAPI document> (validate in the config file).')
    expect(() => server.coverage()).toThrow('[mockyard] coverage() needs the validate option: set validate to the path of your OpenAPI document (--validate openapi.yaml on the command line).')
  } finally {
    await server.stop()
  }
})

it('startMockServer: violations on the records, coverage() on the handle', async () => {
  const server = await startMockServer({ ...options(), validate: join(root, 'api/openapi.yaml') })
  try {
    expect(checkerLoaded()).toBe(true)
    await fetch(`${server.url}/api/v2/users/7`)
    await fetch(`${server.url}/api/v2/users/7`, { method: 'DELETE' })
    const [get, remove] = server.requests()
    // The document is outside the working folder: its path is shown whole.
    expect(get!.violations).toEqual([{ where: 'response', pointer: '', message: "must have required property 'email' (response 200 of GET /users/{id})", schema: join(root, 'api/schemas.yaml#/User/required') }])
    expect(remove).not.toHaveProperty('violations')
    server.reset()
    const coverage = server.coverage()
    expect(coverage.answered).toBe(2)
    expect(coverage.total).toBe(6)
    expect(coverage.operations.find((operation) => operation.operationId === 'deleteUser')).toEqual({ method: 'DELETE', path: '/users/{id}', operationId: 'deleteUser', answered: 1 })
  } finally {
    await server.stop()
  }
})

it('MockServer and createMiddleware check what they answer too', async () => {
  const mockServer = new MockServer({ ...options(), validate: join(root, 'api/openapi.yaml'), latency: 0, watch: false, logProvider: quiet })
  const { url } = await mockServer.start({ host: '127.0.0.1', port: 0 })
  const middleware = await createMiddleware({ ...options(), validate: join(root, 'api/openapi.yaml'), latency: 0, watch: false, logProvider: quiet })
  const app: Server = createServer((req, res) => middleware(req, res, () => res.writeHead(404).end()))
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  try {
    await fetch(`${url}/api/v2/carts`)
    expect(mockServer.harness!.requests()[0]!.violations?.[0]?.message).toMatch(/^no path of .*openapi\.yaml matches GET \/api\/v2\/carts/)
    expect(mockServer.harness!.coverage().answered).toBe(0)
    const port = (app.address() as { port: number }).port
    await fetch(`http://127.0.0.1:${port}/api/v2/users?role=x`)
    expect(middleware.requests()[0]!.violations?.map((v) => v.pointer)).toEqual(['/1', '/1/id', '/1/email'])
    expect(middleware.coverage().operations[0]).toEqual({ method: 'GET', path: '/users', operationId: 'listUsers', answered: 1 })
  } finally {
    await mockServer.stop()
    await new Promise((resolve) => app.close(resolve))
    await middleware.close()
  }
})

it('the Playwright admin client reads the coverage over HTTP', async () => {
  const server = await startMockServer({ ...options(), validate: join(root, 'api/openapi.yaml') })
  try {
    await fetch(`${server.url}/api/v2/users?role=admin`)
    const coverage = await createAdminClient(server.url).coverage()
    expect(coverage.operations.map((operation) => operation.answered)).toEqual([1, 0, 0, 0, 0, 0])
    expect(coverage.text.split('\n')[0]).toMatch(/openapi\.yaml: 1 of 6 operations answered; never answered:$/)
  } finally {
    await server.stop()
  }
})

it('validate is checked like every option, and a config file names the document from its own folder', async () => {
  const error = await startMockServer({ ...options(), validate: 5 as unknown as string }).catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(ConfigError)
  expect((error as ConfigError).problems).toEqual([{ file: 'options', pointer: '/validate', message: 'validate must be a non-empty string, got 5', fix: 'Set validate to a string.' }])
  writeFiles(root, { 'mocks/config.json': { routes: '../api/routes.json', data: '../api/data', validate: '../api/openapi.yaml' } })
  const server = await startMockServer(join(root, 'mocks/config.json'))
  try {
    await fetch(`${server.url}/api/v2/users/7`, { method: 'DELETE' })
    expect(server.coverage().answered).toBe(1)
  } finally {
    await server.stop()
  }
})
