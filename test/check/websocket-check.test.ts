/**
 * docs/behaviour.md, "WebSocket": `mockyard check` accepts `websocket` steps, reports their
 * problems with the JSON path, and `--openapi` leaves a route that answers only upgrades alone
 * (OpenAPI describes no WebSocket).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { writeFiles } from './project.js'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'mockyard-check-ws-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

writeFiles(root, {
  'api/openapi.yaml': `openapi: 3.1.0
info: { title: chat, version: '1' }
paths:
  /rooms:
    get:
      responses:
        '200':
          description: The rooms.
          content:
            application/json:
              schema: { type: array }
`,
  'api/routes.json': { rooms: { file: 'rooms.json' }, chat: { websocket: [{ send: { type: 'welcome' } }, { on: 'bye', close: 1000 }] } },
  'api/data/rooms.json': [],
  'bad/routes.json': { chat: { websocket: [{ send: 'x' }, { on: 'bye', close: 1006 }] } },
})

function check(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, 'check', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 })
  return { code: result.status, stdout: result.stdout }
}

it('--openapi leaves a route that answers only WebSocket upgrades alone', () => {
  const result = check(['--routes', 'api/routes.json', '--data', 'api/data', '--openapi', 'api/openapi.yaml'])
  expect(result.stdout).not.toContain('chat')
  expect(result.code).toBe(0)
})

it('reports a bad step at its JSON path', () => {
  const result = check(['--routes', 'bad/routes.json'])
  expect(result.code).toBe(1)
  expect(result.stdout).toContain('bad/routes.json#/chat/websocket/1/close: close must be a close code a server may send, got 1006.')
})
