/**
 * `mockyard import` of HAR files as they come: a browser session with the page's own requests,
 * malformed entries, side files that point elsewhere, odd statuses, and a 10,000-entry session.
 * The real CLI imports a real file on disk, then the CLI serves what it wrote.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { writeLargeHar } from './fixtures/generate-har.mjs'
import { killAll, runCli, startCli, type Cli } from './support.js'

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-shapes-'))
  dirs.push(dir)
  return dir
}
afterEach(() => killAll())
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A HAR entry as Firefox exports it (no `_resourceType`). */
function entry(url: string, status: unknown, type: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    request: { method: 'GET', url, headers: [{ name: 'Accept', value: '*/*' }] },
    response: { status, headers: [{ name: 'Content-Type', value: type }], content: { size: text.length, mimeType: type, text }, redirectURL: '' },
    ...extra,
  }
}

function writeHar(dir: string, entries: unknown[], name = 'session.har'): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 'Firefox', version: '133' }, entries } }))
  return path
}

const serve = (out: string): Promise<Cli> => startCli(['--routes', join(out, 'routes.json'), '--data', join(out, 'data'), '--latency', '0', '--port', '0', '--no-watch'])

const PAGE = [
  entry('http://localhost:5173/', 200, 'text/html', '<!doctype html><title>app</title>'),
  entry('http://localhost:5173/style.css', 200, 'text/css', 'body{}'),
  entry('http://localhost:5173/script.js', 200, 'text/javascript', 'fetch("/api/data")'),
  entry('http://localhost:5173/api/data', 200, 'application/json', '{"data":[1,2]}'),
]

