/**
 * `runCheck` (the function behind `mockyard check`, internal) run twice in one process: the
 * second run reports the lines of the files as they are then, not as the first run read them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { runCheck } from '../../src/check/run-check.js'

const root = mkdtempSync(join(tmpdir(), 'mockyard-check-lines-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

it('reads the lines afresh on each run', async () => {
  const routes = join(root, 'routes.json')
  const lineOfColour = async () => {
    const report = await runCheck({ routes: [routes], data: root, cwd: root })
    return report.entries.find((entry) => entry.pointer === '/v1~1users/colour')?.line
  }
  writeFileSync(join(root, 'users.json'), '[]')
  writeFileSync(routes, '{\n  "v1/users": {\n    "file": "users.json",\n    "colour": "red"\n  }\n}\n')
  expect(await lineOfColour()).toBe(4)
  writeFileSync(routes, '{\n\n\n  "v1/users": {\n    "file": "users.json",\n\n    "colour": "red"\n  }\n}\n')
  expect(await lineOfColour()).toBe(7)
})
