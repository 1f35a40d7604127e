/**
 * `npm run fcm-stub`: a local FCM endpoint that prints each message it receives. Start the
 * service with FCM_EMULATOR_HOST=127.0.0.1:9099 and its notifications arrive here.
 * FCM_STUB_PORT / FCM_STUB_HOST change where it listens.
 */
import { startFcmStub } from '../test/helpers/fcm-stub.js';

const port = Number(process.env.FCM_STUB_PORT ?? 9099);
const host = process.env.FCM_STUB_HOST ?? '127.0.0.1';
const stub = await startFcmStub({
  port,
  host,
  record: false,
  onMessage: (r) => console.log(`${new Date(r.at).toISOString()} projects/${r.project} ${JSON.stringify(r.message)}`),
});
console.log(`FCM stub listening on ${stub.host}: start the service with FCM_EMULATOR_HOST=${stub.host}`);
const stop = () => void stub.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
