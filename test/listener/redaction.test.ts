/** docs/behaviour.md, "Security": secret header values read <redacted> in the log, log lines and every explanation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoutesConfig } from 'mockyard'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, engineFor, named, rawRequest, removeTempDirs, send, writeMocks, type CapturedLogs } from '../support/routes.js'

afterAll(removeTempDirs)

const routes: RoutesConfig = {
  'v1/me': {
    get: [
      { headers: { Authorization: 'Bearer CONFIGURED-TOKEN' }, file: 'me.json' },
      { headers: { cookie: 'sid=CONFIGURED-COOKIE', 'x-role': 'admin' }, file: 'me.json' },
    ],
  },
  'v1/open': { file: 'me.json' },
}
const files = named('me.json')
const secrets = {
  authorization: 'Bearer SENT-TOKEN',
  'proxy-authorization': 'Basic SENT-PROXY',
  cookie: 'sid=SENT-COOKIE',
  'set-cookie': 'sid=SENT-SET-COOKIE',
  'x-role': 'user',
}
const SECRET = /SENT-|CONFIGURED-/

describe('over HTTP', () => {
  let server: RunningServer
  let logs: CapturedLogs
  beforeAll(async () => {
    logs = captureLogs()
    server = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: logs.logProvider })
  })
  afterAll(() => server.stop())

  it("the 404 explaining why a route's headers condition missed shows <redacted>, not the values", async () => {
    for (const accept of ['application/json', 'text/html', 'application/xml']) {
      const res = await rawRequest(server.url, '/v1/me', { headers: { ...secrets, accept } })
      expect(res.status).toBe(404)
      const body = res.body.toString()
      expect(body).toContain('authorization')
      expect(body).toMatch(/(<|&#60;)redacted(>|&#62;), expected (<|&#60;)redacted(>|&#62;)/)
      expect(body).not.toMatch(SECRET)
    }
    // The warning logged with it, and every other log line, too.
    expect(logs.warn.join('\n')).toContain('<redacted>')
    for (const line of [...logs.info, ...logs.warn, ...logs.error]) expect(line).not.toMatch(SECRET)
  })

  it('the request log (in code and through the admin endpoint)', async () => {
    await rawRequest(server.url, '/v1/open', { headers: secrets })
    const record = server.requests({ path: '/v1/open' }).at(-1)!
    for (const name of ['authorization', 'proxy-authorization', 'cookie', 'set-cookie']) expect(record.headers[name]).toBe('<redacted>')
    expect(record.headers['x-role']).toBe('user')
    const viaAdmin = (await rawRequest(server.url, '/__mockyard/requests')).body.toString()
    expect(viaAdmin).toContain('<redacted>')
    expect(viaAdmin).not.toMatch(SECRET)
  })
})

describe('in process (the explanation a Vitest failure prints)', () => {
  it('names the header, never its value', async () => {
    const engine = engineFor(routes, files)
    const result = await send(engine, '/v1/me', { headers: { authorization: 'Bearer SENT-TOKEN', cookie: 'sid=SENT-COOKIE' } })
    expect(result.matched).toBe(false)
    expect(result.explanation).toBe(
      [
        '[mockyard] no route answers GET /v1/me: every entry of v1/me (GET) is out:',
        '  - get[0]: header "authorization" is <redacted>, expected <redacted>',
        '  - get[1]: header "cookie" is <redacted>, expected <redacted>',
        'Add an entry without params to "v1/me" as the default, or send a request that fits one of the entries.',
      ].join('\n'),
    )
    expect(result.explanation).not.toMatch(SECRET)
  })

  it('other headers are still shown', async () => {
    const engine = engineFor({ 'v1/x': { get: [{ headers: { 'x-role': 'admin' }, file: 'me.json' }] } }, files)
    const result = await send(engine, '/v1/x', { headers: { 'x-role': 'user' } })
    expect(result.explanation).toBe(
      [
        '[mockyard] no route answers GET /v1/x: every entry of v1/x (GET) is out:',
        '  - get[0]: header "x-role" is "user", expected "admin"',
        'Add an entry without params to "v1/x" as the default, or send a request that fits one of the entries.',
      ].join('\n'),
    )
  })
})
