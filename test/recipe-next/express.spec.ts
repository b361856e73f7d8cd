/**
 * The Express SSR app (express/server.mjs): the page is rendered with `fetch`, and `POST /team`
 * parses its JSON body before calling the API with `http.get`. Each test sees only its own data.
 */
import { test as base, expect } from '@playwright/test'
import { mockyardFixtures } from 'mockyard/playwright'

const test = base.extend(mockyardFixtures())

for (const n of [1, 2, 3, 4]) {
  test(`test ${n} sees only its own users, rendered by Express`, async ({ page, mockyard }) => {
    await mockyard.useRoutes({ 'v1/users': { file: `team-${n}.json` } })

    const response = await page.goto('/')
    expect(new Set((await response!.text()).match(/team-\d+|everyone/g))).toEqual(new Set([`team-${n}`]))
    await expect(page.locator('#users li')).toHaveText([`member-${n}-a`, `member-${n}-b`])

    const posted = await page.evaluate(async () => (await fetch('/team', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"asked":1}' })).json())
    expect(posted).toEqual({ team: `team-${n}`, asked: 1 })

    const calls = await mockyard.requests({ path: '/v1/users' })
    expect(calls.map((call) => [call.file, call.session])).toEqual([
      [`team-${n}.json`, mockyard.session],
      [`team-${n}.json`, mockyard.session],
    ])
  })
}
