// Approvals from the console, over its JSON API: a write a `confirm` rule holds appears in
// GET /console/api/approvals from every era and transport; a principal the access file lets
// approve answers it with a POST, and the held call completes or is refused; the first answer
// wins (the client's open question is withdrawn, a late console answer to a hold it has listed
// gets 409); a viewer and an operator without that rule in may_approve get 403; an unanswered
// hold expires; a write nobody may answer at its port is refused at once instead of held; and
// the port's session records each decision with the approver's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { callOk, tempDir, removeDir, connectStdio } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { eventually } from './lib/serial_helpers.mjs';
import { statelessRequest, statelessCallOk } from './lib/v2_client.mjs';

const TOKENS = 'alice alice-token\nbob bob-token\nvera vera-token\nolga olga-token\n';
const ACCESS = {
  principals: {
    alice: { role: 'operator', may_approve: ['output-*'] },
    bob: { role: 'operator', may_approve: ['nothing-*'] },
    olga: { role: 'operator', may_approve: ['output-*'] },
    vera: { role: 'viewer' },
  },
};
const POLICY = { ports: [{ match: 'loop://*', confirm: [{ name: 'output-on', pattern: '^OUTP ON' }] }] };
const open = { baud_rate: 115200, terminator: '\n', timeout_ms: 300 };

