// The FCM stub's raw limit, measured from a process of its own (as the service is one): POSTs FCM
// v1 send requests (`…/messages:send`, a notification message as firebase-admin serialises it)
// straight at the stub over `sockets` keep-alive HTTP/1.1 connections with as many requests in
// flight, for `seconds`; prints `{ perSecond, requests }` as one JSON line. Any non-2xx answer or
// request error exits 1.
//   node bench/fcm-raw-client.mjs <port> <seconds> <sockets>
import { Agent, request } from 'node:http';

const [port, seconds, sockets] = process.argv.slice(2).map(Number);
const agent = new Agent({ keepAlive: true, maxSockets: sockets });
const body = JSON.stringify({
  message: {
    token: 'raw-token', notification: { title: 'Questionnaire time', body: 'Please complete your questionnaire' },
    data: { n: 'raw' }, android: { ttl: '3600s', priority: 'high' }, apns: { headers: { 'apns-expiration': '1893488400' } },
  },
});
const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer raw' };
const one = () => new Promise((resolve, reject) => {
  const req = request({ host: '127.0.0.1', port, path: '/v1/projects/raw/messages:send', method: 'POST', agent, headers }, (res) => {
    res.resume();
    res.on('end', () => (res.statusCode >= 200 && res.statusCode <= 299 ? resolve() : reject(new Error(`stub answered ${res.statusCode}`))));
  });
  req.on('error', reject);
  req.end(body);
});
const warmUntil = performance.now() + 1000;
await Promise.all(Array.from({ length: sockets }, async () => { while (performance.now() < warmUntil) await one(); }));
let requests = 0;
const started = performance.now();
const until = started + seconds * 1000;
try {
  await Promise.all(Array.from({ length: sockets }, async () => { while (performance.now() < until) { await one(); requests++; } }));
} catch (err) {
  console.error(`raw client: ${err.message}`);
  process.exit(1);
}
const elapsed = (performance.now() - started) / 1000;
console.log(JSON.stringify({ perSecond: Math.round(requests / elapsed), requests }));
agent.destroy();
