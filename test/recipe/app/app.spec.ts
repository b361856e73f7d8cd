// app.spec.ts
import { test as base, expect } from '@playwright/test'
import { mockyardFixtures } from 'mockyard/playwright'

const test = base.extend(mockyardFixtures()) // reads MOCKYARD_URL; or mockyardFixtures({ url: 'http://127.0.0.1:9999' })

test('shows the users', async ({ page, mockyard }) => {
  await page.goto('/')
  await expect(page.locator('#users')).toHaveText('200 users.json')
  expect(await mockyard.requests({ path: '/v1/users' })).toMatchObject([{ route: 'v1/users', file: 'users.json' }])
})

test('shows an outage, in this test only', async ({ page, mockyard }) => {
  await mockyard.useRoutes({ 'v1/users': { status: 503, file: 'outage.json' } })
  await page.goto('/')
  await expect(page.locator('#users')).toHaveText('503 outage.json')
})
