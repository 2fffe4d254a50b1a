// The access file over Streamable HTTP with the official v1 and v2 SDK clients: each token's
// principal sees only the tools it may call, a refused call names the missing permission, an
// operator's ports are its globs, and SIGHUP reloads the file without dropping sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import { BIN, callOk, tempDir, removeDir, startService, connectStdio } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { connectV2Http, protocolError } from './lib/v2_client.mjs';
import { RawGateway } from './lib/raw_gateway.mjs';

const open = { baud_rate: 115200, terminator: '\n' };
const TOKENS = 'vera vera-token-1\nolga olga-token-2\nroot root-token-3\nmallory mallory-token-4\n';
const ACCESS = {
  principals: {
    vera: { role: 'viewer' },
    olga: { role: 'operator', ports: ['loop://lab-*'], tools: ['*'] },
    root: { role: 'admin' },
  },
};

function bearer(token) {
  return { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
}

async function toolNames(client) {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

async function refusal(promise) {
  try {
    const result = await promise;
    // A refusal that came back from a service as a tool error carries its text.
    assert.equal(result.isError, true, `expected a refusal, got ${JSON.stringify(result)}`);
    return result.content[0].text;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return error.message;
  }
}

async function withGateway(body) {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  const access = join(dir, 'access.json');
  writeFileSync(tokens, TOKENS);
  writeFileSync(access, JSON.stringify(ACCESS));
  const gateway = await startHttpGateway(['--auth-token-file', tokens, '--access-file', access]);
  try {
    await body(gateway, access);
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
}

test('a viewer sees and calls only read-only tools, in both eras', async () => {
  await withGateway(async (gateway) => {
    const vera = await connectHttp(gateway.url, bearer('vera-token-1'));
    const root = await connectHttp(gateway.url, bearer('root-token-3'));
    const all = await toolNames(root.client);
    const seen = await toolNames(vera.client);
    assert.ok(all.includes('write') && all.includes('open_port'));
    assert.ok(seen.includes('status') && seen.includes('list_ports'), seen.join(','));
    assert.ok(!seen.includes('write') && !seen.includes('open_port'), seen.join(','));
    assert.ok(seen.length < all.length);

    const text = await refusal(vera.client.callTool({ name: 'write',
      arguments: { port_name: 'loop://lab-1', data: 'VOLT 30' } }));
    assert.match(text, /vera may not call write: vera \(viewer\) is read-only in .*access\.json, and write is not a read-only tool/);
    // The viewer's reading still works.
    assert.ok(Array.isArray((await callOk(vera.client, 'list_ports')).ports));

    // The v2 client, in the stateless era, sees the same list and the same refusal.
    const v2 = await connectV2Http(gateway.url, { headers: { Authorization: 'Bearer vera-token-1' } });
    const v2Seen = (await v2.client.listTools()).tools.map((tool) => tool.name);
    assert.deepEqual(v2Seen.sort(), [...seen].sort());
    const error = await protocolError(v2.client.callTool({ name: 'open_port',
      arguments: { port_name: 'loop://lab-1', ...open } }));
    assert.match(error.message, /vera may not call open_port/);
    await v2.close();
    await vera.transport.terminateSession();
    await root.transport.terminateSession();
  });
});

test('an operator writes to its own ports only, and a principal not in the file does nothing', async () => {
  await withGateway(async (gateway) => {
    const olga = await connectHttp(gateway.url, bearer('olga-token-2'));
    await callOk(olga.client, 'open_port', { port_name: 'loop://lab-1', ...open });
    await callOk(olga.client, 'write', { port_name: 'loop://lab-1', data: 'VOLT 5' });
    const text = await refusal(olga.client.callTool({ name: 'open_port',
      arguments: { port_name: 'loop://other', ...open } }));
    assert.match(text, /olga may not use port loop:\/\/other: it is not among its ports/);
    await callOk(olga.client, 'close', { port_name: 'loop://lab-1' });

    // The console shows who is asking and every named principal's role.
    const whoami = await fetch(`http://127.0.0.1:${gateway.port}/console/api/whoami`,
      { headers: { Authorization: 'Bearer olga-token-2' } });
    assert.equal(whoami.status, 200);
    const me = await whoami.json();
    assert.equal(me.principal, 'olga');
    assert.equal(me.role, 'operator');
    assert.deepEqual(me.access.roles, { olga: 'operator', root: 'admin', vera: 'viewer' });

    const mallory = await connectHttp(gateway.url, bearer('mallory-token-4'));
    assert.deepEqual(await toolNames(mallory.client), []);
    const refused = await refusal(mallory.client.callTool({ name: 'status', arguments: {} }));
    assert.match(refused, /mallory may do nothing here: it is not in the access file/);
    await olga.transport.terminateSession();
    await mallory.transport.terminateSession();
  });
});

test('resources follow the tools whose answers they show, in both eras', async () => {
  await withGateway(async (gateway) => {
    const mallory = await connectHttp(gateway.url, bearer('mallory-token-4'));
    for (const uri of ['labgate://sessions', 'labgate://ports']) {
      const refused = await refusal(mallory.client.readResource({ uri }));
      assert.match(refused, new RegExp(`${uri}: mallory may do nothing here`));
      assert.match(await refusal(mallory.client.subscribeResource({ uri })), /mallory may do nothing/);
    }
    const listed = (await mallory.client.listResources()).resources.map((r) => r.uri);
    assert.deepEqual(listed.filter((uri) => uri.startsWith('labgate://')), []);

    // An operator reads its own ports' resources, not another's.
    const olga = await connectHttp(gateway.url, bearer('olga-token-2'));
    await callOk(olga.client, 'open_port', { port_name: 'loop://lab-1', ...open });
    const own = await olga.client.readResource({ uri: 'labgate://ports/loop%3A%2F%2Flab-1' });
    assert.equal(JSON.parse(own.contents[0].text).state, 'open');
    const other = await refusal(olga.client.readResource({ uri: 'labgate://ports/loop%3A%2F%2Fother' }));
    assert.match(other, /olga may not use port loop:\/\/other: it is not among its ports/);
    await callOk(olga.client, 'close', { port_name: 'loop://lab-1' });

    // The 2026 era's subscription leaves out what the principal may not read.
    const v2 = await connectV2Http(gateway.url, { headers: { Authorization: 'Bearer mallory-token-4' } });
    const error = await protocolError(v2.client.readResource({ uri: 'labgate://sessions' }));
    assert.match(error.message, /mallory may do nothing/);
    await v2.close();
    await olga.transport.terminateSession();
    await mallory.transport.terminateSession();
  });
});

test('SIGHUP reloads the access file and open sessions see the change', async () => {
  await withGateway(async (gateway, access) => {
    const vera = await connectHttp(gateway.url, bearer('vera-token-1'));
    let toolListChanges = 0;
    vera.client.setNotificationHandler(ToolListChangedNotificationSchema, () => { ++toolListChanges; });
    assert.ok(!(await toolNames(vera.client)).includes('write'));
    // The notice travels on vera's GET stream, which the SDK opens after initialize.
    await sleep(200);
    const changesBefore = toolListChanges;
    writeFileSync(access, JSON.stringify({ principals: { ...ACCESS.principals,
      vera: { role: 'operator', ports: ['loop://lab-*'] } } }));
    gateway.child.kill('SIGHUP');
    // The session is told its tools/list changed, so a client need not poll for it.
    for (let i = 0; i < 100 && toolListChanges === changesBefore; ++i) await sleep(50);
    assert.ok(toolListChanges > changesBefore, 'notifications/tools/list_changed after the reload');
    let names = [];
    for (let i = 0; i < 100 && !names.includes('write'); ++i) {
      await sleep(50);
      names = await toolNames(vera.client);  // the same session throughout
    }
    assert.ok(names.includes('write'), 'the reload took effect');
    await callOk(vera.client, 'open_port', { port_name: 'loop://lab-2', ...open });
    await callOk(vera.client, 'write', { port_name: 'loop://lab-2', data: 'now allowed' });

    // A file that no longer loads leaves the last good one in force.
    writeFileSync(access, '{"principals": {"vera": {"role": "boss"}}}');
    gateway.child.kill('SIGHUP');
    for (let i = 0; i < 100 && !/access file not reloaded/.test(gateway.stderr()); ++i) await sleep(50);
    assert.match(gateway.stderr(), /access file not reloaded; the previous one stays in force/);
    await callOk(vera.client, 'write', { port_name: 'loop://lab-2', data: 'still allowed' });
    await callOk(vera.client, 'close', { port_name: 'loop://lab-2' });
    await vera.transport.terminateSession();
  });
});

test('an operator revokes a principal\'s HTTP sessions from the console; a viewer may not', async () => {
  await withGateway(async (gateway) => {
    const base = `http://127.0.0.1:${gateway.port}`;
    const whoami = async (token) => (await (await fetch(`${base}/console/api/whoami`,
      { headers: { Authorization: `Bearer ${token}` } })).json());
    const revoke = async (token, principal, csrf) => {
      const response = await fetch(`${base}/console/api/principals/${encodeURIComponent(principal)}/revoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, ...(csrf ? { 'X-Labgate-Csrf': csrf } : {}) },
      });
      return { status: response.status, json: await response.json() };
    };
    const vera = await connectHttp(gateway.url, bearer('vera-token-1'));
    const session = vera.transport.sessionId;
    assert.ok(session);

    // A viewer may not act, even with its own CSRF token.
    const byViewer = await revoke('vera-token-1', 'olga', (await whoami('vera-token-1')).csrf);
    assert.equal(byViewer.status, 403);
    assert.match(byViewer.json.error, /vera may not act from the console: it needs the operator or admin role/);
    // An operator without the token is refused too.
    assert.equal((await revoke('olga-token-2', 'vera')).status, 403);

    const done = await revoke('olga-token-2', 'vera', (await whoami('olga-token-2')).csrf);
    assert.equal(done.status, 200, JSON.stringify(done.json));
    assert.deepEqual(done.json, { principal: 'vera', revoked_sessions: 1 });
    assert.match(gateway.stderr(), /console: olga revoked the HTTP sessions of vera \(1 ended\)/);
    // The revoked session is gone; vera may start a new one.
    const gone = await fetch(gateway.url, { method: 'POST', headers: { Authorization: 'Bearer vera-token-1',
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
    const again = await connectHttp(gateway.url, bearer('vera-token-1'));
    assert.ok((await toolNames(again.client)).includes('status'));
    await again.transport.terminateSession();
  });
});

test('on stdio the access file binds the v0.1 envelope\'s actions as it binds their tools', async () => {
  const dir = tempDir();
  const access = join(dir, 'access.json');
  writeFileSync(access, JSON.stringify({ principals: {
    stdio: { role: 'operator', tools: ['supportive_reply'] } } }));
  const gw = new RawGateway(['--data-dir', join(dir, 'data'), '--access-file', access]);
  const legacy = async (line) => {
    await gw.write(line + '\n');
    return (await gw.take((m) => m.ok !== undefined)).text;
  };
  try {
    const listed = JSON.parse(await legacy('{"id":"l","type":"list_actions"}'));
    assert.equal(listed.ok, true);
    assert.deepEqual(listed.data.map((c) => c.action), ['supportive_reply']);
    const refused = await legacy(JSON.stringify({ id: 'r', type: 'invoke',
      payload: { action: 'empathetic_reframe', input: { message: 'x' } } }));
    assert.match(refused, /^\{"id":"r","ok":false,"error":"stdio may not call empathetic_reframe: the tool is not among its tools in .*access\.json"\}$/);
    const allowed = JSON.parse(await legacy(JSON.stringify({ id: 'a', type: 'invoke',
      payload: { action: 'supportive_reply', input: { message: 'hello', risk_level: 'low' } } })));
    assert.equal(allowed.ok, true, JSON.stringify(allowed));
  } finally {
    await gw.close();
    removeDir(dir);
  }
});

test('on stdio the access file binds loaf\'s session methods as it binds their tools', async () => {
  const dir = tempDir();
  const access = join(dir, 'access.json');
  // stdio may create and read sessions but not append to them, and may not stop labgate.
  writeFileSync(access, JSON.stringify({ principals: {
    stdio: { role: 'viewer', tools: ['create_session', 'get_session', 'list_*'] } } }));
  const gw = new RawGateway(['--data-dir', join(dir, 'data'), '--access-file', access]);
  try {
    assert.ok((await gw.request(1, 'rpc.handshake', { protocol_version: '1.0.0' })).result);
    assert.ok((await gw.request(2, 'system.ping')).result);
    // A viewer may not create (create_session is not read-only)...
    const create = await gw.request(3, 'session.create', { device_id: 'scope-1' });
    assert.match(create.error?.message ?? '', /stdio may not call create_session: stdio \(viewer\) is read-only/);
    const shutdown = await gw.request(4, 'system.shutdown', { reason: 'bye' });
    assert.match(shutdown.error?.message ?? '', /stdio may not act from the console: it needs the operator or admin role/);
    // ...and labgate is still serving.
    assert.ok((await gw.request(5, 'system.ping')).result);
  } finally {
    await gw.close();
    removeDir(dir);
  }
  const dir2 = tempDir();
  const access2 = join(dir2, 'access.json');
  writeFileSync(access2, JSON.stringify({ principals: {
    stdio: { role: 'operator', tools: ['create_session', 'get_session'] } } }));
  const gw2 = new RawGateway(['--data-dir', join(dir2, 'data'), '--access-file', access2]);
  try {
    const created = await gw2.request(1, 'session.create', { device_id: 'scope-1' });
    const id = created.result?.session_id;
    assert.ok(id, JSON.stringify(created));
    assert.equal((await gw2.request(2, 'session.get', { session_id: id })).result?.session_id, id);
    const send = await gw2.request(3, 'session.send', { session_id: id, content: 'hi' });
    assert.match(send.error?.message ?? '', /stdio may not call append_message: the tool is not among its tools/);
  } finally {
    await gw2.close();
    removeDir(dir2);
  }
});

test('benches outside a principal\'s permissions are refused, and listings leave them out', async () => {
  const dir = tempDir();
  const access = join(dir, 'access.json');
  writeFileSync(access, JSON.stringify({ principals: { stdio: { role: 'operator', benches: ['lab-a'] } } }));
  const benchA = await startService(BIN.serial);
  const benchB = await startService(BIN.serial);
  const { client } = await connectStdio(['--data-dir', join(dir, 'data'), '--access-file', access,
    '--serial-addr', `lab-a=${benchA.address}`, '--serial-addr', `lab-b=${benchB.address}`]);
  try {
    await callOk(client, 'open_port', { port_name: 'lab-a:loop://mine', ...open });
    const text = await refusal(client.callTool({ name: 'open_port',
      arguments: { port_name: 'lab-b:loop://theirs', ...open } }));
    assert.match(text, /stdio may not use bench lab-b: it is not among its benches in .*access\.json/);
    const names = (await callOk(client, 'list_ports')).ports.map((port) => port.port_name);
    assert.ok(names.includes('lab-a:loop://mine'), names.join());
    assert.ok(names.every((name) => name.startsWith('lab-a:')), names.join());
    await callOk(client, 'close', { port_name: 'lab-a:loop://mine' });
  } finally {
    await client.close();
    await benchA.stop();
    await benchB.stop();
    removeDir(dir);
  }
});

test('a bad access file stops labgate and labgate-serial at start, naming the file and the problem', async () => {
  const dir = tempDir();
  const bad = join(dir, 'access.json');
  writeFileSync(bad, JSON.stringify({ principals: { vera: { role: 'viewer', read_only: false } } }));
  try {
    for (const [binary, args] of [[BIN.labgate, ['--data-dir', join(dir, 'data')]],
      [BIN.serial, ['--listen', '127.0.0.1:0']]]) {
      const run = spawnSync(binary, ['--access-file', bad, ...args],
        { input: '', encoding: 'utf8', timeout: 20000 });
      assert.notEqual(run.status, 0, `${binary} started with a bad access file`);
      assert.match(run.stderr, /access\.json: \[principals\]\[vera\]: a viewer is always read-only/, run.stderr);
    }
    const missing = spawnSync(BIN.labgate, ['--access-file', join(dir, 'none.json')],
      { input: '', encoding: 'utf8', timeout: 20000 });
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /cannot read the access file .*none\.json/);
  } finally {
    removeDir(dir);
  }
});
