/**
 * docs/behaviour.md, "Requests on the wire": no request shape holds the event loop. Each hostile
 * request goes to a real listener in this process while the event loop's delay is measured; the
 * bound (1 s) is generous on purpose: these shapes held the loop 2.5 to 10 s before.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, engineFor, fileOf, form, json, named, rawRequest, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

/** The longest the event loop was held (ms) while `run` ran. */
async function loopHeld(run: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  try {
    await run()
    // Let the monitor take its samples after the work, whatever it held.
    await new Promise((resolve) => setTimeout(resolve, 50))
  } finally {
    histogram.disable()
  }
  expect(histogram.count).toBeGreaterThan(0)
  return histogram.max / 1e6
}

function multipart(fields: Array<[string, string]>, boundary = 'XyZ'): { body: string; headers: Record<string, string> } {
  const body = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') + `--${boundary}--\r\n`
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

const files = named('default.json', 'entry.json', 'other.json')

describe('hostile shapes over HTTP', () => {
  let server: RunningServer
  beforeAll(async () => {
    const routes: Record<string, unknown> = {
      // The array condition and the explanation look at `user` as a whole.
      'v1/users': { file: 'default.json', post: [{ params: { 'user[0]': 'x' }, file: 'entry.json' }, { params: { user: ['x', 'z'] }, file: 'other.json' }] },
      'v1/explained': { post: [{ params: { user: 'z' }, file: 'entry.json' }] },
      'v1/filter': { file: 'default.json', post: [{ params: { filter: { status: 'open' }, 'a.b.c': 1 }, file: 'entry.json' }], get: [{ params: { a: '1' }, file: 'entry.json' }] },
    }
    for (let i = 0; i < 1000; i++) routes[`v1/generated/route-${i}/items`] = { file: 'default.json' }
    server = await startMockServer({ routes: writeMocks(routes, files).routes, logProvider: captureLogs().logProvider })
  })
  afterAll(() => server.stop())

  const post = (path: string, body: string, headers: Record<string, string>) => rawRequest(server.url, path, { method: 'POST', body, headers })

  it('user[0]=x&user[100000000]=y as a urlencoded body', async () => {
    let status = 0
    const held = await loopHeld(async () => {
      const res = await post('/v1/users', 'user[0]=x&user[100000000]=y', { 'content-type': 'application/x-www-form-urlencoded' })
      status = res.status
      expect(JSON.parse(res.body.toString())).toEqual({ file: 'entry.json' })
    })
    expect(status).toBe(200)
    expect(held).toBeLessThan(1000)
  })

  it('the same as a multipart body', async () => {
    const { body, headers } = multipart([
      ['user[0]', 'x'],
      ['user[100000000]', 'y'],
    ])
    const held = await loopHeld(async () => {
      const res = await post('/v1/users', body, headers)
      expect(JSON.parse(res.body.toString())).toEqual({ file: 'entry.json' })
    })
    expect(held).toBeLessThan(1000)
  })

  it('the same where no entry fits: the explanation quotes the value, shortened', async () => {
    const held = await loopHeld(async () => {
      const res = await post('/v1/explained', 'user[0]=x&user[100000000]=y', { 'content-type': 'application/x-www-form-urlencoded' })
      expect(res.status).toBe(404)
      expect((JSON.parse(res.body.toString()) as { message: string }).message).toContain('param "user" is {"0":"x","100000000":"y"}, expected "z"')
    })
    expect(held).toBeLessThan(1000)
  })

  it('a multipart body of 100,000 parts, and the same as urlencoded (413: over the 1,000 fields a form may have)', async () => {
    const fields = Array.from({ length: 100_000 }, (_, i): [string, string] => [`f${i}[${i}]`, 'v'])
    const { body, headers } = multipart(fields)
    const urlencoded = fields.map(([n, v]) => `${n}=${v}`).join('&')
    const held = await loopHeld(async () => {
      expect((await post('/v1/users', body, headers)).status).toBe(413)
      expect((await post('/v1/users', urlencoded, { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(413)
    })
    expect(held).toBeLessThan(1000)
  })

  it('an unmatched 15,000-character path against 1,000 routes (the closest-route search)', async () => {
    const path = '/v1/generated/' + 'x'.repeat(15_000)
    const held = await loopHeld(async () => {
      const res = await rawRequest(server.url, path)
      expect(res.status).toBe(404)
      expect(res.body.toString()).toContain('Closest routes')
    })
    expect(held).toBeLessThan(1000)
  })

  it('a deeply nested JSON body against dotted paths and an object condition', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)
    const held = await loopHeld(async () => {
      for (const body of [`{"filter":${deep(20_000)},"a":{"b":{"c":1}}}`, `{"a":${'{"b":'.repeat(20_000)}1${'}'.repeat(20_000)}}`, `{"filter":{"status":"open"},"a":{"b":{"c":${deep(20_000)}}}}`]) {
        const res = await post('/v1/filter', body, { 'content-type': 'application/json' })
        expect(res.status).toBe(200)
        expect(JSON.parse(res.body.toString())).toEqual({ file: 'default.json' })
      }
    })
    expect(held).toBeLessThan(1000)
  })

  it('long query strings of repeated parameters, and many headers', async () => {
    const headers: Record<string, string> = {}
    for (let i = 0; i < 200; i++) headers[`x-h-${i}`] = String(i)
    const held = await loopHeld(async () => {
      expect((await rawRequest(server.url, '/v1/filter?' + 'a=2&'.repeat(3000) + 'a=1')).status).toBe(200)
      expect((await rawRequest(server.url, '/v1/nope?' + 'a[0]=1&'.repeat(1000), { headers })).status).toBe(404)
    })
    expect(held).toBeLessThan(1000)
  })
})

describe('form bodies nest brackets exactly as qs does (its default limits)', () => {
  const engine = engineFor(
    {
      'v1/x': {
        file: 'default.json',
        post: [
          { params: { 'a.21': 'x' }, file: 'entry.json' },
          { params: { 'd.b.c.d.e.f.g': '1' }, file: 'other.json' },
        ],
      },
      'v1/path': { file: 'default.json', post: [{ params: { 'a.b[2]': 'x' }, file: 'entry.json' }] },
      'v1/first': { file: 'default.json', post: [{ params: { 'a.b[0]': 'x' }, file: 'entry.json' }] },
      'v1/last': { file: 'default.json', post: [{ params: { p1000: 'x' }, file: 'entry.json' }] },
    },
    files,
  )

  it('an index over 20 makes an object key; up to 20 an array index', async () => {
    expect(await fileOf(engine, '/v1/x', form('a[21]=x'))).toBe('entry.json')
    expect(await fileOf(engine, '/v1/x', form('a[100000000]=x&a[21]=x'))).toBe('entry.json')
  })

  it('nesting stops at depth 5: deeper brackets stay one key', async () => {
    expect(await fileOf(engine, '/v1/x', form('d[b][c][d][e][f][g]=1'))).toBe('default.json')
  })

  it('a body path a.b[2] matches the field a[b][2]=x, where qs compacts the lone item to a.b[0]', async () => {
    expect(await fileOf(engine, '/v1/path', form('a[b][2]=x'))).toBe('entry.json')
    expect(await fileOf(engine, '/v1/path', form('a[b][0]=p&a[b][1]=q&a[b][2]=x'))).toBe('entry.json')
    expect(await fileOf(engine, '/v1/first', form('a[b][2]=x'))).toBe('entry.json')
  })

  it('1,000 parameters are all read (the 1,000th scores)', async () => {
    const params = Array.from({ length: 1000 }, (_, i) => `p${i + 1}=x`).join('&')
    expect(await fileOf(engine, '/v1/last', form(params))).toBe('entry.json')
  })

  it('the JSON body rules are unchanged (paths in JSON are not qs)', async () => {
    expect(await fileOf(engine, '/v1/path', json({ a: { b: ['p', 'q', 'x'] } }))).toBe('entry.json')
    expect(await fileOf(engine, '/v1/path', json({ a: { b: ['x'] } }))).toBe('default.json')
  })
})
