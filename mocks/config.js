// The bundled example mocks: `npx mockyard` serves them when there is no mocks/config.js in the
// working directory. Paths resolve from this file's folder.
import {
  buildExpiredNotification,
  buildNotificationFor,
  buildNotifications,
  buildNotificationWithSources,
  buildReadNotification,
  buildScheduledNotification,
  createNotificationsHandlers,
  FIXTURE_USER,
  OTHER_FIXTURE_USER,
} from 'mockyard/notifications'

const natures = ['ACTION_REQUIRED', 'INFORMATIONAL', 'ALERT']
const topics = ['claims', 'payments', 'eligibility']

const notifications = [
  // Thirty of the default user's, spread over natures, types and topics.
  ...buildNotifications(30, (i) => ({
    nature: natures[i % natures.length],
    type: i % 2 === 0 ? 'CLAIM_STATUS' : 'PAYMENT',
    topic: topics[i % topics.length],
    read: i % 5 === 0,
    viewed: i % 3 === 0,
  })),
  buildReadNotification({ id: 'read-1' }),
  buildNotificationWithSources({ id: 'sourced-1' }),
  buildScheduledNotification({ id: 'scheduled-1' }),
  buildExpiredNotification({ id: 'expired-1' }),
  buildNotificationFor(OTHER_FIXTURE_USER, { id: 'other-1' }),
  buildNotificationFor(OTHER_FIXTURE_USER, { id: 'other-2' }),
]

export default {
  routes: './routes.json',
  data: './data',
  latency: 250,
  handlers: createNotificationsHandlers({
    notifications,
    users: [FIXTURE_USER, OTHER_FIXTURE_USER],
    defaultUser: FIXTURE_USER.userId,
  }),
}
