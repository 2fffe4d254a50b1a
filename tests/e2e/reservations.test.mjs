// Bench reservations through MCP (issue 32), with named principals over Streamable HTTP and an
// embedded gateway enforcing what it grants. 2025 era (the v1 SDK): a reserve with wait_s waits
// inside the call, reporting its place in the queue as progress, and is granted when the holder
// releases; a cancelled reserve leaves the queue; a port reserved by another is refused, saying
// by whom, until when and where you are in the queue. 2026 era (the v2 SDK): reserve returns at
// once, and the grant arrives through subscriptions/listen on labgate://reservations/{id}.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { callOk } from './lib/harness.mjs';
import { connectHttp } from './lib/http_gateway.mjs';
import { startBenchGateway } from './lib/bench_gateway.mjs';
import { connectV2Http, within } from './lib/v2_client.mjs';

function bearer(token) {
  return { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
}

async function toolText(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: result.content?.[0]?.text ?? '', result };
}

// Until the serial service has reported psu-1 as reservable.
async function awaitReservable(client) {
  for (let i = 0; i < 200; i++) {
    const listed = await callOk(client, 'list_reservations', {});
    if ((listed.reservables ?? []).some((r) => r.name === 'psu-1')) return;
    await sleep(50);
  }
  assert.fail('psu-1 never became reservable');
}

test('v1 clients: a waiting reserve reports its place, is granted on release, and a cancelled one leaves the queue', async () => {
  const bench = await startBenchGateway();
  const alice = await connectHttp(bench.gateway.url, bearer('alice-token-1'));
  const bob = await connectHttp(bench.gateway.url, bearer('bob-token-2'));
  const carol = await connectHttp(bench.gateway.url, bearer('carol-token-3'));
  try {
    await awaitReservable(alice.client);
    const held = await alice.client.callTool({ name: 'reserve', arguments: { targets: ['psu-1'] } });
    assert.equal(held.isError, false, held.content?.[0]?.text);
    assert.equal(held.structuredContent.state, 'granted');
    assert.equal(held.structuredContent.holder, 'http:alice');
    const link = held.content.find((c) => c.type === 'resource_link');
    assert.equal(link?.uri, `labgate://reservations/${held.structuredContent.id}`);
    await callOk(alice.client, 'open_port', { instrument: 'psu-1' });

    // bob waits inside the call; his progress says where he is.
    const progress = [];
    const bobsTurn = bob.client.callTool({ name: 'reserve', arguments: { targets: ['psu-1'], wait_s: 60 } },
      CallToolResultSchema, { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 60000 });
    for (let i = 0; i < 200 && !progress.some((p) => /1st in the queue for psu-1/.test(p.message)); i++) await sleep(25);
    assert.ok(progress.some((p) => p.message === 'waiting: 1st in the queue for psu-1'),
      JSON.stringify(progress));

    // Meanwhile the supply is alice's: bob is refused, and told where he stands.
    const refused = await toolText(bob.client, 'open_port', { instrument: 'psu-1' });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /psu-1 is reserved by http:alice until \d\d:\d\d:\d\d UTC unless renewed/);
    assert.match(refused.text, /you are 1st in the queue/);
    const write = await toolText(carol.client, 'write', { port_name: 'psu-1', data: 'VOLT 30' });
    assert.equal(write.isError, true, 'carol cannot write to alice\'s supply');

    // Bad input, each answered clearly, and none of it disturbs the queue.
    for (const [args, pattern] of [
      [{ targets: ['psu-9'] }, /unknown target 'psu-9'/],
      [{ targets: ['psu-1'], wait_s: -1 }, /wait_s/],
      [{ targets: ['psu-1'], priority: 12 }, /priority must be 0 to 9/],
      [{ targets: ['psu-1'], hold_s: 100000 }, /hold_s 100000/],
    ]) {
      const bad = await toolText(carol.client, 'reserve', args);
      assert.equal(bad.isError, true, JSON.stringify(args));
      assert.match(bad.text, pattern);
    }
    const notHers = await toolText(carol.client, 'release_reservation', { id: held.structuredContent.id });
    assert.equal(notHers.isError, true);
    assert.match(notHers.text, /NOT_FOUND: no reservation .* of yours/);

    // alice releases: bob's call returns with the grant.
    await callOk(alice.client, 'release_reservation', { id: held.structuredContent.id });
    const granted = await within(bobsTurn, 10000, 'bob\'s grant');
    assert.equal(granted.isError, false, granted.content?.[0]?.text);
    assert.equal(granted.structuredContent.state, 'granted');
    assert.equal(granted.structuredContent.holder, 'http:bob');
    assert.deepEqual(granted.structuredContent.granted, ['psu-1']);
    await callOk(bob.client, 'open_port', { instrument: 'psu-1' });  // takes it from alice
    await callOk(bob.client, 'write', { port_name: 'psu-1', data: 'VOLT 1' });

    // carol waits, then gives up: her reservation leaves the queue.
    const abort = new AbortController();
    const carolsWait = carol.client.callTool({ name: 'reserve', arguments: { targets: ['psu-1'], wait_s: 60 } },
      CallToolResultSchema, { signal: abort.signal, timeout: 60000 });
    let queued = false;
    for (let i = 0; i < 200 && !queued; i++) {
      const listed = await callOk(alice.client, 'list_reservations', {});
      queued = listed.reservations.some((r) => r.holder === 'http:carol' && r.state === 'waiting');
      if (!queued) await sleep(25);
    }
    assert.ok(queued, 'carol joined the queue');
    abort.abort('carol has other work');
    await assert.rejects(carolsWait);
    let left = false;
    for (let i = 0; i < 200 && !left; i++) {
      const listed = await callOk(alice.client, 'list_reservations', {});
      left = !listed.reservations.some((r) => r.holder === 'http:carol');
      if (!left) await sleep(25);
    }
    assert.ok(left, 'cancelling the wait left the queue');

    // A wait that runs out ends the call with an error saying so and what to do.
    const ranOut = await toolText(carol.client, 'reserve', { targets: ['psu-1'], wait_s: 1 });
    assert.equal(ranOut.isError, true);
    assert.match(ranOut.text,
      /psu-1 was not granted: not granted within wait_s \(1\) \(you were 1st in the queue\); list_reservations shows who holds it/);
  } finally {
    for (const c of [alice, bob, carol]) await c.client.close();
    await bench.stop();
  }
});

