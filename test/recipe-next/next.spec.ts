/**
 * The Next.js App Router app (app/): a server component, a route handler and a server action
 * all call `GET /v1/users` from the app server's process. Eight tests in four workers each
 * override that one endpoint for their session and see only their own data, in the HTML the
 * server rendered too.
 */
import { test as base, expect } from '@playwright/test'
import { mockyardFixtures } from 'mockyard/playwright'

const test = base.extend(mockyardFixtures())

/** Every team name the HTML mentions. */
const teamsIn = (html: string) => new Set(html.match(/team-\d+|everyone/g))

for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) {
  test(`test ${n} sees only its own users: server component, route handler, server action`, async ({ page, mockyard }) => {
    await mockyard.useRoutes({ 'v1/users': { file: `team-${n}.json` } })

    const response = await page.goto('/')
    expect(teamsIn(await response!.text())).toEqual(new Set([`team-${n}`]))
    await expect(page.locator('#team')).toHaveText(`team-${n}`)
    await expect(page.locator('#users li')).toHaveText([`member-${n}-a`, `member-${n}-b`])

    await expect(page.locator('[data-ready]')).toBeVisible()
    await page.click('#action')
    await expect(page.locator('#from-action')).toHaveText(`team-${n}`)
    await page.click('#route')
    await expect(page.locator('#from-route')).toHaveText(`team-${n}`)

    const calls = await mockyard.requests({ path: '/v1/users' })
    expect(calls.map((call) => call.file)).toEqual([`team-${n}.json`, `team-${n}.json`, `team-${n}.json`])
    expect(new Set(calls.map((call) => call.session))).toEqual(new Set([mockyard.session]))
  })
}

test('a page opened without the fixtures has no session: the shared mocks answer', async ({ browser, baseURL }) => {
  const page = await browser.newPage()
  const response = await page.goto(baseURL!)
  expect(teamsIn(await response!.text())).toEqual(new Set(['everyone']))
  await page.close()
})
