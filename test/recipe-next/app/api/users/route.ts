// app/api/users/route.ts: a route handler calling the API.
import { fetchUsers } from '../../users'

export async function GET() {
  return Response.json(await fetchUsers())
}