test('v2 client in the 2026 era: reserve returns at once and the grant arrives through subscriptions/listen', async () => {
  const bench = await startBenchGateway();
  const alice = await connectHttp(bench.gateway.url, bearer('alice-token-1'));
  const bob = await connectV2Http(bench.gateway.url, { mode: 'pinned', headers: { Authorization: 'Bearer bob-token-2' } });
  try {
    await awaitReservable(alice.client);
    const held = await callOk(alice.client, 'reserve', { targets: ['psu-1'] });
    assert.equal(held.state, 'granted');

    const waiting = await bob.client.callTool({ name: 'reserve', arguments: { targets: ['psu-1'], wait_s: 60 } });
    assert.equal(waiting.isError, false, waiting.content?.[0]?.text);
    assert.equal(waiting.structuredContent.state, 'waiting', 'the 2026 era does not wait inside a call');
    assert.equal(waiting.structuredContent.position, 1);
    const uri = waiting.content.find((c) => c.type === 'resource_link')?.uri;
    assert.equal(uri, `labgate://reservations/${waiting.structuredContent.id}`);

    const updated = new Promise((resolve) => {
      bob.client.setNotificationHandler('notifications/resources/updated', (n) => { if (n.params.uri === uri) resolve(n); });
    });
    const subscription = await bob.client.listen({ resourceSubscriptions: [uri] });
    const before = JSON.parse((await bob.client.readResource({ uri })).contents[0].text);
    assert.equal(before.state, 'waiting');

    await callOk(alice.client, 'release_reservation', { id: held.id });
    await within(updated, 10000, 'the reservation\'s update');
    const after = JSON.parse((await bob.client.readResource({ uri })).contents[0].text);
    assert.equal(after.state, 'granted');
    assert.equal(after.holder, 'http:bob');
    await subscription.close();

    // Another principal's reservation does not exist for alice.
    const aliceReads = await alice.client.readResource({ uri }).then(() => 'read', (e) => e.message);
    assert.match(aliceReads, /Resource not found/);
  } finally {
    await alice.client.close();
    await bob.close();
    await bench.stop();
  }
});
