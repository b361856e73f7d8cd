'use client'
// app/refresh.tsx: calls the server action and the route handler from the page.
import { useEffect, useState } from 'react'
import { loadTeam } from './actions'

export function Refresh() {
  const [fromAction, setFromAction] = useState('')
  const [fromRoute, setFromRoute] = useState('')
  // Hydrated: the buttons work from now on.
  const [ready, setReady] = useState(false)
  useEffect(() => setReady(true), [])
  return (
    <p data-ready={ready ? 'yes' : undefined}>
      <button id="action" onClick={async () => setFromAction(await loadTeam())}>server action</button>
      <output id="from-action">{fromAction}</output>
      <button id="route" onClick={async () => setFromRoute((await (await fetch('/api/users')).json()).team)}>route handler</button>
      <output id="from-route">{fromRoute}</output>
    </p>
  )
}