function bearer(token) {
  return { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
}

// The console's API as one principal: its list, and its answers (with its CSRF token).
function consoleAs(base, token) {
  const headers = { Authorization: `Bearer ${token}` };
  let csrf;
  return {
    async list(after) {
      const query = after === undefined ? '' : `?after=${after}`;
      const response = await fetch(`${base}/console/api/approvals${query}`, { headers });
      assert.equal(response.status, 200);
      return response.json();
    },
    async answer(id, verb, { withCsrf = true } = {}) {
      if (withCsrf && csrf === undefined) {
        csrf = (await (await fetch(`${base}/console/api/whoami`, { headers })).json()).csrf;
      }
      const response = await fetch(`${base}/console/api/approvals/${id}/${verb}`, {
        method: 'POST', headers: { ...headers, ...(withCsrf ? { 'X-Labgate-Csrf': csrf } : {}) },
      });
      return { status: response.status, json: await response.json() };
    },
  };
}

async function waitingFor(console_, predicate, what) {
  let found;
  await eventually(async () => {
    found = (await console_.list()).approvals.find(predicate);
    return found !== undefined;
  }, what);
  return found;
}

async function withGateway(extraArgs, body, access = ACCESS) {
  const dir = tempDir();
  writeFileSync(join(dir, 'tokens'), TOKENS);
  writeFileSync(join(dir, 'access.json'), JSON.stringify(access));
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
  const gateway = await startHttpGateway(['--auth-token-file', join(dir, 'tokens'), '--access-file',
    join(dir, 'access.json'), '--policy', join(dir, 'policy.json'), ...extraArgs]);
  const base = `http://127.0.0.1:${gateway.port}`;
  try {
    await body(gateway, base, dir);
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
}

// The port's recorded events.
async function events(client, sessionId) {
  const { messages } = await callOk(client, 'list_messages', { session_id: sessionId });
  return messages.filter((m) => m.direction === 'event').map((m) => m.content);
}

test('a client without elicitation waits; the console approves one write and declines the next', async () => {
  await withGateway([], async (gateway, base) => {
    const bob = await connectHttp(gateway.url, bearer('bob-token'));
    const alice = consoleAs(base, 'alice-token');
    const vera = consoleAs(base, 'vera-token');
    const bobConsole = consoleAs(base, 'bob-token');
    const { session } = await callOk(bob.client, 'create_session', { device_id: 'psu', port_name: 'loop://psu' });
    await callOk(bob.client, 'open_port', { port_name: 'loop://psu', ...open, session_id: session.id });

    const before = await alice.list();
    assert.equal(before.enabled, true);
    assert.deepEqual(before.approvals, []);
    const call = bob.client.callTool({ name: 'write', arguments: { port_name: 'loop://psu', data: 'OUTP ON' } });
    const held = await waitingFor(alice, (a) => a.port === 'loop://psu', 'the held write in the list');
    assert.equal(held.principal, 'bob');
    assert.equal(held.owner, 'http:bob');
    assert.equal(held.tool, 'write');
    assert.equal(held.shown, 'OUTP ON');
    assert.equal(held.rule, 'output-on');
    assert.equal(held.limit, false);
    assert.equal(held.may_answer, true);
    assert.ok(held.expires_in_ms > 500000 && held.expires_in_ms <= 590000, String(held.expires_in_ms));

    // A viewer sees it without the right to answer, and its POST is refused.
    const seenByVera = (await vera.list()).approvals.find((a) => a.id === held.id);
    assert.equal(seenByVera.may_answer, false);
    assert.match(seenByVera.why_not, /vera may not act from the console/);
    const byVera = await vera.answer(held.id, 'approve');
    assert.equal(byVera.status, 403);
    assert.match(byVera.json.error, /vera may not act from the console: it needs the operator or admin role/);
    // An operator whose may_approve leaves the rule out is refused, naming the rule.
    const byBob = await bobConsole.answer(held.id, 'approve');
    assert.equal(byBob.status, 403);
    assert.match(byBob.json.error, /bob may not approve rule output-on: it is not in its may_approve/);
    // Without the CSRF token, nobody.
    assert.equal((await alice.answer(held.id, 'approve', { withCsrf: false })).status, 403);

    const approved = await alice.answer(held.id, 'approve');
    assert.equal(approved.status, 200, JSON.stringify(approved.json));
    assert.deepEqual(approved.json, { id: held.id, decision: 'accept', approver: 'alice in the labgate console' });
    const result = await call;
    assert.equal(result.isError, false, JSON.stringify(result.content));
    assert.equal(result.structuredContent.bytes_written, 8);
    assert.equal((await callOk(bob.client, 'read', { port_name: 'loop://psu' })).data, 'OUTP ON');
    // The second answer is told who came first.
    const late = await alice.answer(held.id, 'decline');
    assert.equal(late.status, 409);
    assert.equal(late.json.error, 'this write was already approved by alice in the labgate console');
    assert.match(gateway.stderr(), /console: alice approved hold \d+ \(write on loop:\/\/psu by bob, rule output-on\)/);

    const second = bob.client.callTool({ name: 'write', arguments: { port_name: 'loop://psu', data: 'OUTP ON;VOLT 30' } });
    const next = await waitingFor(alice, (a) => a.shown === 'OUTP ON;VOLT 30', 'the second write');
    assert.notEqual(next.id, held.id);
    assert.equal((await alice.answer(next.id, 'decline')).status, 200);
    const refused = await second;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text,
      /not sent: the safety policy's rule 'output-on' needs a person's approval, and alice in the labgate console declined it/);
    assert.deepEqual((await alice.list()).approvals, []);

    await eventually(async () => (await events(bob.client, session.id)).length >= 5, 'the decisions recorded');
    const recorded = await events(bob.client, session.id);
    assert.ok(recorded.includes('write approved by alice in the labgate console: OUTP ON'), recorded.join('\n'));
    assert.ok(recorded.includes('write not approved (decline by alice in the labgate console): OUTP ON;VOLT 30'),
      recorded.join('\n'));
  });
});

test('a held write to an instrument shows what it sets, read with the instrument\'s profile', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'profiles'));
  writeFileSync(join(dir, 'profiles', 'psu.json'), JSON.stringify({ model: 'LOOP-PSU',
    settings: { baud_rate: 9600, terminator: '\n' },
    quantities: { voltage: { unit: 'V', headers: ['[SOURce#:]VOLTage[:LEVel]'] } } }));
  writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
    instruments: [{ name: 'psu-1', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-1' } }] }));
  const policy = { ports: [{ match: 'loop://*', confirm: [{ name: 'output-voltage', pattern: '^VOLT' }] }] };
  writeFileSync(join(dir, 'set-voltage.json'), JSON.stringify(policy));
  try {
    await withGateway(['--profiles', join(dir, 'profiles'), '--instruments', join(dir, 'instruments.json'),
      '--policy', join(dir, 'set-voltage.json')], async (gateway, base) => {
      const alice = consoleAs(base, 'alice-token');
      const bob = await connectHttp(gateway.url, bearer('bob-token'));
      await callOk(bob.client, 'open_port', { instrument: 'psu-1' });
      const call = bob.client.callTool({ name: 'write', arguments: { port_name: 'psu-1', data: 'VOLT 3.5' } });
      const held = await waitingFor(alice, (a) => a.shown === 'VOLT 3.5', 'the held write');
      assert.equal(held.rule, 'output-voltage');  // alice's may_approve: output-*
      assert.equal(held.limit, false);
      assert.equal(held.quantity, 'voltage 3.5 V on psu-1 channel 1');
      assert.equal((await alice.answer(held.id, 'decline')).status, 200);
      assert.equal((await call).isError, true);
    });
  } finally {
    removeDir(dir);
  }
});

