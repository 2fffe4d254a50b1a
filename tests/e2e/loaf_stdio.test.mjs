// The loaf rpc dialect over real stdio: handshake, sessions and their events (including an
// append by a direct gRPC client), system.shutdown with every acknowledged append on disk,
// mixing with MCP and the v0.1 envelope, and the opt-in heartbeat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { RawGateway } from './lib/raw_gateway.mjs';
import { BIN, tempDir, removeDir, startService, connectStdio, callOk } from './lib/harness.mjs';

const PROTO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'proto');

function sessionClient(address) {
  const definition = protoLoader.loadSync(join(PROTO_ROOT, 'labgate/session/v1/session.proto'), {
    includeDirs: [PROTO_ROOT], keepCase: true, longs: Number, defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(definition).labgate.session.v1;
  return new pkg.SessionService(address, grpc.credentials.createInsecure());
}

function call(client, method, request) {
  return new Promise((resolve, reject) =>
    client[method](request, (err, response) => (err ? reject(err) : resolve(response))));
}

const isEvent = (type, check = () => true) => (m) =>
  m.method === 'event' && m.params?.type === type && check(m.params);

test('handshake, ping, bad params and unknown methods without MCP initialize', async () => {
  const dir = tempDir();
  const gw = new RawGateway(['--data-dir', dir]);
  try {
    const hello = await gw.request(1, 'rpc.handshake', {
      client_name: 'e2e', client_version: '1.0', protocol_version: '1.2.0', strict: true,
    });
    assert.equal(hello.result.protocol_version, '1.0.0');
    assert.equal(hello.result.server_name, 'labgate');
    assert.ok(hello.result.methods.includes('session.send'));
    const strict = await gw.request(2, 'rpc.handshake', { protocol_version: '2.0.0', strict: true });
    assert.equal(strict.error.code, -32602);
    assert.equal(strict.error.data.field, 'protocol_version');
    const lax = await gw.request(3, 'rpc.handshake', { protocol_version: '2.0.0', strict: false });
    assert.equal(lax.result.protocol_version, '1.0.0');
    const ping = await gw.request(null, 'system.ping');
    assert.equal(ping.id, null);
    assert.equal(ping.result.ok, true);
    assert.match(ping.result.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    await gw.send({ jsonrpc: '2.0', method: 'system.ping' });  // a notification: no answer
    const unknown = await gw.request(4, 'session.delete', {});
    assert.equal(unknown.error.code, -32601);
    const bad = await gw.request(5, 'session.send', { session_id: 'x' });
    assert.deepEqual([bad.error.code, bad.error.data.field], [-32602, 'text']);
    const missing = await gw.request(6, 'session.get', { session_id: '00000000-0000-0000-0000-000000000000' });
    assert.deepEqual([missing.error.code, missing.error.data.field], [-32602, 'session_id']);
    // The notification got no answer: nothing is left untaken.
    assert.deepEqual(gw.frames.map((f) => f.message), []);
    assert.equal((await gw.close()).code, 0);
  } finally {
    gw.child.kill('SIGKILL');
    removeDir(dir);
  }
});

test('a loaf client sees its own and a gRPC client\'s appends; system.shutdown keeps them all', async () => {
  const dir = tempDir();
  const session = await startService(BIN.session, ['--data-dir', dir]);
  const grpcClient = sessionClient(session.address);
  const gw = new RawGateway(['--session-addr', session.address]);
  try {
    const created = await gw.request(1, 'session.create', { device_id: 'scope-1' });
    const id = created.result.session_id;
    assert.match(id, /^[0-9a-f-]{36}$/);
    await gw.take(isEvent('session.status', (p) => p.payload.session_id === id && p.payload.status === 'created'));

    const sent = await gw.request(2, 'session.send', { session_id: id, text: 'hello from loaf' });
    assert.equal(sent.result.accepted, true);
    const own = await gw.take(isEvent('session.message.appended', (p) => p.payload.message.content === 'hello from loaf'));
    assert.equal(own.message.params.payload.session_id, id);
    assert.equal(own.message.params.payload.message.role, 'user');
    assert.match(own.message.params.timestamp, /Z$/);

    await call(grpcClient, 'AppendMessage', { session_id: id, content: 'hello from gRPC', role: 'device' });
    const other = await gw.take(isEvent('session.message.appended', (p) => p.payload.message.content === 'hello from gRPC'));
    assert.equal(other.message.params.payload.session_id, id);

    const got = await gw.request(3, 'session.get', { session_id: id });
    assert.equal(got.result.id, id);
    assert.equal(got.result.device_id, 'scope-1');

    // Several appends in flight, then shutdown: each acknowledged one must be stored.
    for (let i = 0; i < 5; i++) await gw.send({ jsonrpc: '2.0', id: `s${i}`, method: 'session.send', params: { session_id: id, text: `burst ${i}` } });
    const bye = await gw.request(9, 'system.shutdown', { reason: 'test over' });
    assert.equal(bye.result.accepted, true);
    assert.equal((await gw.exited).code, 0);
    const acknowledged = gw.frames.filter((f) => String(f.message.id).startsWith('s') && f.message.result?.accepted).length;

    const listed = await call(grpcClient, 'ListMessages', { session_id: id, limit: 100 });
    const contents = listed.messages.map((m) => m.content);
    assert.ok(contents.includes('hello from loaf') && contents.includes('hello from gRPC'));
    assert.ok(contents.filter((c) => c.startsWith('burst')).length >= acknowledged);
  } finally {
    gw.child.kill('SIGKILL');
    grpcClient.close();
    await session.stop();
    removeDir(dir);
  }
});

test('system.shutdown with the embedded store: a new gateway lists every acknowledged append', async () => {
  const dir = tempDir();
  const gw = new RawGateway(['--data-dir', dir]);
  let mcp;
  try {
    const id = (await gw.request(1, 'session.create', { device_id: 'psu' })).result.session_id;
    for (let i = 0; i < 20; i++) {
      await gw.send({ jsonrpc: '2.0', id: `s${i}`, method: 'session.send', params: { session_id: id, text: `line ${i}` } });
    }
    await gw.send({ jsonrpc: '2.0', id: 'bye', method: 'system.shutdown', params: {} });
    assert.equal((await gw.exited).code, 0);
    assert.ok(gw.frames.some((f) => f.message.id === 'bye' && f.message.result?.accepted === true));
    const acknowledged = gw.frames
      .filter((f) => String(f.message.id).startsWith('s') && f.message.result?.accepted)
      .map((f) => `line ${String(f.message.id).slice(1)}`);

    mcp = await connectStdio(['--data-dir', dir]);
    const listed = await callOk(mcp.client, 'list_messages', { session_id: id, limit: 100 });
    const stored = listed.messages.map((m) => m.content);
    for (const text of acknowledged) assert.ok(stored.includes(text), `${text} was acknowledged but not stored`);
  } finally {
    gw.child.kill('SIGKILL');
    if (mcp) await mcp.client.close();
    removeDir(dir);
  }
});

test('loaf, MCP and the v0.1 envelope share one stream', async () => {
  const dir = tempDir();
  const gw = new RawGateway(['--data-dir', dir]);
  try {
    const ping = await gw.request('p1', 'system.ping');
    assert.equal(ping.result.ok, true);
    const init = await gw.initialize();
    assert.ok(init.result.protocolVersion);
    await gw.send({ type: 'list_actions', id: 'env-1' });
    const envelope = await gw.take((m) => m.id === 'env-1' && 'ok' in m);
    assert.equal(envelope.message.ok, true);
    const tools = await gw.request('t1', 'tools/list', {});
    assert.ok(Array.isArray(tools.result.tools));
    const created = await gw.request('c1', 'session.create', {});
    assert.ok(created.result.session_id);
    const framed = { jsonrpc: '2.0', id: 'f1', method: 'system.ping' };
    await gw.sendFramed(framed);
    const reply = await gw.takeId('f1');
    assert.equal(reply.framing, 'content-length');
    assert.equal((await gw.close()).code, 0);
  } finally {
    gw.child.kill('SIGKILL');
    removeDir(dir);
  }
});

test('the heartbeat is opt-in and MCP_DISABLE_HEARTBEAT wins', async () => {
  const heartbeats = async (args, env) => {
    const dir = tempDir();
    const keys = ['MCP_ENABLE_HEARTBEAT', 'MCP_DISABLE_HEARTBEAT'];
    const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
    for (const key of keys) delete process.env[key];
    Object.assign(process.env, env);
    const gw = new RawGateway(['--data-dir', dir, ...args]);  // spawn copies the environment
    for (const key of keys) {
      if (saved[key] === undefined) delete process.env[key]; else process.env[key] = saved[key];
    }
    try {
      await gw.request('hb', 'system.ping');
      await gw.close();
      return gw.frames;  // what is left once the ping's reply is taken
    } finally {
      gw.child.kill('SIGKILL');
      removeDir(dir);
    }
  };
  const isBeat = (f) => f.message.method === '_heartbeat';
  const on = await heartbeats(['--heartbeat'], {});
  assert.equal(on.length, 1);
  assert.deepEqual(on[0].message, { jsonrpc: '2.0', method: '_heartbeat', params: {} });
  assert.equal((await heartbeats([], { MCP_ENABLE_HEARTBEAT: '1' })).filter(isBeat).length, 1);
  assert.equal((await heartbeats([], {})).filter(isBeat).length, 0);
  assert.equal((await heartbeats(['--heartbeat'], { MCP_DISABLE_HEARTBEAT: '' })).filter(isBeat).length, 0);
});
