// Framing, JSON-RPC edge cases and hostile input over real stdio pipes. After every bad
// input the gateway must answer correctly and keep serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawGateway } from './lib/raw_gateway.mjs';
import { tempDir, removeDir } from './lib/harness.mjs';

let dataDir;
function gateway(extra = []) { return new RawGateway(['--data-dir', dataDir, ...extra]); }

test.before(() => { dataDir = tempDir(); });
test.after(() => removeDir(dataDir));

async function assertStillServing(gw, tag) {
  const reply = await gw.request(`alive-${tag}`, 'ping');
  assert.deepEqual(reply.result, {}, `ping after ${tag}`);
}

test('initialize negotiates versions and nothing but ping runs before it', async () => {
  const gw = gateway();
  const early = await gw.request(1, 'tools/list');
  assert.equal(early.error.code, -32600);
  assert.match(early.error.message, /initialize/);
  assert.deepEqual((await gw.request(2, 'ping')).result, {});
  const init = await gw.initialize('2025-06-18');
  assert.equal(init.result.protocolVersion, '2025-06-18');
  assert.equal(init.result.serverInfo.name, 'labgate');
  assert.equal(typeof init.result.serverInfo.version, 'string');
  assert.ok(init.result.capabilities.tools);
  assert.equal(typeof init.result.instructions, 'string');
  const gw2 = gateway();
  assert.equal((await gw2.initialize('1999-01-01')).result.protocolVersion, '2025-11-25');
  for (const v of ['2025-11-25', '2025-03-26', '2024-11-05']) {
    const g = gateway();
    assert.equal((await g.initialize(v)).result.protocolVersion, v);
    await g.close();
  }
  assert.equal((await gw.close()).code, 0, 'exit 0 on stdin EOF');
  await gw2.close();
  assert.deepEqual(gw.badOutput, [], 'stdout carries protocol messages only');
});

test('answers in the framing the client used, with UTF-8 byte lengths and merged frames', async () => {
  const gw = gateway();
  await gw.initialize();
  const body = (id) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call',
    params: { name: 'create_session', arguments: { device_id: 'µ-meter €𝄞' } } }), 'utf8');
  const a = body('cl-1');
  const b = body('cl-2');
  // Two frames in one write, the second split across two writes.
  await gw.write(Buffer.concat([
    Buffer.from(`Content-Length: ${a.length}\r\n\r\n`), a,
    Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b.subarray(0, 10)]));
  await gw.write(b.subarray(10));
  for (const id of ['cl-1', 'cl-2']) {
    const frame = await gw.takeId(id);
    assert.equal(frame.framing, 'content-length');
    assert.equal(frame.message.result.structuredContent.session.device_id, 'µ-meter €𝄞');
  }
  const lined = await gw.request('nl-1', 'ping');
  assert.deepEqual(lined.result, {});
  await gw.close();
  assert.deepEqual(gw.badOutput, []);
});

