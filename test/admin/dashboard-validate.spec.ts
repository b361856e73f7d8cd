/**
 * The dashboard shows the violations of the `validate` document (docs/behaviour.md, "Traffic
 * checked against a contract"): under the request's row and in its detail, each with the data
 * file and JSON pointer, the message and the schema path.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, expect } from '@playwright/test'
import { startMockServer } from 'mockyard/node'
import { API_PROJECT, writeFiles } from '../check/project.js'

test('a request whose answer breaks the contract shows its violations in the list and the detail', async ({ page }) => {
  const root = mkdtempSync(join(tmpdir(), 'mockyard-dashboard-validate-'))
  writeFiles(root, API_PROJECT)
  const server = await startMockServer({ routes: join(root, 'api/routes.json'), data: join(root, 'api/data'), validate: join(root, 'api/openapi.yaml') })
  try {
    await fetch(`${server.url}/api/v2/users/7`)
    await fetch(`${server.url}/api/v2/users/7`, { method: 'DELETE' })
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(server.url + '/__mockyard/')
    await expect(page.locator('#requests tr.row')).toHaveCount(2)
    const shown = page.locator('#requests tr.explain pre.violations')
    await expect(shown).toHaveCount(1)
    await expect(shown).toHaveText(`response user.json#: must have required property 'email' (response 200 of GET /users/{id})\n  schema ${join(root, 'api/schemas.yaml')}#/User/required`)
    await page.locator('#requests tr.row', { hasText: 'GET' }).click()
    const detail = page.locator('#detail')
    await expect(detail.locator('h3', { hasText: 'Breaks the contract' })).toBeVisible()
    await expect(detail.locator('pre.violations')).toContainText("response user.json#: must have required property 'email'")
    expect(errors).toEqual([])
  } finally {
    await server.stop()
    rmSync(root, { recursive: true, force: true })
  }
})
