/**
 * docs/behaviour.md, "Overrides", over the listener: overrides layer a session's own over
 * everyone's over the loaded routes, through the admin client the Playwright fixture uses, and
 * the routes in force (`GET /__mockyard/routes`) show what replaced what.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { createAdminClient } from 'mockyard/playwright'
import { EXAMPLES_DATA, EXAMPLES_ROUTES } from '../contract/cases.js'
import { captureLogs, removeTempDirs, writeMocks } from '../support/routes.js'

describe('overrides over the listener', () => {
  let server: RunningServer
  const logs = captureLogs()
  beforeAll(async () => {
    server = await startMockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA, logProvider: logs.logProvider })
  })
  afterAll(() => server?.stop())
  beforeEach(() => createAdminClient(server.url).reset())

  const answer = async (path: string, session?: string, init: RequestInit = {}) => {
    const res = await fetch(server.url + path, { ...init, headers: session ? { 'x-mockyard-session': session } : {} })
    return { status: res.status, layer: res.headers.get('x-layer'), body: await res.text() }
  }

  it("a session's override layers over everyone's, which layers over the loaded routes", async () => {
    await createAdminClient(server.url).useRoutes({ 'v1/claims': { get: { status: 500 } } })
    await createAdminClient(server.url, { session: 'a' }).useRoutes({ 'v1/claims': { responseHeaders: { 'x-layer': 'a' } } })
    await createAdminClient(server.url, { session: 'b' }).useRoutes({ 'v1/claims': { status: 201 } })
    expect(await answer('/v1/claims?status=open')).toEqual({ status: 500, layer: null, body: '' })
    expect(await answer('/v1/claims?status=open', 'a')).toEqual({ status: 500, layer: 'a', body: '' })
    expect(await answer('/v1/claims?status=open', 'b')).toEqual({ status: 201, layer: null, body: '' })
    expect(await answer('/v1/claims', 'a', { method: 'POST' })).toEqual({ status: 200, layer: 'a', body: '{"file":"claims-all.json"}\n' })
    expect(await answer('/v1/claims', 'c', { method: 'POST' })).toEqual({ status: 200, layer: null, body: '{"file":"claims-all.json"}\n' })
  })

  it("everyone's override given after a session's own still lies under it", async () => {
    await createAdminClient(server.url, { session: 'a' }).useRoutes({ 'v1/claims': { responseHeaders: { 'x-layer': 'a' } } })
    await createAdminClient(server.url).useRoutes({ 'v1/users': { status: 503 }, 'v1/claims': { get: { status: 500 } } })
    expect(await answer('/v1/users', 'a')).toEqual({ status: 503, layer: null, body: '' })
    expect(await answer('/v1/claims?status=open', 'a')).toEqual({ status: 500, layer: 'a', body: '' })
    expect((await createAdminClient(server.url, { session: 'a' }).routes())['v1/users']).toEqual({ status: 503 })
  })

  it('an override restarts the sequences it replaces, and only those', async () => {
    const status = async (session?: string) => (await answer('/v1/jobs/42', session)).status
    const admin = createAdminClient(server.url)
    // v1/jobs/42 answers 202, 202, then 200, then starts over.
    expect([await status(), await status(), await status('a')]).toEqual([202, 202, 202])
    await admin.useRoutes({ 'v1/users': { status: 503 } })
    await admin.useRoutes({ 'v1/jobs/42': { responseHeaders: { 'x-layer': 'laid over' } } })
    expect(await answer('/v1/jobs/42')).toMatchObject({ status: 200, layer: 'laid over' })
    // A session's first override of its own keeps its positions too.
    await createAdminClient(server.url, { session: 'a' }).useRoutes({ 'v1/orders': { status: 503 } })
    expect([await status('a'), await status('a')]).toEqual([202, 200])
    // Replacing the method restarts its sequence, for everyone and for every session.
    await admin.useRoutes({ 'v1/jobs/42': { get: [{ response: [{ status: 201 }, { status: 204 }] }] } })
    expect([await status(), await status('a'), await status('a'), await status()]).toEqual([201, 201, 204, 204])
    // A session's override restarts that session's sequence only.
    await createAdminClient(server.url, { session: 'a' }).useRoutes({ 'v1/jobs/42': { get: [{ response: [{ status: 206 }, { status: 207 }] }] } })
    expect([await status('a'), await status()]).toEqual([206, 201])
  })

  it('an override is read when it is given: changing the object afterwards changes nothing', async () => {
    const routes = { 'v1/users': { status: 500 } }
    server.useRoutes(routes)
    routes['v1/users'].status = 503
    expect((await answer('/v1/users')).status).toBe(500)
    expect(() => server.useRoutes({ 'v1/users': { status: 500, then: () => 1 } } as never)).toThrow(
      /the routes of an override hold a value that is not plain data \(.*\)\. Give useRoutes\(\) JSON values only/,
    )
  })

  it('the routes in force show the replaced method, and the untouched ones as loaded', async () => {
    const routes = await createAdminClient(server.url).useRoutes({ 'v1/claims': { get: { status: 500 } }, 'v1/users': { status: 503 } })
    expect(routes['v1/claims']).toEqual({ file: 'claims-all.json', get: { status: 500 } })
    expect(routes['v1/users']).toEqual({ status: 503 })
  })

  it('an unknown key in an override is warned about, naming the likely key; an override that answers nothing replaces nothing', async () => {
    await createAdminClient(server.url).useRoutes({ 'v1/users': { fiel: 'other.json' }, 'v1/new': { fiel: 'users.json' } } as never)
    expect(logs.warn).toContain('[mockyard] useRoutes()#/v1~1users/fiel: unknown key "fiel" in a route; it is ignored. Did you mean "file"? Rename it, or remove it.')
    expect(await answer('/v1/users')).toEqual({ status: 200, layer: null, body: '{"file":"users.json"}\n' })
    const res = await fetch(server.url + '/v1/new')
    expect(res.status).toBe(404)
    expect(((await res.json()) as { message: string }).message).toContain('v1/new answers no method: it has no file, url or status and no method key. Did you mean "file" for "fiel"?')
  })
})

describe('the files of an inline override', () => {
  it('are read from the data folder of the routes file when no data option is given, not from the working folder', async () => {
    const mocks = writeMocks({ 'v1/users': { file: 'users.json' } }, { 'users.json': '"loaded"', 'other.json': '"override"' })
    const server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
    try {
      expect(await (await fetch(`${server.url}/v1/users`)).json()).toBe('loaded')
      server.useRoutes({ 'v1/users': { file: 'other.json' } })
      const res = await fetch(`${server.url}/v1/users`)
      expect([res.status, await res.json()]).toEqual([200, 'override'])
      // The same through the admin endpoint the Playwright fixture uses, for one session.
      await createAdminClient(server.url, { session: 's1' }).useRoutes({ 'v1/users': { file: 'users.json', status: 202 } })
      const own = await fetch(`${server.url}/v1/users`, { headers: { 'x-mockyard-session': 's1' } })
      expect([own.status, await own.json()]).toEqual([202, 'loaded'])
    } finally {
      await server.stop()
      removeTempDirs()
    }
  })
})