test('JSON-RPC error codes, exact id echo, and survival after each bad input', async () => {
  const gw = gateway();
  await gw.initialize();
  const cases = [
    ['truncated', '{"jsonrpc":"2.0","id":1,"method":"pi', -32700, null],
    ['garbage', 'hello there', -32700, null],
    ['batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, null],
    ['version', '{"jsonrpc":"1.0","id":"v","method":"ping"}', -32600, 'v'],
    ['no version', '{"id":"nv","method":"ping"}', -32600, 'nv'],
    ['method type', '{"jsonrpc":"2.0","id":"mt","method":42}', -32600, 'mt'],
    ['object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, null],
    ['params type', '{"jsonrpc":"2.0","id":"pt","method":"tools/list","params":"x"}', -32602, 'pt'],
    ['unknown method', '{"jsonrpc":"2.0","id":"um","method":"no/such"}', -32601, 'um'],
    ['nul byte', '{"jsonrpc":"2.0","id":"nul\u0000","method":"ping"}', -32700, null],
  ];
  for (const [name, line, code, id] of cases) {
    await gw.write(line + '\n');
    const frame = await gw.take((m) => m.error && (m.id === id));
    assert.equal(frame.message.error.code, code, name);
    assert.equal(typeof frame.message.error.message, 'string');
    await assertStillServing(gw, name);
  }
  // Invalid UTF-8 and raw NUL bytes.
  await gw.write(Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
  assert.equal((await gw.take((m) => m.error?.code === -32700)).message.id, null);
  await gw.write(Buffer.from('{"jsonrpc":"2.0",\u0000"id":3}\n'));
  assert.equal((await gw.take((m) => m.error?.code === -32700)).message.id, null);
  await assertStillServing(gw, 'bytes');
  // Huge and odd ids come back exactly as sent.
  for (const raw of ['123456789012345678901234567890', '-0', '1.5e3', '"\\u00e9\\n\\"q\\""', '0']) {
    await gw.write(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}\n`);
    await gw.take((m, f) => f.text.includes(`"id":${raw}`) && m.result !== undefined);
  }
  // Deep nesting neither crashes nor hangs.
  await gw.write('{"jsonrpc":"2.0","id":"deep","method":"ping","params":' + '['.repeat(100000) + ']'.repeat(100000) + '}\n');
  const deep = await gw.take((m) => m.error && m.id === null);
  assert.equal(deep.message.error.code, -32700);
  await assertStillServing(gw, 'deep');
  // Wrong argument types reach the tool as a clear tool error.
  const wrong = await gw.request('wt', 'tools/call', { name: 'append_message', arguments: { session_id: 5, content: 'x' } });
  assert.equal(wrong.result.isError, true);
  assert.match(wrong.result.content[0].text, /session_id/);
  const unknownTool = await gw.request('ut', 'tools/call', { name: 'nope' });
  assert.equal(unknownTool.error.code, -32602);
  await gw.close();
  assert.deepEqual(gw.badOutput, []);
});

test('a 10 MB line gets an error and the gateway keeps serving', async () => {
  const gw = gateway();
  await gw.initialize();
  const huge = '{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"' + 'x'.repeat(10 * 1024 * 1024) + '"}}\n';
  await gw.write(huge);
  const error = await gw.take((m) => m.error && m.id === null, 30000);
  assert.equal(error.message.error.code, -32600);
  assert.match(error.message.error.message, /exceeds/);
  await assertStillServing(gw, 'huge line');
  await gw.close();
});

test('a UTF-8 byte order mark is refused', async () => {
  const gw = gateway();
  await gw.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","id":"bom","method":"ping"}\n')]));
  const error = await gw.take((m) => m.error !== undefined);
  assert.equal(error.message.id, null);
  assert.match(error.message.error.message, /byte order mark|BOM/i);
  await assertStillServing(gw, 'bom');
  await gw.close();
});

test('pipelined requests are each answered exactly once', async () => {
  const gw = gateway();
  await gw.initialize();
  const create = await gw.request('c', 'tools/call', { name: 'create_session', arguments: { device_id: 'pipe' } });
  const sessionId = create.result.structuredContent.session.id;
  const count = 200;
  let batch = '';
  for (let i = 0; i < count; i++) {
    batch += JSON.stringify(i % 4 === 0
      ? { jsonrpc: '2.0', id: i, method: 'ping' }
      : { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'append_message', arguments: { session_id: sessionId, content: `m${i}` } } }) + '\n';
  }
  await gw.write(batch);
  const ids = [];
  for (let i = 0; i < count; i++) ids.push((await gw.take((m) => typeof m.id === 'number')).message.id);
  assert.deepEqual([...ids].sort((a, b) => a - b), [...Array(count).keys()]);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(gw.frames.filter((f) => typeof f.message.id === 'number').length, 0, 'no duplicate answers');
  const list = await gw.request('l', 'tools/call', { name: 'list_messages', arguments: { session_id: sessionId, limit: 1000 } });
  const messageIds = list.result.structuredContent.messages.map((m) => m.message_id);
  assert.deepEqual(messageIds, [...Array(count - count / 4).keys()].map((i) => i + 1));
  await gw.close();
});

test('tools/list pages with an opaque cursor and rejects a bad one', async () => {
  const gw = gateway(['--tools-page-size', '3']);
  await gw.initialize();
  const seen = [];
  let cursor;
  for (let page = 0; page < 20; page++) {
    const reply = await gw.request(`p${page}`, 'tools/list', cursor ? { cursor } : {});
    assert.ok(reply.result.tools.length <= 3);
    seen.push(...reply.result.tools.map((t) => t.name));
    cursor = reply.result.nextCursor;
    if (!cursor) break;
  }
  assert.ok(seen.includes('create_session') && seen.includes('session_stats'));
  assert.equal(new Set(seen).size, seen.length);
  const bad = await gw.request('bad', 'tools/list', { cursor: 'not-a-cursor' });
  assert.equal(bad.error.code, -32602);
  await gw.close();
});

test('SIGTERM stops the gateway promptly with exit 0', async () => {
  const gw = gateway();
  await gw.initialize();
  const started = Date.now();
  gw.child.kill('SIGTERM');
  const { code } = await gw.exited;
  assert.equal(code, 0);
  assert.ok(Date.now() - started < 5000, 'prompt shutdown');
});
