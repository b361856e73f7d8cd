'use server'
// app/actions.ts: a server action calling the API.
import { fetchUsers } from './users'

export async function loadTeam(): Promise<string> {
  return (await fetchUsers()).team
}
