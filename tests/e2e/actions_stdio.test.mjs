// Issue 4 over real stdio: the legacy list_actions/invoke envelope with its exact texts,
// mixed with JSON-RPC on one connection; the official SDK client calling action tools;
// tool-list refresh when a remote actions service comes up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { RawGateway } from './lib/raw_gateway.mjs';
import { BIN, tempDir, removeDir, startService, connectStdio, callOk } from './lib/harness.mjs';

const ACTIONS = ['age_inclusive_design_check', 'cognitive_accessibility_audit', 'cultural_context_check',
  'deescalation_plan', 'empathetic_reframe', 'grief_support_response', 'neurodiversity_design_check',
  'rewrite_depression_sensitive_content', 'supportive_reply', 'wcagaaa_check'];

let dataDir;
test.before(() => { dataDir = tempDir(); });
test.after(() => removeDir(dataDir));

// Sends one legacy line and returns the exact reply text.
async function legacy(gw, line) {
  await gw.write(line + '\n');
  const frame = await gw.take((m) => m.ok !== undefined);
  return frame.text;
}

test('legacy envelope: exact replies and error texts over real stdio', async () => {
  const gw = new RawGateway(['--data-dir', dataDir]);
  const list = JSON.parse(await legacy(gw, '{"id":"req-1","type":"list_actions"}'));
  assert.equal(list.id, 'req-1');
  assert.equal(list.ok, true);
  assert.deepEqual(list.data.map((c) => c.action).sort(), ACTIONS);
  for (const contract of list.data) {
    assert.deepEqual(Object.keys(contract), ['skill', 'action', 'safetyBoundary']);
  }

  const invoked = await legacy(gw, JSON.stringify({ id: 'req-2', type: 'invoke',
    payload: { action: 'supportive_reply', input: { message: 'I feel overwhelmed', risk_level: 'medium' } } }));
  assert.match(invoked, /^\{"id":"req-2","ok":true,"data":\{"action":"supportive_reply","boundaryNotice":"Non-clinical support; must provide escalation cues when risk is elevated","uncertainty":"medium","assumptions":\["Risk level: medium \(self-reported or system-assessed\)"/);
  const data = JSON.parse(invoked).data;
  assert.deepEqual(Object.keys(data.output).slice(0, 2), ['reply', 'escalation_guidance']);
  assert.equal(data.output.escalation_guidance.length, 2, 'medium risk: two gentle suggestions');

  assert.equal(await legacy(gw, '{"id":"req-3","type":"invoke","payload":{"action":"supportive_reply","input":{"message":"","risk_level":null}}}'),
    `{"id":"req-3","ok":false,"error":"Input validation failed for action 'supportive_reply': Required field 'message' is missing or empty; Required field 'risk_level' is missing or empty"}`);
  assert.equal(await legacy(gw, '{"id":"req-4","type":"invoke","payload":{"input":{}}}'),
    '{"id":"req-4","ok":false,"error":"Invalid invoke payload","issues":[{"code":"invalid_type","message":"Required","path":["action"]}]}');
  assert.equal(await legacy(gw, '{"id":"req-5","type":"invoke","payload":{"action":"","input":[]}}'),
    '{"id":"req-5","ok":false,"error":"Invalid invoke payload","issues":[{"code":"too_small","message":"String must contain at least 1 character(s)","path":["action"]},{"code":"invalid_type","message":"Expected object, received array","path":["input"]}]}');
  assert.equal(await legacy(gw, '{"id":"req-6","type":"invoke","payload":{"action":"no_such","input":{}}}'),
    `{"id":"req-6","ok":false,"error":"Unknown action: 'no_such'. Call list_actions to see available actions."}`);
  assert.equal(await legacy(gw, '{"id":"req-7","type":"explode"}'),
    `{"id":"req-7","ok":false,"error":"Invalid request envelope","issues":[{"code":"invalid_enum_value","message":"Invalid enum value. Expected 'list_actions' | 'invoke', received 'explode'","path":["type"]}]}`);
  assert.equal(await legacy(gw, '{"type":42}'),
    '{"ok":false,"error":"Invalid request envelope","issues":[{"code":"invalid_type","message":"Expected string, received number","path":["type"]}]}');
  assert.equal(await legacy(gw, '{"id":"req-8","type":"invoke","payload":{"action":"supportive_reply","input":{"message":"hi","risk_level":"extreme"}}}'),
    `{"id":"req-8","ok":false,"error":"Input validation failed for action 'supportive_reply': Field 'risk_level' must be one of: low, medium, high (got 'extreme')"}`);
  // Once the connection has spoken the legacy dialect, malformed lines get its text.
  assert.equal(await legacy(gw, '{"id":"x", broken'), '{"ok":false,"error":"Malformed JSON request"}');
  // A line over 512 KB, and the connection keeps serving.
  const big = JSON.stringify({ id: 'big', type: 'invoke', payload: { action: 'supportive_reply', input: { message: 'x'.repeat(600 * 1024), risk_level: 'low' } } });
  assert.equal(await legacy(gw, big), '{"ok":false,"error":"Request exceeds maximum size (512 KB)"}');
  const after = JSON.parse(await legacy(gw, '{"id":"after","type":"list_actions"}'));
  assert.equal(after.ok, true);
  await gw.close();
  assert.deepEqual(gw.badOutput, []);
});

test('crisis phrases raise supportive_reply to high risk with crisis lines', async () => {
  const gw = new RawGateway(['--data-dir', dataDir]);
  const reply = JSON.parse(await legacy(gw, JSON.stringify({ id: 'c', type: 'invoke',
    payload: { action: 'supportive_reply', input: { message: "I don't want to be here anymore", risk_level: 'low' } } })));
  assert.equal(reply.ok, true);
  const guidance = reply.data.output.escalation_guidance.join(' ');
  assert.match(guidance, /988|116 123|findahelpline/);
  assert.ok(reply.data.assumptions.some((a) => /high/i.test(a)), 'risk raised to high');
  await gw.close();
});

test('legacy and JSON-RPC messages mixed on one connection', async () => {
  const gw = new RawGateway(['--data-dir', dataDir]);
  await gw.write([
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mix","version":"1"}}}',
    '{"id":"L1","type":"list_actions"}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"empathetic_reframe","arguments":{"message":"You never listen"}}}',
    '{"id":"L2","type":"invoke","payload":{"action":"deescalation_plan","input":{"situation":"A customer threatens legal action"}}}',
    '{"jsonrpc":"2.0","id":3,"method":"ping"}',
  ].join('\n') + '\n');
  assert.equal((await gw.takeId(1)).message.result.serverInfo.name, 'labgate');
  assert.equal((await gw.takeId('L1')).message.ok, true);
  const reframe = (await gw.takeId(2)).message.result;
  assert.equal(reframe.isError, false);
  assert.equal(reframe.structuredContent.action, 'empathetic_reframe');
  const plan = (await gw.takeId('L2')).message;
  assert.equal(plan.ok, true);
  assert.ok(plan.data.output.risk_notes.length > 0, 'legal language adds an alert');
  assert.deepEqual((await gw.takeId(3)).message.result, {});
  // After legacy was spoken, a malformed line gets the legacy text; JSON-RPC still works.
  await gw.write('{oops\n');
  assert.equal((await gw.take((m) => m.error === 'Malformed JSON request')).message.ok, false);
  assert.deepEqual((await gw.request(4, 'ping')).result, {});
  await gw.close();
});

test('the official SDK client calls action tools with their contract schemas', async () => {
  const { client } = await connectStdio(['--data-dir', dataDir]);
  try {
    const { tools } = await client.listTools();
    for (const action of ACTIONS) {
      const tool = tools.find((t) => t.name === action);
      assert.ok(tool, `tools/list lacks ${action}`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.ok(tool.outputSchema.properties.output);
    }
    const reply = await callOk(client, 'supportive_reply', { message: 'I feel a bit low', risk_level: 'low' });
    assert.equal(reply.action, 'supportive_reply');
    assert.equal(reply.uncertainty, 'medium');
    assert.equal(reply.output.escalation_guidance.length, 1, 'low risk: one suggestion');
    const wcag = await callOk(client, 'wcagaaa_check', { target: 'Login form with placeholder-only labels', level: 'AA' });
    assert.ok(Array.isArray(wcag.output.findings));
    const bad = await client.callTool({ name: 'supportive_reply', arguments: { message: 'hi' } });
    assert.equal(bad.isError, true);
    assert.equal(bad.content[0].text, "Input validation failed for action 'supportive_reply': Required field 'risk_level' is missing or empty");
  } finally {
    await client.close();
  }
});

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

test('action tools appear, with list_changed, when a remote actions service comes up', async () => {
  const port = await freePort();
  const { client } = await connectStdio(['--data-dir', dataDir, '--actions-addr', `127.0.0.1:${port}`]);
  let service;
  try {
    const before = await client.listTools();
    assert.ok(!before.tools.some((t) => t.name === 'supportive_reply'), 'no action tools while the service is down');
    const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const changed = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve(true)));
    const child = spawn(BIN.actions, ['--listen', `127.0.0.1:${port}`], { stdio: 'ignore' });
    service = { stop: async () => { child.kill('SIGTERM'); await new Promise((r) => child.on('exit', r)); } };
    await Promise.race([changed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no list_changed within 15 s')), 15000))]);
    const after = await client.listTools();
    assert.ok(after.tools.some((t) => t.name === 'supportive_reply'));
    const reply = await callOk(client, 'deescalation_plan', { situation: 'Two colleagues argue loudly' });
    assert.ok(reply.output.plan.length > 0);
  } finally {
    await client.close();
    if (service) await service.stop();
  }
});
