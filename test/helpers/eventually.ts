// Polls a condition until it holds, for tests that wait on something asynchronous (a proxy, a restart).
import assert from 'node:assert/strict';

export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting until ${what}`);
}
