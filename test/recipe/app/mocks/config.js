// mocks/config.js
export default {
  routes: './routes.json',
  data: './data',
  latency: 250,
}
