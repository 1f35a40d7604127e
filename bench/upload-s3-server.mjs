// The S3 server of bench/upload.mjs in a process of its own: s3rver (the tests' S3 server) on
// `port` (argv[2]), objects in the folder argv[3], with the bucket `radar`. Prints its port once listening.
import S3rver from 's3rver';

const [port, directory] = process.argv.slice(2);
const server = new S3rver({ port: Number(port), address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: 'radar' }] });
const { port: listening } = await server.run();
process.stdout.write(`${listening}\n`);
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
