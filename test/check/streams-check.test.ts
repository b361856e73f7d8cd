/**
 * `mockyard check` with `stream` and `events` routes, run as a user runs it (the built CLI):
 * `--openapi` checks an `events` route against a `text/event-stream` response of its operation,
 * and the dead-config rules see events a redirect or a `stream` beside `events` never use.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFiles } from './project.js'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
let root: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-check-streams-'))
  writeFiles(root, {
    'api/routes.json': {
      'feed': { events: [{ data: { n: 1 } }] },
      'wrong-feed': { events: 'feed.json' },
      'answer': { file: 'answer.ndjson', stream: { by: 'line', delay: 10 } },
    },
    'api/data/feed.json': [{ data: 'x' }],
    'api/data/answer.ndjson': '{"a":1}\n',
    'api/openapi.yaml': `openapi: 3.1.0
info: { title: feeds, version: '1' }
paths:
  /feed:
    get:
      responses:
        '200':
          description: Live events.
          content:
            text/event-stream:
              schema: { type: string }
  /wrong-feed:
    get:
      responses:
        '200':
          description: JSON only.
          content:
            application/json:
              schema: { type: object }
  /answer:
    get:
      responses:
        '200':
          description: Tokens.
          content:
            application/x-ndjson:
              schema: { type: string }
`,
    'mocks/routes.json': {
      'v1/x': { url: 'https://example.com', events: [{ data: 1 }] },
      'v1/y': { file: 'a.txt', stream: { by: 'line' }, events: [{ data: 1 }] },
      'v1/z': { events: 'missing.json' },
    },
    'mocks/data/a.txt': 'a\n',
  })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

function check(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, 'check', ...args, '--format', 'json'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 })
  const entries = (JSON.parse(result.stdout) as { problems?: Array<{ kind: string; pointer: string; message: string }> }).problems ?? (JSON.parse(result.stdout) as Array<{ kind: string; pointer: string; message: string }>)
  return { code: result.status, entries }
}

describe('mockyard check with streams', () => {
  it('--openapi: an events route needs a text/event-stream response of its operation', () => {
    const { entries } = check(['--routes', 'api/routes.json', '--openapi', 'api/openapi.yaml'])
    const streamProblems = entries.filter((e) => e.kind === 'content-type')
    expect(streamProblems).toHaveLength(1)
    expect(streamProblems[0]).toMatchObject({ pointer: '/wrong-feed/events' })
    expect(streamProblems[0]!.message).toContain('text/event-stream')
  })

  it('dead config: events a redirect never sends, a stream beside events; a missing events file', () => {
    const { code, entries } = check(['--routes', 'mocks/routes.json', '--data', 'mocks/data'])
    expect(code).toBe(1)
    const pointers = entries.map((e) => `${e.kind} ${e.pointer}`)
    expect(pointers).toContain('ignored /v1~1x/events')
    expect(pointers).toContain('ignored /v1~1y/stream')
    expect(pointers).toContain('missing-file /v1~1z/events')
  })
})
