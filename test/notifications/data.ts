/**
 * The notifications the endpoint tests share. Under `CLOCK` (2020-06-01) the default listing of
 * `aka-user` (AVAILITY) is a1, a2, a4, a8, a9, a10 (see DEFAULT_IDS), newest delivery first.
 */
import {
  FIXTURE_USER,
  OTHER_FIXTURE_USER,
  buildExpiredNotification,
  buildNotification,
  buildNotificationFor,
  buildNotificationSource,
  buildNotificationWithSources,
  buildReadNotification,
  buildScheduledNotification,
  buildViewedNotification,
  parseNotificationDate,
  type MockUser,
  type Notification,
} from 'mockyard/notifications/fixtures'

export const NOW = '2020-06-01T00:00:00.000+0000'
export const CLOCK = () => parseNotificationDate(NOW)

export const JANE: MockUser = { userId: 'jane', userSource: 'PORTAL' }
export const USERS: MockUser[] = [FIXTURE_USER, OTHER_FIXTURE_USER, JANE]

const on = (day: string) => `2020-05-${day}T12:00:00.000+0000`

export const A8_SOURCES = [
  buildNotificationSource({ sourceId: 'claim-8', createdDate: '2020-05-01T08:00:00.000+0000' }),
  buildNotificationSource({ sourceId: 'auth-8', sourceSystem: 'AUTHS', sourceType: 'AUTHORIZATION' }),
]

export function notifications(): Notification[] {
  return [
    // aka-user (AVAILITY): the current user by default.
    buildNotification({ id: 'a1', nature: 'ALERT', type: 'MESSAGE', topic: 'BILLING', title: 'Bravo', lastDeliveryDate: on('10') }),
    buildNotification({ id: 'a2', nature: 'NEWS', type: 'REMINDER', topic: 'CLAIMS', title: 'alpha', lastDeliveryDate: on('09') }),
    buildReadNotification({ id: 'a3', nature: 'ALERT', type: 'REMINDER', topic: 'BILLING', title: 'Charlie', lastDeliveryDate: on('08') }),
    buildViewedNotification({ id: 'a4', nature: 'TASK', type: 'MESSAGE', topic: 'CLAIMS', title: 'Delta', lastDeliveryDate: on('07') }),
    buildScheduledNotification({ id: 'a5', nature: 'ALERT', topic: 'CLAIMS', title: 'Foxtrot', lastDeliveryDate: on('06') }),
    buildExpiredNotification({ id: 'a6', nature: 'NEWS', topic: 'BILLING', title: 'Golf', lastDeliveryDate: on('05') }),
    buildNotification({ id: 'a7', read: true, viewed: true, nature: 'TASK', topic: 'GENERAL', title: 'Hotel', lastDeliveryDate: on('04') }),
    buildNotificationWithSources({ id: 'a8', nature: 'ALERT', topic: 'GENERAL', title: 'echo 10', lastDeliveryDate: on('03'), sources: A8_SOURCES }),
    buildNotification({ id: 'a9', nature: 'NEWS', type: 'REMINDER', topic: 'GENERAL', title: 'echo 9', lastDeliveryDate: on('02') }),
    buildNotification({ id: 'a10', nature: 'TASK', topic: 'CLAIMS', title: 'Echo', lastDeliveryDate: on('02') }),
    // Same userId, another source: not the current user's (users says aka-user is AVAILITY).
    buildNotificationFor({ userId: 'aka-user', userSource: 'PORTAL' }, { id: 'x1', lastDeliveryDate: on('11') }),
    // other-user (AVAILITY).
    buildNotificationFor(OTHER_FIXTURE_USER, { id: 'o1', topic: 'BILLING', lastDeliveryDate: on('12') }),
    buildNotificationFor(OTHER_FIXTURE_USER, { id: 'o2', topic: 'CLAIMS', lastDeliveryDate: on('01') }),
    buildNotificationFor(OTHER_FIXTURE_USER, { id: 'o3', read: true, lastDeliveryDate: on('15') }),
    // jane (PORTAL).
    buildNotificationFor(JANE, { id: 'j1', lastDeliveryDate: on('13') }),
  ]
}

/** The default listing of aka-user under CLOCK. */
export const DEFAULT_IDS = ['a1', 'a2', 'a4', 'a8', 'a9', 'a10']