test('the first answer wins: the console before the client withdraws its question, the client before the console is refused', async () => {
  await withGateway([], async (gateway, base) => {
    const alice = consoleAs(base, 'alice-token');
    // A client that is asked and never answers, noting the withdrawal.
    let withdrawn;
    const slow = await connectHttp(gateway.url, { ...bearer('olga-token'), capabilities: { elicitation: {} } });
    slow.client.setRequestHandler(ElicitRequestSchema, (request, extra) => new Promise((resolve) => {
      extra.signal.addEventListener('abort', () => {
        withdrawn = String(extra.signal.reason?.message ?? extra.signal.reason);
        resolve({ action: 'cancel' });
      });
    }));
    await callOk(slow.client, 'open_port', { port_name: 'loop://first', ...open });
    const call = slow.client.callTool({ name: 'write', arguments: { port_name: 'loop://first', data: 'OUTP ON' } });
    const held = await waitingFor(alice, (a) => a.port === 'loop://first', 'the held write');
    assert.equal((await alice.answer(held.id, 'approve')).status, 200);
    const result = await call;
    assert.equal(result.isError, false, JSON.stringify(result.content));
    await eventually(async () => withdrawn !== undefined, 'the client told its question was withdrawn');
    assert.match(withdrawn, /answered in the labgate console: approved by alice in the labgate console/);

    // A client that answers at once: the console comes too late.
    const quick = await connectHttp(gateway.url, { ...bearer('olga-token'), capabilities: { elicitation: {} } });
    const versionBefore = (await alice.list()).version;
    quick.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
    await callOk(quick.client, 'open_port', { port_name: 'loop://second', ...open });
    const written = await callOk(quick.client, 'write', { port_name: 'loop://second', data: 'OUTP ON' });
    assert.equal(written.bytes_written, 8);
    // It was on the board while the client was asked (the version moved), and is gone.
    const after = await alice.list();
    assert.ok(after.version > versionBefore);
    assert.deepEqual(after.approvals, []);
    // The console never listed that hold, so it cannot tell it from one about to be made (ids
    // are sequential); the board is not asked, lest a rule alice may not approve slip through.
    const lateId = String(Number(held.id) + 1);
    const late = await alice.answer(lateId, 'approve');
    assert.equal(late.status, 404, JSON.stringify(late.json));
    assert.equal(late.json.error, `no write is waiting for approval as ${lateId}`);
  });
});

test('an unanswered hold expires and the write is refused and recorded; the long poll wakes on changes', async () => {
  await withGateway(['--approval-timeout-ms', '1500'], async (gateway, base) => {
    const alice = consoleAs(base, 'alice-token');
    const bob = await connectHttp(gateway.url, bearer('bob-token'));
    const { session } = await callOk(bob.client, 'create_session', { device_id: 'psu', port_name: 'loop://late' });
    await callOk(bob.client, 'open_port', { port_name: 'loop://late', ...open, session_id: session.id });
    const { version } = await alice.list();
    // The long poll answers when the write is held, well before its 25 s.
    const polled = alice.list(version);
    const started = Date.now();
    const call = bob.client.callTool({ name: 'write', arguments: { port_name: 'loop://late', data: 'OUTP ON' } });
    const woke = await polled;
    assert.ok(woke.version > version);
    assert.equal(woke.approvals.length, 1);
    assert.ok(Date.now() - started < 20000);
    const refused = await call;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text,
      /and nobody approved it within 1\.5s in the labgate console \(this MCP client does not support elicitation\)/);
    assert.deepEqual((await alice.list()).approvals, []);
    const late = await alice.answer(woke.approvals[0].id, 'approve');
    assert.equal(late.status, 409);
    assert.equal(late.json.error, "this write's approval expired: nobody answered in time");
    await eventually(async () => (await events(bob.client, session.id)).includes('write not approved (expired): OUTP ON'),
      'the expiry recorded');
    // The port still serves.
    assert.equal((await callOk(bob.client, 'write', { port_name: 'loop://late', data: 'VOLT?' })).bytes_written, 6);
  });
});

