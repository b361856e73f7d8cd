// app/users.ts: the API call the page, the route handler and the server action share.
export interface Users {
  team: string
  names: string[]
}

export async function fetchUsers(): Promise<Users> {
  // Per request, never from Next's fetch cache: each test's session has its own answer.
  const res = await fetch(`${process.env.MOCKYARD_URL}/v1/users`, { cache: 'no-store' })
  return res.json()
}
