// The hostile inputs of stdio_hostile.test.mjs, sent over Streamable HTTP: each gets the
// right JSON-RPC error and HTTP status, and the gateway keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHttpGateway, post, rawInitialize } from './lib/http_gateway.mjs';

let gateway;
test.before(async () => { gateway = await startHttpGateway(); });
test.after(async () => { await gateway.stop(); });

async function assertStillServing(session, tag) {
  const reply = await post(gateway.url, `{"jsonrpc":"2.0","id":"alive","method":"ping"}`, { session });
  assert.equal(reply.status, 200, `ping after ${tag}`);
  assert.deepEqual(reply.json.result, {}, `ping after ${tag}`);
}

test('nothing but initialize opens a session; versions negotiate', async () => {
  const early = await post(gateway.url, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
  assert.equal(early.status, 400);
  assert.equal(early.json.error.code, -32600);
  assert.equal(early.json.id, 1);
  for (const [asked, got] of [['2025-11-25', '2025-11-25'], ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'], ['1999-01-01', '2025-11-25']]) {
    const init = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'h', version: '1' } } }));
    assert.equal(init.status, 200);
    assert.equal(init.json.result.protocolVersion, got);
    assert.ok(init.headers.get('mcp-session-id'));
  }
});

test('JSON-RPC error codes, exact id echo, and survival after each bad input', async () => {
  const session = await rawInitialize(gateway.url);
  const cases = [
    ['truncated', '{"jsonrpc":"2.0","id":1,"method":"pi', 400, -32700, null],
    ['garbage', 'hello there', 400, -32700, null],
    ['batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 400, -32600, null],
    ['version', '{"jsonrpc":"1.0","id":"v","method":"ping"}', 400, -32600, 'v'],
    ['no version', '{"id":"nv","method":"ping"}', 400, -32600, 'nv'],
    ['method type', '{"jsonrpc":"2.0","id":"mt","method":42}', 400, -32600, 'mt'],
    ['object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', 400, -32600, null],
    ['params type', '{"jsonrpc":"2.0","id":"pt","method":"tools/list","params":"x"}', 400, -32602, 'pt'],
    ['unknown method', '{"jsonrpc":"2.0","id":"um","method":"no/such"}', 200, -32601, 'um'],
    ['nul byte', '{"jsonrpc":"2.0","id":"nul\u0000","method":"ping"}', 400, -32700, null],
    ['legacy envelope', '{"type":"list_actions"}', 400, -32600, null],
    ['empty body', '', 400, -32700, null],
  ];
  for (const [name, body, status, code, id] of cases) {
    const reply = await post(gateway.url, body, { session });
    assert.equal(reply.status, status, `${name}: HTTP status`);
    assert.equal(reply.json?.error?.code, code, `${name}: ${reply.text}`);
    assert.equal(reply.json.id, id, `${name}: id`);
    assert.equal(typeof reply.json.error.message, 'string');
    await assertStillServing(session, name);
  }
  for (const bytes of [Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    Buffer.from('{"jsonrpc":"2.0",\u0000"id":3}')]) {
    const reply = await post(gateway.url, bytes, { session });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.error.code, -32700);
    assert.equal(reply.json.id, null);
  }
  await assertStillServing(session, 'bytes');
  for (const raw of ['123456789012345678901234567890', '-0', '1.5e3', '"\\u00e9\\n\\"q\\""', '0']) {
    const reply = await post(gateway.url, `{"jsonrpc":"2.0","id":${raw},"method":"ping"}`, { session });
    assert.equal(reply.status, 200);
    assert.ok(reply.text.includes(`"id":${raw}`), `id ${raw} echoed exactly: ${reply.text}`);
  }
  const deep = await post(gateway.url, '{"jsonrpc":"2.0","id":"deep","method":"ping","params":' +
    '['.repeat(100000) + ']'.repeat(100000) + '}', { session });
  assert.equal(deep.status, 400);
  assert.equal(deep.json.error.code, -32700);
  await assertStillServing(session, 'deep');
  const wrong = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 'wt', method: 'tools/call',
    params: { name: 'append_message', arguments: { session_id: 5, content: 'x' } } }), { session });
  // The failed call logs an error first (notifications/message), so the answer may come as
  // an SSE stream that ends with the response.
  const answer = wrong.json ?? wrong.text.split('\n').filter((line) => line.startsWith('data: '))
    .filter((line) => line.length > 6).map((line) => JSON.parse(line.slice(6)))
    .find((message) => message.id === 'wt');
  assert.equal(answer.result.isError, true);
  assert.match(answer.result.content[0].text, /session_id/);
  const unknownTool = await post(gateway.url, '{"jsonrpc":"2.0","id":"ut","method":"tools/call","params":{"name":"nope"}}', { session });
  assert.equal(unknownTool.json.error.code, -32602);
});

