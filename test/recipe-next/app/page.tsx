// app/page.tsx: a server component; the users are in the HTML the server sends.
import { fetchUsers } from './users'
import { Refresh } from './refresh'

export default async function Page() {
  const users = await fetchUsers()
  return (
    <main>
      <h1 id="team">{users.team}</h1>
      <ul id="users">
        {users.names.map((name) => (
          <li key={name}>{name}</li>
        ))}
      </ul>
      <Refresh />
    </main>
  )
}