test('a write nobody may answer at its port is refused at once instead of held', async () => {
  // alice approves output-* on loop://bench-* only; olga approves everything but is read-only.
  const scoped = {
    principals: {
      ...ACCESS.principals,
      alice: { role: 'operator', may_approve: ['output-*'], ports: ['loop://bench-*'] },
      olga: { role: 'operator', may_approve: ['*'], read_only: true },
    },
  };
  // Held, the write would wait out these 20 s and be refused as unanswered instead.
  await withGateway(['--approval-timeout-ms', '20000'], async (gateway, base) => {
    const alice = consoleAs(base, 'alice-token');
    const bob = await connectHttp(gateway.url, bearer('bob-token'));
    for (const port of ['loop://psu', 'loop://bench-1']) {
      await callOk(bob.client, 'open_port', { port_name: port, ...open });
    }
    const refused = await bob.client.callTool({ name: 'write', arguments: { port_name: 'loop://psu', data: 'OUTP ON' } });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text,
      /rule 'output-on' needs a person's approval, and nobody may approve it for this port in the labgate console under the access file/);
    assert.deepEqual((await alice.list()).approvals, []);

    // Where alice may change the port, the same write is held for her.
    const call = bob.client.callTool({ name: 'write', arguments: { port_name: 'loop://bench-1', data: 'OUTP ON' } });
    const held = await waitingFor(alice, (a) => a.port === 'loop://bench-1', 'the write held for alice');
    assert.equal(held.may_answer, true);
    assert.equal((await alice.answer(held.id, 'approve')).status, 200);
    assert.equal((await call).structuredContent.bytes_written, 8);
  }, scoped);
});

test('the 2026 era and stdio hold their writes on the same board', async () => {
  await withGateway([], async (gateway, base) => {
    const alice = consoleAs(base, 'alice-token');
    // A stateless request without elicitation is held open until the console answers.
    const headers = { Authorization: 'Bearer bob-token' };
    const { status } = await statelessRequest(gateway.url, 'tools/call',
      { name: 'open_port', arguments: { port_name: 'loop://modern', ...open } }, { headers });
    assert.equal(status, 200);
    const call = statelessRequest(gateway.url, 'tools/call',
      { name: 'write', arguments: { port_name: 'loop://modern', data: 'OUTP ON' } }, { headers });
    const held = await waitingFor(alice, (a) => a.port === 'loop://modern', 'the stateless write');
    assert.equal(held.principal, 'bob');
    assert.equal((await alice.answer(held.id, 'approve')).status, 200);
    const { response, text } = await call;
    assert.equal(response?.result?.isError, false, text);
    assert.equal(response.result.structuredContent.bytes_written, 8);
    await statelessCallOk(gateway.url, 'close', { port_name: 'loop://modern' }).catch(() => {});
  });

  // stdio, with the console on --metrics-listen: no tokens and no access file, so whoever
  // reaches the console may answer.
  const dir = tempDir();
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
  const portFile = join(dir, 'metrics-port');
  const stdio = await connectStdio(['--policy', join(dir, 'policy.json'), '--data-dir', join(dir, 'data'),
    '--metrics-listen', '127.0.0.1:0', '--metrics-port-file', portFile]);
  try {
    let base;
    await eventually(async () => {
      try {
        const port = Number(readFileSync(portFile, 'utf8').trim());
        base = `http://127.0.0.1:${port}`;
        return port > 0;
      } catch { return false; }
    }, 'the console port');
    const anyone = {
      list: async () => (await fetch(`${base}/console/api/approvals`)).json(),
      csrf: async () => (await (await fetch(`${base}/console/api/whoami`)).json()).csrf,
    };
    await callOk(stdio.client, 'open_port', { port_name: 'loop://bench', ...open });
    const call = stdio.client.callTool({ name: 'write', arguments: { port_name: 'loop://bench', data: 'OUTP ON' } });
    let held;
    await eventually(async () => {
      held = (await anyone.list()).approvals[0];
      return held !== undefined;
    }, 'the stdio write on the board');
    assert.equal(held.principal, 'stdio');
    assert.equal(held.may_answer, true);
    const answered = await fetch(`${base}/console/api/approvals/${held.id}/approve`,
      { method: 'POST', headers: { 'X-Labgate-Csrf': await anyone.csrf() } });
    assert.equal(answered.status, 200);
    const result = await call;
    assert.equal(result.isError, false, JSON.stringify(result.content));
    // Without an HTTP server there are no HTTP sessions to revoke: the console says so.
    const revoke = await fetch(`${base}/console/api/principals/alice/revoke`,
      { method: 'POST', headers: { 'X-Labgate-Csrf': await anyone.csrf() } });
    assert.equal(revoke.status, 503);
    assert.equal((await revoke.json()).error, 'no HTTP sessions are served here');
    await sleep(10);
  } finally {
    await stdio.client.close();
    removeDir(dir);
  }
});
