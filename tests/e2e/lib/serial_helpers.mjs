// Helpers for the serial end-to-end tests: tool errors, polling, and embedded gateways
// with a throwaway data directory.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir, removeDir, connectStdio } from './harness.mjs';

// Calls a tool that must fail, and returns its error text.
// A JSON-RPC error (e.g. -32602 for arguments the schema refuses) counts too.
export async function callError(client, name, args = {}) {
  let result;
  try {
    result = await client.callTool({ name, arguments: args });
  } catch (error) {
    return String(error.message ?? error);
  }
  assert.equal(result.isError, true, `${name} should fail, got ${JSON.stringify(result.structuredContent)}`);
  return result.content.map((c) => c.text).join('\n');
}

// Polls `probe` until it returns a truthy value; fails after `timeoutMs` with `what`.
export async function eventually(probe, what, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

// An embedded labgate over stdio with its own data directory; `close()` removes it.
export async function embeddedGateway(extraArgs = [], options = {}) {
  const dataDir = tempDir('labgate-serial-e2e-');
  const connection = await connectStdio(['--data-dir', dataDir, ...extraArgs], options);
  return {
    ...connection,
    dataDir,
    async close() {
      await connection.client.close();
      removeDir(dataDir);
    },
  };
}

export const bytesOf = (hex) => Buffer.from(hex, 'hex');