describe('mockyard import: what a HAR holds', () => {
  it("imports a browser session's API requests only; --all imports the page's own requests too", async () => {
    const dir = tempDir()
    const har = writeHar(dir, PAGE)
    const out = join(dir, 'mocks')
    const { code, stderr } = runCli(['import', har, '--out', out])
    expect(code, stderr).toBe(0)
    expect(stderr).toContain("3 page requests were left out (the page's document, styles, scripts, images, fonts): GET / (text/html), GET /style.css (text/css), GET /script.js (text/javascript). --all imports them.")
    expect(Object.keys(JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')))).toEqual(['api/data'])

    const all = join(dir, 'all')
    expect(runCli(['import', har, '--out', all, '--all']).code).toBe(0)
    expect(Object.keys(JSON.parse(readFileSync(join(all, 'routes.json'), 'utf8')))).toEqual(['/', 'style.css', 'script.js', 'api/data'])
    const mock = await serve(all)
    expect(await (await fetch(`${mock.url}/style.css`)).text()).toBe('body{}')
    expect(await (await fetch(`${mock.url}/api/data`)).json()).toEqual({ data: [1, 2] })
  })

  it('names the entry and the problem for every malformed shape, imports the rest, never a stack trace', async () => {
    const dir = tempDir()
    const good = entry('http://api.test/api/good', 200, 'application/json', '{"good":true}')
    const broken: Array<[unknown, string]> = [
      [null, '#0: log.entries[0] is not an object'],
      [{ response: {} }, '#1: log.entries[1].request is missing or not an object'],
      [{ request: { method: 7, url: 'http://api.test/a' } }, '#2: log.entries[2].request.method must be a method name'],
      [{ request: { method: 'GET' }, response: {} }, '#3 GET: log.entries[3].request.url must be a string'],
      [{ request: { method: 'GET', url: 'http://api.test/b', headers: [{ value: 'x' }] }, response: { status: 200 } }, '#4 GET http://api.test/b: log.entries[4].request.headers[0] has no name'],
      [{ request: { method: 'GET', url: 'http://api.test/c', headers: 'Accept: */*' }, response: { status: 200 } }, '#5 GET http://api.test/c: log.entries[5].request.headers must be an array'],
      [{ ...entry('http://api.test/d', 200, 'application/json', '{}'), response: { status: 200, headers: [null] } }, '#6 GET http://api.test/d: log.entries[6].response.headers[0] must be an object'],
      [{ ...entry('http://api.test/e', 200, 'application/json', '{}'), response: { status: 200, headers: [{ name: 'X-A' }] } }, '#7 GET http://api.test/e: log.entries[7].response.headers[0].value must be a string'],
      [entry('http://api.test/f', 'ok', 'application/json', '{}'), '#8 GET http://api.test/f: log.entries[8].response.status must be a whole number, got "ok"'],
      [{ ...entry('http://api.test/g', 200, 'application/json', '{}'), response: { status: 200, content: { text: 42 } } }, '#9 GET http://api.test/g: log.entries[9].response.content.text must be a string'],
      [{ request: { method: 'POST', url: 'http://api.test/h', postData: { mimeType: 'multipart/form-data', params: [{ value: 'v' }] } }, response: { status: 201 } }, '#10 POST http://api.test/h: log.entries[10].request.postData.params[0] has no name'],
      [{ ...entry('http://api.test/i', 200, 'application/json', '{}'), response: 'fine' }, '#11 GET http://api.test/i: log.entries[11].response must be an object'],
      [{ request: { method: 'GET', url: 'http://' }, response: { status: 200 } }, '#12 GET http://: log.entries[12].request.url is not a valid URL'],
    ]
    const har = writeHar(dir, [...broken.map(([shape]) => shape), good])
    const out = join(dir, 'mocks')
    const { code, stderr } = runCli(['import', har, '--out', out])
    expect(code, stderr).toBe(0)
    expect(stderr).toContain('13 HAR entries were not imported')
    for (const [, line] of broken) expect(stderr).toContain(line)
    expect(stderr).not.toMatch(/TypeError|failed|\n\s+at /)
    const mock = await serve(out)
    expect(await (await fetch(`${mock.url}/api/good`)).json()).toEqual({ good: true })
  })

  it("reads side files only from beside the HAR: an _file naming /etc/passwd or ../../x is not copied", async () => {
    const dir = tempDir()
    const harDir = join(dir, 'har')
    mkdirSync(harDir)
    writeFileSync(join(dir, 'outside.json'), '{"outside":"secret"}')
    writeFileSync(join(harDir, 'inside.json'), '{"inside":true}')
    const side = (url: string, file: string) => ({ request: { method: 'GET', url }, response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content: { size: 10, mimeType: 'application/json', _file: file } } })
    const har = writeHar(harDir, [side('http://api.test/passwd', '/etc/passwd'), side('http://api.test/up', '../outside.json'), side('http://api.test/in', 'inside.json')])
    const out = join(dir, 'mocks')
    const { code, stderr } = runCli(['import', har, '--out', out])
    expect(code, stderr).toBe(0)
    expect(stderr).toContain('#0 GET http://api.test/passwd: the side file "/etc/passwd" is not beside the HAR')
    expect(stderr).toContain('#1 GET http://api.test/up: the side file "../outside.json" is not beside the HAR')
    expect(readdirSync(join(out, 'data'))).toEqual(['in.json'])
    expect(Object.keys(JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')))).toEqual(['in'])
  })

  it('writes output that loads: status 999 is left out and said, status "201" is read as 201', async () => {
    const dir = tempDir()
    const har = writeHar(dir, [entry('http://api.test/api/odd', 999, 'application/json', '{"odd":1}'), entry('http://api.test/api/made', '201', 'application/json', '{"made":1}')])
    const out = join(dir, 'mocks')
    const { code, stderr } = runCli(['import', har, '--out', out])
    expect(code, stderr).toBe(0)
    expect(stderr).toContain('#0 GET http://api.test/api/odd: status 999 is not one a mock can answer (200 to 599)')
    const mock = await serve(out)
    const made = await fetch(`${mock.url}/api/made`)
    expect(made.status).toBe(201)
    expect(await made.json()).toEqual({ made: 1 })
    expect((await fetch(`${mock.url}/api/odd`)).status).toBe(404)
    // A later import into the same folder still loads it.
    expect(runCli(['import', har, '--out', out]).code).toBe(0)
  })

  it("writes a text in the charset its Content-Type names, else as UTF-8 saying charset=utf-8, so the mock sends the back end's bytes or the same text", async () => {
    const dir = tempDir()
    const har = writeHar(dir, [
      entry('http://api.test/api/csv', 200, 'text/csv; charset=iso-8859-1', 'a,b\né,1\n'),
      entry('http://api.test/api/euro', 200, 'text/plain; charset=windows-1252', 'price: 5 €'),
      entry('http://api.test/api/page', 200, 'text/html; charset=Shift_JIS', '<p>こんにちは</p>'),
      entry('http://api.test/api/plain', 200, 'application/json; charset=Shift_JIS', '{"ok":true}'),
    ])
    const out = join(dir, 'mocks')
    const { code, stderr } = runCli(['import', har, '--out', out, '--all'])
    expect(code, stderr).toBe(0)
    expect(stderr).toContain(
      [
        '[mockyard] 2 HAR entries were written as UTF-8, not in the charset their Content-Type named; the written Content-Type says charset=utf-8, so the mock sends the same text:',
        '  - #1 GET http://api.test/api/euro: its text has "€" (U+20AC), which mockyard cannot write in charset=windows-1252; written as UTF-8, with charset=utf-8 in its Content-Type',
        '  - #2 GET http://api.test/api/page: mockyard cannot encode charset=shift_jis; written as UTF-8, with charset=utf-8 in its Content-Type',
      ].join('\n'),
    )
    const mock = await serve(out)
    const bytes = async (path: string) => {
      const response = await fetch(`${mock.url}${path}`)
      return { type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) }
    }
    // The back end's bytes: é is one byte, 0xE9.
    expect(await bytes('/api/csv')).toEqual({ type: 'text/csv; charset=iso-8859-1', bytes: Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0xe9, 0x2c, 0x31, 0x0a]) })
    // The same text, in UTF-8, said so.
    expect(await bytes('/api/euro')).toEqual({ type: 'text/plain; charset=utf-8', bytes: Buffer.from('price: 5 €', 'utf8') })
    expect(await bytes('/api/page')).toEqual({ type: 'text/html; charset=utf-8', bytes: Buffer.from('<p>こんにちは</p>', 'utf8') })
    // ASCII is the same bytes in Shift_JIS: the header is kept as the back end sent it.
    expect(await bytes('/api/plain')).toEqual({ type: 'application/json; charset=Shift_JIS', bytes: Buffer.from('{"ok":true}') })
  })

  it('imports a 10,000-entry HAR (about 29 MB), writing routes.json once, and every request is answered as recorded', async () => {
    const dir = tempDir()
    const har = join(dir, 'big.har')
    expect(writeLargeHar(har, 10_000)).toBeGreaterThan(25_000_000)
    const out = join(dir, 'mocks')
    const { code, stderr } = runCli(['import', har, '--out', out], process.cwd(), 50_000)
    expect(code, stderr).toBe(0)
    expect(stderr).toContain('10000 requests seen: 901 routes, 4502 entries, 4502 files written')
    expect(readdirSync(join(out, 'data')).filter((name) => name.endsWith('.tmp'))).toEqual([])
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes['api/things/0'].get.map((e: { params: unknown }) => e.params)).toEqual([{ page: '0' }, { page: '1' }, { page: '2' }, { page: '3' }, { page: '4' }])
    const mock = await serve(out)
    for (const [thing, page] of [[0, 0], [7, 3], [998, 4]]) {
      const body = await (await fetch(`${mock.url}/api/things/${thing}?page=${page}&_=1`)).json()
      expect({ thing: body.thing, page: body.page }).toEqual({ thing, page })
    }
    expect(existsSync(join(out, 'data', 'api-orders-post.json'))).toBe(true)
  }, 60_000)
})
