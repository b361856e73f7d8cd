// `npm test`: type check, then every test suite (Vitest; Playwright when a browser is available),
// then one closing line `N passed, N failed` from the runners' own counts.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { ensureChromium, INSTALL_HINT } from './find-chromium.mjs'

const run = (command, args, env = {}) =>
  spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1

let passed = 0
let failed = 0
let ok = true

mkdirSync('.tmp', { recursive: true })
// The CLI and packaging tests run the built files: build first so they never test stale output.
if (run('npm', ['run', '--silent', 'build']) !== 0) {
  console.error('build failed')
  console.log('0 passed, 1 failed')
  process.exit(1)
}
if (run('npm', ['run', '--silent', 'typecheck']) !== 0) {
  console.error('type check failed')
  ok = false
  failed++
}

rmSync('.tmp/vitest.json', { force: true })
const vitestArgs = ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=.tmp/vitest.json', ...process.argv.slice(2)]
const vitestStatus = run('npx', vitestArgs)
if (existsSync('.tmp/vitest.json')) {
  const report = JSON.parse(readFileSync('.tmp/vitest.json', 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) failed += report.numFailedTestSuites
} else failed++
if (vitestStatus !== 0) ok = false

// Playwright: the root config (the listener and worker projects) and the recipes' own configs
// (test/recipe: webServer entries, as an app's config has them; test/recipe-next: the
// server-side rendering recipe, Next.js and Express, whose config installs its own dependencies
// from its lockfile on first use). A test that did not run (no browser, a failed global setup)
// counts as failed, never as absent.
const playwrightConfigs = ['playwright.config.ts', 'test/recipe/playwright.config.ts', 'test/recipe-next/playwright.config.ts'].filter((file) => existsSync(file))
if (playwrightConfigs.length > 0 && process.argv.length <= 2) {
  const browser = await ensureChromium()
  // A browser extracted from @sparticuz/chromium is handed on, so each config finds it at once.
  if (browser?.source === 'package') process.env.CHROMIUM_PATH = browser.executablePath
  if (!browser) {
    const listed = playwrightConfigs.reduce((sum, config) => sum + listTests(config), 0)
    console.error(`[mockyard] no Chromium found (CHROMIUM_PATH unset, no Playwright browser, no chromium or google-chrome on the PATH): the ${listed} browser tests count as failed. Run: ${INSTALL_HINT}`)
    failed += listed
    ok = false
  } else {
    for (const config of playwrightConfigs) {
      const output = `.tmp/playwright-${config.replace(/[^a-z0-9]+/gi, '-')}.json`
      rmSync(output, { force: true })
      // An absolute file: a relative report name would resolve from the config's own folder.
      const status = run('npx', ['playwright', 'test', '--config', config], { PLAYWRIGHT_JSON_OUTPUT_FILE: resolve(output) })
      if (existsSync(output)) {
        const counts = countResults(JSON.parse(readFileSync(output, 'utf8')))
        passed += counts.passed
        failed += counts.failed
      } else failed += Math.max(1, listTests(config))
      if (status !== 0) ok = false
    }
  }
}

/** How many tests a Playwright config has (without running them or starting anything). */
function listTests(config) {
  const result = spawnSync('npx', ['playwright', 'test', '--config', config, '--list', '--reporter=json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  try {
    return countResults(JSON.parse(result.stdout)).total
  } catch {
    return 1
  }
}

/** Passed and failed tests of a Playwright JSON report; a test that should have run and did not is failed. */
function countResults(report) {
  const counts = { passed: 0, failed: 0, total: 0 }
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        counts.total++
        if (test.status === 'expected' || test.status === 'flaky') {
          if (test.expectedStatus !== 'skipped') counts.passed++
        } else if (!(test.status === 'skipped' && test.expectedStatus === 'skipped')) counts.failed++
      }
    }
    for (const child of suite.suites ?? []) visit(child)
  }
  for (const suite of report.suites ?? []) visit(suite)
  return counts
}

console.log(`${passed} passed, ${failed} failed`)
process.exit(ok && failed === 0 ? 0 : 1)
