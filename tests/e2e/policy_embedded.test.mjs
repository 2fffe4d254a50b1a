// The safety policy in embedded mode: `labgate --policy FILE`, the single binary an MCP
// client launches, enforces it in its in-process serial service and reloads it on SIGHUP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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

test('instruments: --check-config and a start with a bad file name the file and the key; both binaries', () => {
  const dir = tempDir('labgate-instruments-check-');
  try {
    mkdirSync(join(dir, 'profiles'));
    writeFileSync(join(dir, 'profiles', 'psu.json'), JSON.stringify({ model: 'LOOP-PSU' }));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ instruments: [{ name: 'psu-1', profile: 'LOOP-PSU', match: { port_name: 'loop://p' } }] }));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ instruments: [{ name: 'psu-1', profile: 'LOOP-PSU', match: { port_name: 'loop://p' }, colour: 'red' }] }));
    for (const binary of [BIN.labgate, BIN.serial]) {
      const args = (file) => ['--check-config', ...(binary === BIN.labgate ? ['--data-dir', dir] : []),
        '--profiles', join(dir, 'profiles'), '--instruments', file];
      const ok = spawnSync(binary, args(good), { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr + ok.stdout);
      assert.match(ok.stdout + ok.stderr, /instruments: 1 profile\(s\), 1 named instrument\(s\)/);
      const refused = spawnSync(binary, args(bad), { encoding: 'utf8' });
      assert.notEqual(refused.status, 0);
      assert.match(refused.stdout + refused.stderr, /bad\.json.*colour|colour.*bad\.json/s);
      // Started for real (no --check-config), it refuses to run.
      const started = spawnSync(binary, args(bad).slice(1), { encoding: 'utf8', timeout: 10000, input: '' });
      assert.notEqual(started.status, 0);
      assert.match(started.stderr, /colour/);
    }
  } finally {
    removeDir(dir);
  }
});

// The 2026 era has no requests to the client: a `confirm` rule's question goes back as
// input_required, the v2 client asks its person through its elicitation handler, and its
// retry of the call (with the answer and the signed requestState) sends the write.
test('a confirm rule in the 2026 era: input_required, answered by the v2 client', async () => {
  const { connectV2Stdio } = await import('./lib/v2_client.mjs');
  const dir = tempDir('labgate-policy-2026-');
  const policyFile = join(dir, 'policy.json');
  writeFileSync(policyFile, JSON.stringify({
    ports: [{ match: 'loop://*', confirm: [{ name: 'output-on', pattern: '^OUTP ON' }] }],
  }));
  const answers = [{ action: 'accept', content: { approve: true } }, { action: 'decline' }];
  const asked = [];
  const conn = await connectV2Stdio(['--policy', policyFile], {
    mode: 'pinned',
    capabilities: { elicitation: { form: {} } },
    setup: (client) => client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return answers.shift();
    }),
  });
  try {
    const opened = await conn.client.callTool({ name: 'open_port', arguments: { port_name: 'loop://psu', baud_rate: 9600 } });
    assert.equal(opened.isError, false);
    const approved = await conn.client.callTool({ name: 'write', arguments: { port_name: 'loop://psu', data: 'OUTP ON' } });
    assert.equal(approved.isError, false, JSON.stringify(approved.content));
    assert.match(asked[0], /output-on/);
    const rounds = conn.wire.responsesTo('tools/call', 'write');
    assert.equal(rounds[0].result.resultType, 'input_required');
    assert.equal(rounds.at(-1).result.resultType, 'complete');
    const read = await conn.client.callTool({ name: 'read', arguments: { port_name: 'loop://psu' } });
    assert.equal(read.structuredContent.data, 'OUTP ON');

    const declined = await conn.client.callTool({ name: 'write', arguments: { port_name: 'loop://psu', data: 'OUTP ON' } });
    assert.equal(declined.isError, true);
    assert.match(declined.content[0].text, /declined/);
  } finally {
    await conn.close();
    removeDir(dir);
  }
});
