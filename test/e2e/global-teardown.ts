export default async function globalTeardown() {
	for (const running of globalThis.__E2E_RUNNING__ ?? []) await running.stop();
}
