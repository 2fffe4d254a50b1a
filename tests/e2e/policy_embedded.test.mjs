// The safety policy in embedded mode: `labgate --policy FILE`, the single binary an MCP
// client launches, enforces it in its in-process serial service and reloads it on SIGHUP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, connectStdio, callOk, tempDir, removeDir } from './lib/harness.mjs';
import { callError, eventually } from './lib/serial_helpers.mjs';

const POLICY = {
  ports: [{ match: 'loop://*', deny: [{ name: 'no-reset', pattern: '^\\*RST' }] }],
};

test('embedded labgate enforces --policy and reloads it on SIGHUP', async () => {
  const dir = tempDir('labgate-policy-embedded-');
  const policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify(POLICY));
  const { client, transport } = await connectStdio(['--data-dir', join(dir, 'data'), '--policy', policyFile]);
  try {
    await callOk(client, 'open_port', { port_name: 'loop://psu', baud_rate: 9600, terminator: '\n' });
    assert.match(await callError(client, 'write', { port_name: 'loop://psu', data: '*RST' }), /no-reset/);
    await callOk(client, 'write', { port_name: 'loop://psu', data: 'MEAS:VOLT?' });
    // A port no entry matches cannot be opened.
    assert.match(await callError(client, 'open_port', { port_name: '/dev/ttyNOPE', baud_rate: 9600 }), /policy|allow/i);

    writeFileSync(policyFile, JSON.stringify({ ports: [{ match: 'loop://*' }] }));
    process.kill(transport.pid, 'SIGHUP');
    await eventually(async () => {
      const result = await client.callTool({ name: 'write', arguments: { port_name: 'loop://psu', data: '*RST' } });
      return !result.isError;
    }, 'the reloaded policy');
  } finally {
    await client.close();
    removeDir(dir);
  }
});

test('--check-config validates the policy file', () => {
  const dir = tempDir('labgate-policy-check-');
  try {
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(POLICY));
    const ok = spawnSync(BIN.labgate, ['--check-config', '--data-dir', dir, '--policy', good], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr + ok.stdout);
    assert.match(ok.stdout + ok.stderr, /safety policy: /);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ports: [{ match: 'loop://*', colour: 'red' }] }));
    const refused = spawnSync(BIN.labgate, ['--check-config', '--data-dir', dir, '--policy', bad], { encoding: 'utf8' });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stdout + refused.stderr, /colour/);
  } finally {
    removeDir(dir);
  }
});
