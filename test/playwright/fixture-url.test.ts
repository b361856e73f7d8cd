/**
 * The `mockyard` fixture without a listener URL: a real Playwright run of a spec that uses it with
 * `MOCKYARD_URL` unset fails with the message naming the fix; on a Playwright older than 1.57
 * (whose webServer ignores `wait`, so the recipe's capture sets nothing) the message says to
 * upgrade instead of repeating the setup the user already wrote. The peer range asks for 1.57.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { installedPlaywrightVersion, missingUrlMessage } from '../../src/playwright/missing-url.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }
const installed = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@playwright/test/package.json'), 'utf8')) as { version: string }).version

describe('the fixture with no listener URL', () => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  const folder = mkdtempSync(join(ROOT, '.tmp', 'fixture-url-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('a real Playwright run fails the test with the message naming the fixes (mockyard/playwright as built)', () => {
    writeFileSync(join(folder, 'playwright.config.ts'), `import { defineConfig } from '@playwright/test'\nexport default defineConfig({ testDir: '.', reporter: 'line' })\n`)
    writeFileSync(
      join(folder, 'no-url.spec.ts'),
      `import { test as base } from '@playwright/test'\nimport { mockyardFixtures } from 'mockyard/playwright'\nconst test = base.extend(mockyardFixtures())\ntest('needs the mock server', async ({ mockyard }) => { await mockyard.reset() })\n`,
    )
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }
    delete env.MOCKYARD_URL
    const result = spawnSync('npx', ['playwright', 'test', '--config', join(folder, 'playwright.config.ts')], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 })
    const output = result.stdout + result.stderr
    expect(output).toContain('[mockyard] the mockyard fixture has no listener URL: MOCKYARD_URL is not set and mockyardFixtures() got no { url }.')
    expect(output).toContain('@playwright/test >= 1.57')
    expect(output).toContain('1 failed')
    expect(result.status).toBe(1)
  }, 150_000)

  it('reads the installed Playwright version', () => {
    expect(installedPlaywrightVersion()).toBe(installed)
  })

  it('on a Playwright before 1.57 it says the webServer wait is ignored and how to upgrade', () => {
    const message = missingUrlMessage('1.56.1')
    expect(message).toContain('This is @playwright/test 1.56.1, which ignores webServer\'s wait option')
    expect(message).toContain('Upgrade to @playwright/test >= 1.57 (npm install -D @playwright/test@latest)')
    expect(missingUrlMessage('1.40.0')).toContain('Upgrade')
  })

  it('on 1.57 and later (or when unknown) it lists the setups, without telling to upgrade', () => {
    for (const version of ['1.57.0', '1.65.1', '2.0.0', undefined]) expect(missingUrlMessage(version)).not.toContain('Upgrade')
    expect(missingUrlMessage('1.57.0')).toContain('pass mockyardFixtures({ url })')
  })

  it('the peer range of @playwright/test starts at 1.57, the first release the recipe runs on', () => {
    expect(pkg.peerDependencies['@playwright/test']).toBe('>=1.57')
  })
})
