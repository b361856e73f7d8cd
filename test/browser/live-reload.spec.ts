/**
 * Live reload: the plugin watches the routes and data files (a copy of the examples fixture in
 * a temporary folder, served by its own dev server) and reloads the page when one changes.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { collectConsole, openApp, pageFetch } from './support.js'

const BASE = () => process.env.MOCKYARD_VITE_EDIT_URL!
const DATA = () => process.env.MOCKYARD_VITE_EDIT_DATA!
const ROUTES = () => join(DATA(), '..', 'routes.json')
/** What the edit server printed in the terminal. */
const terminal = () => readFileSync(process.env.MOCKYARD_VITE_EDIT_LOG!, 'utf8')

/** Changes a file, then waits for the reload the plugin triggers and for the worker to be back. */
async function editAndWaitForReload(page: Page, file: string, content: string): Promise<void> {
  await page.evaluate(() => Object.assign(window, { beforeReload: true }))
  writeFileSync(file, content)
  await expect
    .poll(
      () =>
        page
          .evaluate(() => !('beforeReload' in window) && document.getElementById('status')?.textContent === 'ready')
          .catch(() => false),
      { timeout: 15_000 },
    )
    .toBe(true)
}

test.describe('live reload', () => {
  test.describe.configure({ mode: 'serial' })

  test('an edited data file is served after the page reloads', async ({ page }) => {
    const messages = collectConsole(page)
    await openApp(page, '', BASE())
    expect(await (await pageFetch(page, '/v1/users')).json()).toEqual({ file: 'users.json' })
    await editAndWaitForReload(page, join(DATA(), 'users.json'), '{ "file": "users.json", "edited": true }\n')
    expect(await (await pageFetch(page, '/v1/users')).json()).toEqual({ file: 'users.json', edited: true })
    expect(terminal()).toContain(`info: [mockyard] data file ${join(DATA(), 'users.json')} changed: reloading the page.\n`)
    expect(messages.filter((m) => m.includes('[vite] server connection lost') || m.startsWith('error:'))).toEqual([])
  })

  test('an edited routes file takes effect after the reload; a broken one keeps the last good routes', async ({ page, request }) => {
    const messages = collectConsole(page)
    await openApp(page, '', BASE())
    const original = readFileSync(ROUTES(), 'utf8')
    const routes = JSON.parse(original) as Record<string, unknown>
    await editAndWaitForReload(page, ROUTES(), JSON.stringify({ ...routes, 'v1/added': { file: 'profile.json' } }, null, 2))
    expect(await (await pageFetch(page, '/v1/added')).json()).toEqual({ file: 'profile.json' })

    // Broken JSON: the page prints the error and keeps answering from the last good routes.
    await editAndWaitForReload(page, ROUTES(), '{ "v1/users": { "file": "users.json" }, }')
    const config = await (await request.get(new URL('/@mockyard/config.json', BASE()).href)).json()
    expect(config.error).toMatch(/^\[mockyard\] the configuration has 1 problem:\n {2}- .*routes\.json#: invalid JSON at line 1, column \d+/)
    expect(messages.some((m) => m.startsWith('error: [mockyard] the configuration has 1 problem'))).toBe(true)
    expect(terminal()).toContain(`error: ${config.error}\n[mockyard] keeping the last good routes.\n`)
    expect((await pageFetch(page, '/v1/added')).status).toBe(200)

    await editAndWaitForReload(page, ROUTES(), original)
    expect((await (await request.get(new URL('/@mockyard/config.json', BASE()).href)).json()).error).toBeUndefined()
    // The restored table serves the routes it names, binary data files byte for byte.
    const report = await pageFetch(page, '/v1/report')
    expect(report.status).toBe(200)
    expect(Buffer.from(await report.arrayBuffer()).equals(readFileSync(join(DATA(), 'report.pdf')))).toBe(true)
  })
})
