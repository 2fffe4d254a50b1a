// MCP tasks that outlive their gateway (issue 34): one labgate-session keeps the tasks, and
// gateway replicas on Streamable HTTP (the 2026-07-28 wire, raw JSON-RPC) create, answer and
// read them. A gateway killed with SIGKILL while its task runs: a new replica answers for that
// task, which has failed with a message that says its worker stopped; two replicas answer the
// same id alike; an answer given through one replica reaches the work running on another;
// another principal's read of a real id is refused exactly as an unknown id is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN, gatewayToken, tempDir, removeDir, startService } from './lib/harness.mjs';
import { startHttpGateway, post } from './lib/http_gateway.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'tasks-e2e', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
};
let nextId = 1;

// One 2026-era request as `token`'s principal; `name` is the Mcp-Name header (the body's value
// unless a test says otherwise).
async function call(url, token, method, params, { name } = {}) {
  const headers = { Authorization: `Bearer ${token}`, 'Mcp-Method': method };
  const mirrored = name ?? params.name ?? params.taskId;
  if (mirrored !== undefined) headers['Mcp-Name'] = mirrored;
  return post(url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } }),
    { version: '2026-07-28', headers });
}

async function result(url, token, method, params) {
  const answer = await call(url, token, method, params);
  assert.equal(answer.status, 200, answer.text);
  assert.ok(answer.json?.result, answer.text);
  return answer.json.result;
}

const getTask = (url, token, taskId) => result(url, token, 'tasks/get', { taskId });

async function waitForStatus(url, token, taskId, wanted, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  let task;
  while (Date.now() < deadline) {
    task = await getTask(url, token, taskId);
    if (wanted.includes(task.status)) return task;
    await sleep(100);
  }
  assert.fail(`task ${taskId} is ${task?.status}, not ${wanted}`);
}

// What two readers compare: the task without the server's _meta.
const bare = ({ _meta, ...task }) => task;

