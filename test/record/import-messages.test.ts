/**
 * The words of `mockyard import`'s report, run as a user runs it: counts in the right number
 * ("2 clashes"), and a HAR that does not know a body's size (`content.size: -1`) never reads
 * as "-1 bytes were not saved".
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from './support.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A HAR entry for GET `url` answered 200 with `content`. */
const entry = (url: string, content: Record<string, unknown>) => ({
  request: { method: 'GET', url, headers: [] },
  response: { status: 200, headers: [{ name: 'content-type', value: 'application/json' }], content: { mimeType: 'application/json', ...content } },
})

describe('mockyard import: its report', () => {
  it('counts two clashes as "2 clashes", and one route as "1 route"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-words-'))
    dirs.push(dir)
    const out = join(dir, 'mocks')
    mkdirSync(join(out, 'data'), { recursive: true })
    writeFileSync(join(out, 'routes.json'), JSON.stringify({ 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'b.json' } }))
    const har = join(dir, 'session.har')
    writeFileSync(har, JSON.stringify({ log: { entries: [entry('https://api.example.com/v1/a', { text: '{}' }), entry('https://api.example.com/v1/b', { text: '{}' }), entry('https://api.example.com/v1/c', { text: '{}' })] } }))
    const { code, stderr } = runCli(['import', har, '--out', out])
    expect(code).toBe(0)
    expect(stderr).toContain('3 requests seen: 1 route, 1 entry, 1 file written')
    expect(stderr).toContain('; 2 clashes with the existing routes (not written):')
  })

  it('an --out that cannot be written (a file in the way) exits 1 naming it, for import and record alike, not a stack or a port', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-words-'))
    dirs.push(dir)
    const file = join(dir, 'afile')
    writeFileSync(file, '')
    const har = join(dir, 'session.har')
    writeFileSync(har, JSON.stringify({ log: { entries: [entry('https://api.example.com/v1/a', { text: '{}' })] } }))
    const imported = runCli(['import', har, '--out', file])
    expect({ code: imported.code, stderr: imported.stderr.trim() }).toEqual({ code: 1, stderr: `[mockyard] cannot write into ${file}: ENOTDIR for ${join(file, 'data')}. Give --out a folder this user can create and write.` })
    const recorded = runCli(['record', '--target', 'http://127.0.0.1:1', '--port', '0', '--out', file])
    expect({ code: recorded.code, stderr: recorded.stderr.trim() }).toEqual({ code: 1, stderr: `[mockyard] cannot write into ${file}: ENOTDIR for ${join(file, 'data')}. Give --out a folder this user can create and write.` })
    const badHost = runCli(['record', '--target', 'http://127.0.0.1:1', '--port', '0', '--host', '192.0.2.1', '--out', join(dir, 'mocks')])
    expect({ code: badHost.code, stderr: badHost.stderr.trim() }).toEqual({ code: 1, stderr: '[mockyard] cannot listen on 192.0.2.1:0: EADDRNOTAVAIL. Pick a host this machine has with --host, such as 127.0.0.1, ::1 or 0.0.0.0.' })
  })

  it('a body of unknown size (content.size -1) is "not saved, its size unknown", never "-1 bytes"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-words-'))
    dirs.push(dir)
    const har = join(dir, 'session.har')
    writeFileSync(har, JSON.stringify({ log: { entries: [entry('https://api.example.com/v1/unknown', { size: -1 }), entry('https://api.example.com/v1/one', { size: 1 })] } }))
    const { code, stderr } = runCli(['import', har, '--out', join(dir, 'mocks')])
    expect(code).toBe(0)
    expect(stderr).toContain('#0 GET https://api.example.com/v1/unknown: the HAR holds no response content (the body was not saved, its size unknown)')
    expect(stderr).toContain('#1 GET https://api.example.com/v1/one: the HAR holds no response content (1 byte was not saved)')
    expect(stderr).not.toContain('-1 bytes')
  })
})
