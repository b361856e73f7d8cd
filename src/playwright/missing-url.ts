/**
 * The `mockyard` fixture's error when it has no listener URL, naming the fix that applies to the
 * Playwright installed.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { formatMessage } from '../core/errors.js'

/** The environment variable that carries the listener's URL to the tests (as in index.ts). */
const URL_VARIABLE = 'MOCKYARD_URL'

/** The first Playwright release whose `webServer` entries honour `wait` (and so set `MOCKYARD_URL`). */
const WAIT_SINCE = [1, 57] as const

/**
 * What the fixture says when it has no URL. The usual cause is a `webServer` entry whose
 * `wait.stdout` should have captured the URL, on a Playwright that ignores `wait` (before 1.57):
 * then the fix is an upgrade, not the setup the user already wrote.
 */
export function missingUrlMessage(playwrightVersion: string | undefined): string {
  const [major = 0, minor = 0] = (playwrightVersion ?? '').split('.').map(Number)
  const tooOld = playwrightVersion !== undefined && (major < WAIT_SINCE[0] || (major === WAIT_SINCE[0] && minor < WAIT_SINCE[1]))
  const head = `the mockyard fixture has no listener URL: ${URL_VARIABLE} is not set and mockyardFixtures() got no { url }.`
  if (tooOld) {
    return formatMessage(
      `${head} This is @playwright/test ${playwrightVersion}, which ignores webServer's wait option, so a webServer entry with wait: { stdout: /(?<mockyard_url>...)/ } sets nothing. Upgrade to @playwright/test >= ${WAIT_SINCE.join('.')} (npm install -D @playwright/test@latest), or start the CLI on a fixed port (--port 9999, url: 'http://127.0.0.1:9999') and pass mockyardFixtures({ url: 'http://127.0.0.1:9999' }).`,
    )
  }
  return formatMessage(
    `${head} Start the CLI in a webServer entry that captures its URL (wait: { stdout: /mockyard listening on (?<mockyard_url>\\S+)/ }, @playwright/test >= ${WAIT_SINCE.join('.')}), pass mockyardFixtures({ url }), or use globalSetup() from mockyard/playwright.`,
  )
}

/** The version of the @playwright/test this package resolves (the project's), if any. */
export function installedPlaywrightVersion(): string | undefined {
  try {
    const file = createRequire(import.meta.url).resolve('@playwright/test/package.json')
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version
  } catch {
    return undefined
  }
}
