// Ownership by principal over Streamable HTTP: ports and stateful sessions belong to
// whoever is asking (a named bearer token, or the one `local` principal without tokens),
// never to a connection or an MCP session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { callOk, tempDir, removeDir } from './lib/harness.mjs';
import { startHttpGateway, connectHttp, post } from './lib/http_gateway.mjs';

const open = { baud_rate: 115200, terminator: '\n' };

async function toolText(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: result.content?.[0]?.text ?? '' };
}

function bearer(token) {
  return { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
}

test('a client that leaves without DELETE leaves its port to the next local client', async () => {
  const gateway = await startHttpGateway();
  try {
    const first = await connectHttp(gateway.url, { name: 'inspector-cli' });
    await callOk(first.client, 'open_port', { port_name: 'loop://left', ...open });
    await callOk(first.client, 'write', { port_name: 'loop://left', data: 'from the first' });
    // Gone without DELETE: the transport is dropped, the session stays until it idles out.
    await first.transport.close();

    const second = await connectHttp(gateway.url, { name: 'second-client' });
    const status = await callOk(second.client, 'status', { port_name: 'loop://left' });
    assert.equal(status.owned_by_caller, true, 'the same principal owns the port');
    assert.equal((await callOk(second.client, 'read', { port_name: 'loop://left' })).data,
      'from the first');
    await callOk(second.client, 'write', { port_name: 'loop://left', data: 'again' });
    await callOk(second.client, 'close', { port_name: 'loop://left' });
    await second.transport.terminateSession();
  } finally {
    await gateway.stop();
  }
});

test('named tokens cannot touch each other\'s ports or sessions', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, '# lab clients\nalice alice-secret-token\nbob bob-secret-token\n');
  const gateway = await startHttpGateway(['--auth-token-file', tokens]);
  try {
    const alice = await connectHttp(gateway.url, bearer('alice-secret-token'));
    const bob = await connectHttp(gateway.url, bearer('bob-secret-token'));
    await callOk(alice.client, 'open_port', { port_name: 'loop://alices', ...open });
    for (const [tool, args] of [['write', { data: 'x' }], ['read', {}], ['close', {}]]) {
      const refused = await toolText(bob.client, tool, { port_name: 'loop://alices', ...args });
      assert.equal(refused.isError, true, tool);
      assert.match(refused.text, /in use by another client \(held by http:alice\)/, tool);
    }
    // Bob cannot use, stream from or end Alice's session, even knowing its id.
    const session = alice.transport.sessionId;
    const auth = { Authorization: 'Bearer bob-secret-token' };
    const used = await post(gateway.url, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      { session, version: '2025-11-25', headers: auth });
    assert.equal(used.status, 404);
    const stream = await fetch(gateway.url, { headers: { ...auth, 'Mcp-Session-Id': session,
      Accept: 'text/event-stream' } });
    assert.equal(stream.status, 404);
    await stream.body?.cancel();
    const ended = await fetch(gateway.url, { method: 'DELETE', headers: { ...auth, 'Mcp-Session-Id': session } });
    assert.equal(ended.status, 404);
    // Alice's session still works.
    assert.equal((await callOk(alice.client, 'status', { port_name: 'loop://alices' })).owned_by_caller, true);
    await callOk(alice.client, 'close', { port_name: 'loop://alices' });
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
});

test('a principal that returns on a new session, or statelessly, still has its ports', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'carol carol-secret-token\n');
  const gateway = await startHttpGateway(['--auth-token-file', tokens]);
  try {
    const before = await connectHttp(gateway.url, bearer('carol-secret-token'));
    await callOk(before.client, 'open_port', { port_name: 'loop://kept', ...open });
    await before.transport.terminateSession();

    const after = await connectHttp(gateway.url, bearer('carol-secret-token'));
    await callOk(after.client, 'write', { port_name: 'loop://kept', data: 'still mine' });
    // And in the stateless era, with no session at all.
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {} };
    const read = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call',
      params: { name: 'read', arguments: { port_name: 'loop://kept' }, _meta: meta } }), {
      version: '2026-07-28',
      headers: { Authorization: 'Bearer carol-secret-token', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'read' } });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.result.structuredContent.data, 'still mine');
    assert.equal(read.json.result.resultType, 'complete');
    await callOk(after.client, 'close', { port_name: 'loop://kept' });
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
});

test('a call that outlasts --port-idle-release-ms keeps its port to its last send; idle time counts from its end', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'dave dave-secret-token\nerin erin-secret-token\n');
  const gateway = await startHttpGateway(['--auth-token-file', tokens, '--port-idle-release-ms', '1000']);
  try {
    const dave = await connectHttp(gateway.url, bearer('dave-secret-token'));
    // Connected first, so that nothing slow stands between the script's end and her open.
    const erin = await connectHttp(gateway.url, bearer('erin-secret-token'));
    await callOk(dave.client, 'open_port', { port_name: 'loop://long', ...open });
    // A 3 s script: the supply is switched on, then off after a wait no reply ends.
    const ran = await callOk(dave.client, 'send_expect', {
      port_name: 'loop://long', stop_on_timeout: false,
      steps: [{ send: 'OUTP ON' }, { expect: ['never comes'], timeout_ms: 3000 }, { send: 'OUTP OFF' }],
    });
    assert.equal(ran.completed, true, JSON.stringify(ran));
    assert.equal(ran.steps.length, 3);
    assert.equal(ran.steps[2].kind, 'send');
    assert.equal(Number(ran.steps[2].bytes_written), 'OUTP OFF\n'.length, 'the last send went out');
    assert.doesNotMatch(gateway.stderr(), /principal dave made no request/);
    // Still dave's right after the call, although his last request began 3 s ago.
    const refused = await toolText(erin.client, 'open_port', { port_name: 'loop://long', ...open });
    assert.match(refused.text, /held by http:dave/);
    // Quiet from here on: released about a second later.
    let opened = false;
    for (let i = 0; i < 100 && !opened; i++) {
      await sleep(100);
      opened = !(await toolText(erin.client, 'open_port', { port_name: 'loop://long', ...open })).isError;
    }
    assert.ok(opened, 'the principal idle since its call ended released the port');
    await callOk(erin.client, 'close', { port_name: 'loop://long' });
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
});

test('a principal idle for --port-idle-release-ms gives its ports up, and it is logged', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'dave dave-secret-token\nerin erin-secret-token\n');
  const gateway = await startHttpGateway(['--auth-token-file', tokens, '--port-idle-release-ms', '300']);
  try {
    const dave = await connectHttp(gateway.url, bearer('dave-secret-token'));
    await callOk(dave.client, 'open_port', { port_name: 'loop://idle', ...open });
    const erin = await connectHttp(gateway.url, bearer('erin-secret-token'));
    const refused = await toolText(erin.client, 'open_port', { port_name: 'loop://idle', ...open });
    assert.match(refused.text, /held by http:dave/);
    // Dave goes quiet; his ports are released and Erin can take the port.
    let opened = false;
    for (let i = 0; i < 100 && !opened; i++) {
      await sleep(100);
      opened = !(await toolText(erin.client, 'open_port', { port_name: 'loop://idle', ...open })).isError;
    }
    assert.ok(opened, 'the idle principal released the port');
    assert.match(gateway.stderr(), /principal dave made no request for the idle-release time/);
    await callOk(erin.client, 'close', { port_name: 'loop://idle' });
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
});
