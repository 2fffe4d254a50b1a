// How a client hears of its tasks' changes (issue 34), over stdio: in the 2026-07-28 era by
// subscriptions/listen with notifications.taskIds (each change with the task's whole state,
// tagged with the listen request's id), in the stateful era on the session's own stream; and
// never of another principal's task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RawGateway } from './lib/raw_gateway.mjs';
import { tempDir, removeDir } from './lib/harness.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

test('subscriptions/listen with taskIds delivers each change of the task', async () => {
  const dir = tempDir('labgate-task-notes-');
  const gateway = new RawGateway(['--conformance-fixtures', '--data-dir', join(dir, 'data')]);
  try {
    const created = await gateway.request(1, 'tools/call',
      { name: 'slow_compute', arguments: { seconds: 1.5, label: 'heard' }, _meta: META });
    const { taskId } = created.result;
    assert.equal(created.result.resultType, 'task');
    await gateway.send({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen',
      params: { notifications: { taskIds: [taskId, 'not-a-task'] }, _meta: META } });
    const ack = await gateway.take((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack.message.params.notifications.taskIds, [taskId, 'not-a-task']);
    const note = await gateway.take((m) => m.method === 'notifications/tasks', 10000);
    assert.equal(note.message.params.taskId, taskId);
    assert.equal(note.message.params.status, 'completed');
    assert.match(note.message.params.result.content[0].text, /computed 'heard'/);
    assert.equal(note.message.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
    // The listen ends with its cancel; the gateway keeps serving.
    await gateway.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-1' } });
    const after = await gateway.request(2, 'tasks/get', { taskId, _meta: META });
    assert.equal(after.result.status, 'completed');
  } finally {
    await gateway.close();
    removeDir(dir);
  }
});

test('a stateful session hears of the tasks it created on its own stream', async () => {
  const dir = tempDir('labgate-task-notes-');
  const gateway = new RawGateway(['--conformance-fixtures', '--data-dir', join(dir, 'data')]);
  try {
    const init = await gateway.request('init', 'initialize', {
      protocolVersion: '2025-11-25', capabilities: { extensions: { [TASKS]: {} }, elicitation: {} },
      clientInfo: { name: 'raw', version: '0' },
    });
    assert.deepEqual(init.result.capabilities.extensions, { [TASKS]: {} });
    await gateway.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const created = await gateway.request(1, 'tools/call',
      { name: 'confirm_delete', arguments: { filename: 'old.log' } });
    const { taskId } = created.result;
    assert.equal(created.result.resultType, 'task');
    const asking = await gateway.take((m) => m.method === 'notifications/tasks' &&
      m.params.status === 'input_required', 10000);
    const [key] = Object.keys(asking.message.params.inputRequests);
    const ack = await gateway.request(2, 'tasks/update',
      { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
    assert.equal(ack.result.resultType, 'complete');
    const done = await gateway.take((m) => m.method === 'notifications/tasks' &&
      m.params.status === 'completed', 10000);
    assert.equal(done.message.params.result.content[0].text, 'deleted old.log');
  } finally {
    await gateway.close();
    removeDir(dir);
  }
});