test('a task outlives a killed gateway and every replica answers for it alike', async () => {
  const dir = tempDir('labgate-tasks-');
  const started = [];
  try {
    writeFileSync(join(dir, 'tokens'), 'alice alice-token-1\nbob bob-token-2\n');
    const session = await startService(BIN.session,
      ['--data-dir', join(dir, 'data'), '--gateway-token-file', gatewayToken()]);
    started.push(session);
    const replicaArgs = ['--session-addr', session.address, '--gateway-token-file', gatewayToken(),
      '--auth-token-file', join(dir, 'tokens'), '--conformance-fixtures'];
    const a = await startHttpGateway(replicaArgs);
    started.push(a);

    const quick = await result(a.url, 'alice-token-1', 'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0.2, label: 'before' } });
    assert.equal(quick.resultType, 'task');
    const finished = await waitForStatus(a.url, 'alice-token-1', quick.taskId, ['completed']);
    assert.match(finished.result.content[0].text, /computed 'before'/);
    const long = await result(a.url, 'alice-token-1', 'tools/call',
      { name: 'slow_compute', arguments: { seconds: 60, label: 'interrupted' } });
    assert.equal(long.status, 'working');
    a.child.kill('SIGKILL');
    await a.exited;

    const b = await startHttpGateway(replicaArgs);
    started.push(b);
    const c = await startHttpGateway(replicaArgs);
    started.push(c);
    // The finished task is there as it was; the interrupted one fails, saying why.
    assert.deepEqual(bare(await getTask(b.url, 'alice-token-1', quick.taskId)), bare(finished));
    const failed = await waitForStatus(b.url, 'alice-token-1', long.taskId, ['failed', 'completed', 'cancelled']);
    assert.equal(failed.status, 'failed');
    assert.match(failed.statusMessage, /stopped reporting/);
    assert.equal(failed.error.code, -32603);
    assert.equal('result' in failed, false);
    assert.deepEqual(bare(await getTask(c.url, 'alice-token-1', long.taskId)), bare(failed));

    // A person's answer given through replica C reaches the work running on replica B.
    const asking = await result(b.url, 'alice-token-1', 'tools/call',
      { name: 'confirm_delete', arguments: { filename: 'run-7.csv' } });
    const waiting = await waitForStatus(c.url, 'alice-token-1', asking.taskId, ['input_required']);
    const [key] = Object.keys(waiting.inputRequests);
    assert.equal(waiting.inputRequests[key].method, 'elicitation/create');
    const ack = await result(c.url, 'alice-token-1', 'tasks/update',
      { taskId: asking.taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
    assert.deepEqual(bare(ack), { resultType: 'complete' });
    const confirmed = await waitForStatus(b.url, 'alice-token-1', asking.taskId, ['completed', 'failed', 'cancelled']);
    assert.equal(confirmed.status, 'completed');
    assert.equal(confirmed.result.content[0].text, 'deleted run-7.csv');
    // An answer to a key no longer outstanding is acknowledged and changes nothing.
    const late = await result(c.url, 'alice-token-1', 'tasks/update',
      { taskId: asking.taskId, inputResponses: { [key]: { action: 'decline' } } });
    assert.deepEqual(bare(late), { resultType: 'complete' });
    assert.deepEqual(bare(await getTask(b.url, 'alice-token-1', asking.taskId)), bare(confirmed));

    // Bob cannot read Alice's task, and cannot tell it from one that does not exist.
    const theirs = await call(b.url, 'bob-token-2', 'tasks/get', { taskId: quick.taskId });
    const none = await call(b.url, 'bob-token-2', 'tasks/get', { taskId: 'no-such-task' });
    assert.equal(theirs.json.error.code, -32602);
    assert.equal(none.json.error.code, -32602);
    assert.equal(theirs.json.error.message.replace(quick.taskId, 'ID'),
      none.json.error.message.replace('no-such-task', 'ID'));
    for (const method of ['tasks/update', 'tasks/cancel']) {
      const refused = await call(b.url, 'bob-token-2', method, { taskId: long.taskId, inputResponses: {} });
      assert.equal(refused.json.error.code, -32602, `${method}: ${refused.text}`);
    }
    // A mismatched Mcp-Name is rejected by the header rules, before the task is looked at.
    const mismatched = await call(b.url, 'alice-token-1', 'tasks/get', { taskId: quick.taskId },
      { name: 'another-task' });
    assert.equal(mismatched.status, 400);
    assert.equal(mismatched.json.error.code, -32020);
    // The replicas keep serving after all of that.
    assert.equal((await getTask(c.url, 'alice-token-1', quick.taskId)).status, 'completed');
  } finally {
    for (const service of started.reverse()) await service.stop('SIGKILL').catch(() => {});
    removeDir(dir);
  }
});

test('a task is forgotten after its time to live, and tasks need the extension declared', async () => {
  const gateway = await startHttpGateway(['--conformance-fixtures', '--task-ttl-ms', '1500',
    '--auth-token-file', await (async () => {
      const dir = tempDir('labgate-tasks-ttl-');
      writeFileSync(join(dir, 'tokens'), 'alice alice-token-1\n');
      return join(dir, 'tokens');
    })()]);
  try {
    const created = await result(gateway.url, 'alice-token-1', 'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0.1, label: 'short-lived' } });
    assert.equal(created.ttlMs, 1500);
    await waitForStatus(gateway.url, 'alice-token-1', created.taskId, ['completed']);
    await sleep(1700);
    const expired = await call(gateway.url, 'alice-token-1', 'tasks/get', { taskId: created.taskId });
    assert.equal(expired.json.error.code, -32602, expired.text);

    // Without the extension: a required-task tool is refused with what to declare, and an
    // optional one answers in the request.
    const plain = { ...META, 'io.modelcontextprotocol/clientCapabilities': {} };
    const body = (name, args) => JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call',
      params: { name, arguments: args, _meta: plain } });
    const headers = (name) => ({ Authorization: 'Bearer alice-token-1', 'Mcp-Method': 'tools/call', 'Mcp-Name': name });
    const refused = await post(gateway.url, body('failing_job', {}), { version: '2026-07-28', headers: headers('failing_job') });
    assert.equal(refused.json.error.code, -32021);
    assert.deepEqual(refused.json.error.data.requiredCapabilities, { extensions: { [TASKS]: {} } });
    const inline = await post(gateway.url, body('slow_compute', { seconds: 0.1, label: 'inline' }),
      { version: '2026-07-28', headers: headers('slow_compute') });
    assert.equal(inline.json.result.resultType, 'complete');
    assert.match(inline.json.result.content[0].text, /computed 'inline'/);
  } finally {
    await gateway.stop();
  }
});

test('a labgate-session that does not trust the gateway refuses its tasks, clearly, and short calls go on', async () => {
  const dir = tempDir('labgate-tasks-untrusted-');
  const started = [];
  try {
    writeFileSync(join(dir, 'tokens'), 'alice alice-token-1\n');
    // No --gateway-token-file on either side: the gateway's calls reach the service as no one.
    const session = await startService(BIN.session, ['--data-dir', join(dir, 'data')]);
    started.push(session);
    const gateway = await startHttpGateway(['--session-addr', session.address,
      '--auth-token-file', join(dir, 'tokens'), '--conformance-fixtures']);
    started.push(gateway);
    const refused = await call(gateway.url, 'alice-token-1', 'tools/call',
      { name: 'slow_compute', arguments: { seconds: 1, label: 'untrusted' } });
    assert.ok(refused.json?.error, refused.text);
    assert.match(refused.json.error.message,
      /may not act for owner http:alice: only a trusted gateway \(--trusted-gateway or --gateway-token-file\)/);
    // The same gateway keeps serving what needs no task.
    const greeted = await result(gateway.url, 'alice-token-1', 'tools/call', { name: 'greet', arguments: { name: 'lab' } });
    assert.equal(greeted.content[0].text, 'Hello, lab!');
  } finally {
    for (const service of started.reverse()) await service.stop('SIGKILL').catch(() => {});
    removeDir(dir);
  }
});
