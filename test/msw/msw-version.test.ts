import { inject, expect, it } from 'vitest'

// The msw2 project aliases `msw` to msw 2.15: make sure each project really runs the msw it names.
it('runs against the msw named by the project', async () => {
  const pkg = (await import('msw/package.json', { with: { type: 'json' } })).default as { version: string }
  expect(pkg.version.split('.')[0]).toBe(inject('mswMajor'))
})
