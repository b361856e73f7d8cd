/**
 * The app the worker tests drive: the two lines an app's entry needs (`startWorker` with the
 * notifications handlers), plus a few helpers the tests call through `page.evaluate`.
 */
import { http, HttpResponse } from 'msw'
import { startWorker } from 'mockyard/browser'
import { buildNotifications, buildNotificationFor, createNotificationsHandlers, OTHER_FIXTURE_USER } from 'mockyard/notifications'

const status = document.getElementById('status')!

try {
  const mocks = await startWorker({
    handlers: createNotificationsHandlers({
      notifications: [...buildNotifications(3, (index) => ({ topic: index === 1 ? 'BILLING' : 'GENERAL' })), buildNotificationFor(OTHER_FIXTURE_USER, { id: 'o-1' })],
      defaultUser: 'aka-user',
    }),
  })
  Object.assign(window, {
    mocks,
    msw: { http, HttpResponse },
    /** Calls the app's "API" and shows the answer on the page, as an app would. */
    async call(path: string, init?: RequestInit): Promise<string> {
      const res = await fetch(path, init)
      const text = await res.text()
      const li = document.createElement('li')
      li.textContent = `${res.status} ${text}`
      document.getElementById('out')!.append(li)
      return li.textContent
    },
  })
  status.textContent = 'ready'
} catch (error) {
  status.textContent = `failed: ${(error as Error).message}`
  throw error
}
