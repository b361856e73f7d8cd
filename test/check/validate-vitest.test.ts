/**
 * Under `setupMockServer` (mockyard/vitest), an exchange that breaks the `validate` document fails
 * the test that made it, as an unmatched request does: a nested Vitest run in a temporary folder
 * on the planted-bad mocks of `mockyard check`'s fixture (API_PROJECT). The failure names the
 * request, the data file and the JSON pointer in it, and the schema path.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { API_PROJECT, writeFiles } from './project.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
let root: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-validate-vitest-'))
  writeFiles(root, {
    ...API_PROJECT,
    // The project's own packages (vitest, msw) resolve through node_modules; mockyard from its sources.
    'vitest.config.mjs': `export default { resolve: { alias: [{ find: /^mockyard\\/vitest$/, replacement: ${JSON.stringify(join(ROOT, 'src/vitest/index.ts'))} }] }, test: { include: ['*.fixture.ts'] } }\n`,
    'contract.fixture.ts': `import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'

const mocks = setupMockServer({ routes: 'api/routes.json', data: 'api/data', validate: 'api/openapi.yaml' })

it('reads a user the mocks answer against the contract', async () => {
  const response = await fetch('https://shop.example.com/api/v2/users/7')
  expect(response.status).toBe(200)
})

it('deletes a user as the contract says', async () => {
  expect((await fetch('https://shop.example.com/api/v2/users/7', { method: 'DELETE' })).status).toBe(204)
  const coverage = mocks.coverage()
  expect(coverage.operations.filter((operation) => operation.answered > 0).map((o) => o.method + ' ' + o.path)).toEqual(['GET /users/{id}', 'DELETE /users/{id}'])
  console.log('COVERAGE ' + JSON.stringify(coverage.text))
})
`,
  })
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

function runVitest(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'vitest.config.mjs'], { cwd: root, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

it('a violation fails the test that made it, with the file, the JSON pointer and the schema path; coverage() lists what was answered', async () => {
  const { status, stdout, stderr } = await runVitest()
  expect(status).toBe(1)
  expect(stdout).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/)
  const failure = stderr.split(/\n FAIL {2}/).find((part) => part.startsWith('contract.fixture.ts > reads a user the mocks answer against the contract\n'))
  expect(failure).toContain(
    [
      'Error: [mockyard] an answer breaks api/openapi.yaml in this test:',
      "GET /api/v2/users/7 200: response user.json#: must have required property 'email' (response 200 of GET /users/{id}); schema api/schemas.yaml#/User/required",
      "Fix the mock's data file, or the document if it is wrong.",
    ].join('\n'),
  )
  expect(stdout).toContain('COVERAGE "api/openapi.yaml: 2 of 6 operations answered; never answered:\\n  GET /users (listUsers)\\n  POST /orders (createOrder)\\n  GET /report.pdf (getReport)\\n  GET /health (health)"')
}, 60_000)