test('a 10 MB body gets 413 with a JSON-RPC error and the gateway keeps serving', async () => {
  const session = await rawInitialize(gateway.url);
  const huge = '{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"' + 'x'.repeat(10 * 1024 * 1024) + '"}}';
  let reply;
  try {
    reply = await post(gateway.url, huge, { session });
  } catch (error) {
    // The server may close before the client finished sending; that must be the only failure.
    reply = { status: 413, json: { error: { code: -32600 } }, closedEarly: String(error) };
  }
  assert.equal(reply.status, 413);
  assert.equal(reply.json.error.code, -32600);
  await assertStillServing(session, 'huge body');
});

test('a UTF-8 byte order mark is refused', async () => {
  const session = await rawInitialize(gateway.url);
  const reply = await post(gateway.url, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from('{"jsonrpc":"2.0","id":"bom","method":"ping"}')]), { session });
  assert.equal(reply.status, 400);
  assert.equal(reply.json.error.code, -32700);
  await assertStillServing(session, 'bom');
});

test('bad headers: Accept, Content-Type, protocol version, session ids, Origin', async () => {
  const session = await rawInitialize(gateway.url);
  const ping = '{"jsonrpc":"2.0","id":"h","method":"ping"}';
  assert.equal((await post(gateway.url, ping, { session, headers: { Accept: 'application/json' } })).status, 406);
  assert.equal((await post(gateway.url, ping, { session, headers: { 'Content-Type': 'text/plain' } })).status, 415);
  assert.equal((await post(gateway.url, ping, { session, version: 'bogus' })).status, 400);
  assert.equal((await post(gateway.url, ping, { session: 'f'.repeat(64) })).status, 404);
  const evil = await post(gateway.url, ping, { session, headers: { Origin: 'http://evil.example.com' } });
  assert.equal(evil.status, 403);
  assert.equal(evil.json.error.code, -32600);
  const get = await fetch(gateway.url, { headers: { Accept: 'application/json', 'Mcp-Session-Id': session } });
  assert.equal(get.status, 406);
  await assertStillServing(session, 'headers');
});

test('concurrent requests on one session are each answered exactly once', async () => {
  const session = await rawInitialize(gateway.url);
  const created = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 'c', method: 'tools/call',
    params: { name: 'create_session', arguments: { device_id: 'pipe' } } }), { session });
  const sessionId = created.json.result.structuredContent.session.id;
  const count = 100;
  const replies = await Promise.all(Array.from({ length: count }, (_, i) => post(gateway.url,
    JSON.stringify(i % 4 === 0 ? { jsonrpc: '2.0', id: i, method: 'ping' }
      : { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'append_message', arguments: { session_id: sessionId, content: `m${i}` } } }),
    { session })));
  assert.deepEqual(replies.map((r) => r.json.id), Array.from({ length: count }, (_, i) => i));
  const ids = replies.filter((r, i) => i % 4 !== 0).map((r) => r.json.result.structuredContent.message_id);
  assert.equal(new Set(ids).size, 75, 'every append acknowledged once with its own id');
  const duplicate = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'ping' }), { session });
  assert.equal(duplicate.json.id, 'dup');
});
