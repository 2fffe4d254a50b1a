// One stdio stream, several dialects, replies framed per request: each reply goes out in
// the framing of the request it answers, even when pipelined requests mix framings and
// dialects (stateful MCP, stateless 2026-07-28 MCP, the v0.1 envelope).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawGateway } from './lib/raw_gateway.mjs';
import { tempDir, removeDir } from './lib/harness.mjs';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function frame(message, framing) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  if (framing === 'newline') return Buffer.concat([body, Buffer.from('\n')]);
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

test('pipelined replies keep the framing of their own request', async () => {
  const dataDir = tempDir();
  const gw = new RawGateway(['--data-dir', dataDir]);
  try {
    await gw.initialize();
    const create = await gw.request('c', 'tools/call', { name: 'create_session', arguments: { device_id: 'mix' } });
    const sessionId = create.result.structuredContent.session.id;
    // Alternate framings in one write; the appends are answered out of order by other threads.
    const sent = [];
    let bytes = Buffer.alloc(0);
    for (let i = 0; i < 40; i++) {
      const framing = i % 2 === 0 ? 'newline' : 'content-length';
      const message = i % 3 === 0
        ? { jsonrpc: '2.0', id: `s${i}`, method: 'tools/list', params: { _meta: META } }  // stateless
        : { jsonrpc: '2.0', id: `s${i}`, method: 'tools/call',
            params: { name: 'append_message', arguments: { session_id: sessionId, content: `m${i}` } } };
      sent.push({ id: `s${i}`, framing });
      bytes = Buffer.concat([bytes, frame(message, framing)]);
    }
    bytes = Buffer.concat([bytes, frame({ id: 'legacy', type: 'nonsense' }, 'content-length')]);
    await gw.write(bytes);
    for (const { id, framing } of sent) {
      const reply = await gw.takeId(id);
      assert.equal(reply.framing, framing, `reply to ${id}`);
      assert.ok(reply.message.result, JSON.stringify(reply.message));
    }
    const legacy = await gw.take((m) => m.id === 'legacy');
    assert.equal(legacy.framing, 'content-length');
    assert.equal(legacy.message.error, 'Invalid request envelope');
  } finally {
    await gw.close();
    removeDir(dataDir);
  }
});

test('the stateless era on stdio: discover before anything, _meta per request, listen', async () => {
  const dataDir = tempDir();
  const gw = new RawGateway(['--data-dir', dataDir]);
  try {
    const discover = await gw.request(1, 'server/discover', { _meta: META });
    assert.ok(discover.result.supportedVersions.includes('2026-07-28'));
    assert.ok(discover.result.supportedVersions.includes('2025-11-25'));
    assert.equal(discover.result.resultType, 'complete');
    assert.equal(discover.result._meta['io.modelcontextprotocol/serverInfo'].name, 'labgate');
    // No initialize was sent, and none is needed.
    const created = await gw.request(2, 'tools/call', { name: 'create_session', arguments: { device_id: 'x' }, _meta: META });
    const sessionId = created.result.structuredContent.session.id;
    // A missing capability key is -32602 naming the field; the stream keeps serving.
    const missing = await gw.request(3, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
    assert.equal(missing.error.code, -32602);
    assert.match(missing.error.data.field, /clientCapabilities/);
    const unsupported = await gw.request(4, 'tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2030-01-01' } });
    assert.equal(unsupported.error.code, -32022);
    assert.equal(unsupported.error.data.requested, '2030-01-01');
    // ping is gone in this era (it still works, statefully, without the _meta).
    assert.equal((await gw.request(5, 'ping', { _meta: META })).error.code, -32601);
    // A listen stream: acknowledged first, then the transcript's updates, tagged.
    const uri = `labgate://sessions/${sessionId}`;
    await gw.send({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen',
      params: { _meta: META, notifications: { resourceSubscriptions: [uri] } } });
    const ack = await gw.take((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.equal(ack.message.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
    assert.deepEqual(ack.message.params.notifications.resourceSubscriptions, [uri]);
    await gw.request(6, 'tools/call', { name: 'append_message', arguments: { session_id: sessionId, content: 'hello' }, _meta: META });
    const updated = await gw.take((m) => m.method === 'notifications/resources/updated');
    assert.equal(updated.message.params.uri, uri);
    assert.equal(updated.message.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
    // Cancelling the listen ends it without a reply.
    await gw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-1' } });
    const after = await gw.request(7, 'tools/list', { _meta: META });
    assert.equal(after.result.resultType, 'complete');
    assert.equal(gw.frames.filter((f) => f.message.id === 'listen-1').length, 0);
  } finally {
    const exit = await gw.close();
    assert.equal(exit.code, 0);
    removeDir(dataDir);
  }
});
