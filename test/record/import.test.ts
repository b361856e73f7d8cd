import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { filesUnder, killAll, runCli, see, startCli } from './support.js'

const CHROME_HAR = fileURLToPath(new URL('./fixtures/chrome.har', import.meta.url))

interface HarEntry {
  request: { method: string; url: string; postData?: { text: string; mimeType: string } }
  response: { status: number; headers: Array<{ name: string; value: string }>; content: { text?: string; encoding?: string; mimeType: string } }
}
const chrome = JSON.parse(readFileSync(CHROME_HAR, 'utf8')) as { log: { entries: HarEntry[] } }

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-'))
  dirs.push(dir)
  return dir
}
afterEach(() => killAll())
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Replays a HAR entry against a server and checks status, media type and body bytes against the HAR. */
async function expectSameAnswer(base: string, entry: HarEntry): Promise<void> {
  const url = new URL(entry.request.url)
  const init: RequestInit = { method: entry.request.method, redirect: 'manual' }
  if (entry.request.postData) init.body = entry.request.postData.text
  if (entry.request.postData) init.headers = { 'content-type': entry.request.postData.mimeType }
  const got = await see(await fetch(base + url.pathname + url.search, init))
  const header = (name: string) => entry.response.headers.find((h) => h.name.toLowerCase() === name)?.value ?? null
  const label = `${entry.request.method} ${url.pathname}${url.search}`
  expect({ label, status: got.status }).toEqual({ label, status: entry.response.status })
  if (entry.response.status >= 300 && entry.response.status < 400) {
    // The back end's own absolute Location is written as a path: the client stays on the mock.
    expect(got.location, label).toBe(new URL(header('location')!, url).pathname)
    return
  }
  const content = entry.response.content
  const body = content.text === undefined ? Buffer.alloc(0) : Buffer.from(content.text, content.encoding === 'base64' ? 'base64' : 'utf8')
  expect(got.body.equals(body), label).toBe(true)
  if (body.length > 0) expect({ label, type: got.type }).toEqual({ label, type: (header('content-type') ?? content.mimeType).split(';')[0] })
}

const imported = (entry: HarEntry) => /^https:/.test(entry.request.url) && entry.response.content.text !== undefined || [204, 301].includes(entry.response.status)

