/**
 * `mockyard import` (docs/behaviour.md, "mockyard import"): how the requests of a HAR are read,
 * form fields given as `postData.params` and requests to several origins. The HAR is imported
 * (the API, or the real CLI for what it says), then a real listener serves what was written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { importHar, startMockServer } from 'mockyard/node'
import { runCli } from './support.js'

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-requests-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function writeHar(dir: string, entries: unknown[]): string {
  const path = join(dir, 'session.har')
  writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }))
  return path
}

const json = (url: string, body: unknown, request: Record<string, unknown> = {}) => ({
  request: { method: 'GET', url, headers: [], ...request },
  response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content: { size: 1, mimeType: 'application/json', text: JSON.stringify(body) }, redirectURL: '' },
})

describe('form fields given as postData.params', () => {
  it('a urlencoded form with params and no text is scored by its fields: each login replays its own answer', async () => {
    const dir = tempDir()
    const login = (user: string) =>
      json('https://api.example.com/login', { user }, { method: 'POST', headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }], postData: { mimeType: 'application/x-www-form-urlencoded', params: [{ name: 'user', value: user }, { name: 'note', value: 'a b&c' }] } })
    const out = join(dir, 'mocks')
    await importHar(writeHar(dir, [login('a'), login('b'), login('a')]), { out })
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')) as Record<string, { post: Array<{ params: unknown }> }>
    expect(routes.login!.post.map((entry) => entry.params)).toEqual([{ user: 'a' }, { user: 'b' }])
    const server = await startMockServer({ routes: join(out, 'routes.json') })
    try {
      const post = (user: string) => fetch(`${server.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `user=${user}&note=x` }).then((r) => r.json())
      expect(await post('b')).toEqual({ user: 'b' })
      expect(await post('a')).toEqual({ user: 'a' })
    } finally {
      await server.stop()
    }
  })
})

describe('requests to several origins', () => {
  const entries = [json('https://api.example.com/v1/config', { api: true }), json('https://api.example.com/v1/users', []), json('https://telemetry.vendor.io/v1/config', { vendor: true })]

  it('says which origins were merged into one routes.json, and how to import one', () => {
    const dir = tempDir()
    const result = runCli(['import', writeHar(dir, entries), '--out', join(dir, 'mocks')])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('the HAR holds requests to 2 origins, written into one routes.json as if one back end answered them all')
    expect(result.stderr).toContain('https://api.example.com (2 entries), https://telemetry.vendor.io (1 entry)')
    expect(result.stderr).toContain('--origin https://api.example.com')
  })

  it('--origin imports that origin only, and says how many entries it left out', async () => {
    const dir = tempDir()
    const out = join(dir, 'mocks')
    const result = runCli(['import', writeHar(dir, entries), '--out', out, '--origin', 'https://api.example.com'])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('1 entry to other origins than https://api.example.com was left out (--origin)')
    expect(result.stderr).not.toContain('origins, written into one routes.json')
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')) as Record<string, { get: { file: string } }>
    expect(JSON.parse(readFileSync(join(out, 'data', routes['v1/config']!.get.file), 'utf8'))).toEqual({ api: true })
    expect(runCli(['import', join(dir, 'session.har'), '--out', out, '--origin', 'api.example.com']).stderr).toContain('the origin "api.example.com" is not an http(s) URL')
  })
})
