export default async function globalTeardown() {
	for (const stop of globalThis.__QUEUE_RUNNING__ ?? []) await stop();
}