describe('mockyard import', () => {
  it('writes a Chrome HAR as mocks that answer each request as the HAR says; entries without content are listed', async () => {
    const out = join(tempDir(), 'mocks')
    const { code, stderr } = runCli(['import', CHROME_HAR, '--out', out, '--all'])
    expect(code).toBe(0)
    expect(stderr).toContain('2 HAR entries were not imported')
    expect(stderr).toMatch(/#6 GET https:\/\/api\.example\.com\/api\/v2\/reports\/annual: the HAR holds no response content \(52344 bytes were not saved\)/)
    expect(stderr).toMatch(/#7 GET data:image\/gif;base64,R0lGODlhAQABAAAAACw=: not an http\(s\) request/)
    expect(stderr).toContain('7 requests seen: 5 routes, 7 entries, 5 files written')

    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes['api/v2/orders'].get.map((e: { params: unknown }) => e.params)).toEqual([{ status: 'open' }, { status: 'closed' }])
    expect(routes['api/v2/reports/annual']).toBeUndefined()
    // JSON exactly as received; binary bytes unchanged.
    expect(readFileSync(join(out, 'data', 'api-v2-orders.json'), 'utf8')).toBe(chrome.log.entries[0]!.response.content.text)
    for (const { bytes } of filesUnder(out)) {
      for (const secret of ['har-AUTH-3b9c1d', 'har-COOKIE-5e6f7a', 'har-SETCOOKIE-2a4b']) expect(bytes.toString('latin1')).not.toContain(secret)
    }

    const mock = await startCli(['--routes', join(out, 'routes.json'), '--data', join(out, 'data'), '--latency', '0', '--port', '0', '--no-watch'])
    const entries = chrome.log.entries.filter(imported)
    expect(entries).toHaveLength(7)
    for (const entry of entries) await expectSameAnswer(mock.url, entry)
  })

  it("imports Playwright's recordHar output, its content in _file side files", async () => {
    const dir = tempDir()
    const json = '{"items":[1,2,3]}'
    writeFileSync(join(dir, '0a1b2c3d.json'), json)
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'Playwright', version: '1.49.0' },
        entries: [
          {
            startedDateTime: '2026-11-20T10:00:00.000Z',
            time: 5,
            request: { method: 'GET', url: 'http://localhost:3000/api/items', httpVersion: 'HTTP/1.1', cookies: [], headers: [{ name: 'Accept', value: '*/*' }], queryString: [], headersSize: -1, bodySize: 0 },
            response: {
              status: 200,
              statusText: 'OK',
              httpVersion: 'HTTP/1.1',
              cookies: [],
              headers: [{ name: 'Content-Type', value: 'application/json' }],
              content: { size: json.length, mimeType: 'application/json', _file: '0a1b2c3d.json' },
              headersSize: -1,
              bodySize: json.length,
              redirectURL: '',
            },
            cache: {},
            timings: { send: 0, wait: 1, receive: 1 },
          },
        ],
      },
    }
    writeFileSync(join(dir, 'session.har'), JSON.stringify(har))
    const out = join(dir, 'mocks')
    const { code, stderr } = runCli(['import', join(dir, 'session.har'), '--out', out])
    expect(code, stderr).toBe(0)
    expect(readFileSync(join(out, 'data', 'api-items.json'), 'utf8')).toBe(json)
    const mock = await startCli(['--routes', join(out, 'routes.json'), '--latency', '0', '--port', '0', '--no-watch'])
    expect(await (await fetch(`${mock.url}/api/items`)).text()).toBe(json)
  })

  it('merges into a hand-written routes.json: hand keys and entries untouched, recorded ones added, a clash reported', async () => {
    const out = join(tempDir(), 'mocks')
    mkdirSync(join(out, 'data'), { recursive: true })
    const hand = {
      'api/v2/orders': { get: [{ file: 'hand-orders.json', params: { status: 'open' } }] },
      'hand/only': { file: 'hand.json', latency: 20 },
    }
    writeFileSync(join(out, 'routes.json'), JSON.stringify(hand, null, 2))
    writeFileSync(join(out, 'data', 'hand-orders.json'), '{"hand":true}')
    writeFileSync(join(out, 'data', 'hand.json'), '{"only":"hand"}')
    // A data file of the same name as a recorded one would get: it must survive.
    writeFileSync(join(out, 'data', 'static-logo.png'), 'not the logo')

    const { code, stderr } = runCli(['import', CHROME_HAR, '--out', out, '--all'])
    expect(code).toBe(0)
    expect(stderr).toContain('1 clash with the existing routes (not written)')
    expect(stderr).toMatch(/GET \/api\/v2\/orders: recorded but not written, .*routes\.json already answers it \(route "api\/v2\/orders"\)/)

    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes['hand/only']).toEqual(hand['hand/only'])
    expect(routes['api/v2/orders'].get).toEqual(hand['api/v2/orders'].get)
    expect(routes['api/v2/orders'].post).toMatchObject({ status: 201, file: 'api-v2-orders-post.json' })
    expect(routes['static/logo.png'].get.file).toBe('static-logo-2.png')
    expect(readFileSync(join(out, 'data', 'static-logo.png'), 'utf8')).toBe('not the logo')
    expect(readFileSync(join(out, 'data', 'hand-orders.json'), 'utf8')).toBe('{"hand":true}')

    const mock = await startCli(['--routes', join(out, 'routes.json'), '--data', join(out, 'data'), '--latency', '0', '--port', '0', '--no-watch'])
    expect(await (await fetch(`${mock.url}/api/v2/orders?status=open`)).json()).toEqual({ hand: true })
    expect(await (await fetch(`${mock.url}/hand/only`)).json()).toEqual({ only: 'hand' })
    await expectSameAnswer(mock.url, chrome.log.entries[3]!)
    await expectSameAnswer(mock.url, chrome.log.entries[2]!)
  })

  it('a file that is not a HAR exits 1 and says what it expected', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'not.har'), '{"entries":[]}')
    const { code, stderr } = runCli(['import', join(dir, 'not.har'), '--out', join(dir, 'mocks')])
    expect(code).toBe(1)
    expect(stderr).toContain('not.har#/log/entries: this is not a HAR file: it has no log.entries array')
  })
})
