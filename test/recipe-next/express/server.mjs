// express/server.mjs: an Express app that renders on the server and calls the API from there.
import http from 'node:http'
import express from 'express'
import { propagateSessions } from 'mockyard/node'

propagateSessions() // reads MOCKYARD_URL

const api = process.env.MOCKYARD_URL
const app = express()
app.use(express.json())

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)

// The page, rendered with what `fetch` got from the API.
app.get('/', async (_req, res) => {
  const users = await (await fetch(`${api}/v1/users`)).json()
  const items = users.names.map((name) => `<li>${escape(name)}</li>`).join('')
  res.send(`<!doctype html><h1 id="team">${escape(users.team)}</h1><ul id="users">${items}</ul>`)
})

// A JSON endpoint: the body is parsed first (express.json()), then `http.get` calls the API.
app.post('/team', (req, res, next) => {
  http
    .get(`${api}/v1/users`, (answer) => {
      let body = ''
      answer.setEncoding('utf8')
      answer.on('data', (chunk) => (body += chunk))
      answer.on('end', () => res.json({ team: JSON.parse(body).team, asked: req.body.asked }))
    })
    .on('error', next)
})

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`express listening on http://127.0.0.1:${server.address().port}`)
})
