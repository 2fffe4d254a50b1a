// Bench reservations shared by two gateway replicas (issue 32): one labgate-session keeps the
// queue, one labgate-serial reports its supply and enforces grants, and each replica serves
// principals over Streamable HTTP. Both replicas list the same queue; a reserve waiting on
// replica B is granted when the holder releases through replica A; the serial service then
// refuses the old holder, whichever replica it comes through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, callOk, gatewayToken, tempDir, removeDir, startService } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { within } from './lib/v2_client.mjs';

const bearer = (token) => ({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });

test('two replicas share one queue and hand a supply over between them', async () => {
  const dir = tempDir('labgate-reservation-replicas-');
  const started = [];
  const clients = [];
  try {
    writeFileSync(join(dir, 'tokens'), 'alice alice-token-1\nbob bob-token-2\n');
    mkdirSync(join(dir, 'profiles'));
    writeFileSync(join(dir, 'profiles', 'psu.json'),
      JSON.stringify({ model: 'LOOP-PSU', tags: ['psu'], settings: { baud_rate: 9600 } }));
    writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
      instruments: [{ name: 'psu-1', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-1' } }],
    }));
    const session = await startService(BIN.session,
      ['--data-dir', join(dir, 'data'), '--gateway-token-file', gatewayToken()]);
    started.push(session);
    const serial = await startService(BIN.serial, ['--session-addr', session.address,
      '--publish-inventory', '--profiles', join(dir, 'profiles'),
      '--instruments', join(dir, 'instruments.json')]);
    started.push(serial);
    const replicaArgs = ['--session-addr', session.address, '--serial-addr', serial.address,
      '--auth-token-file', join(dir, 'tokens')];
    const a = await startHttpGateway(replicaArgs);
    started.push(a);
    const b = await startHttpGateway(replicaArgs);
    started.push(b);
    const aliceOnA = await connectHttp(a.url, bearer('alice-token-1'));
    const bobOnB = await connectHttp(b.url, bearer('bob-token-2'));
    const aliceOnB = await connectHttp(b.url, bearer('alice-token-1'));
    clients.push(aliceOnA, bobOnB, aliceOnB);

    for (let i = 0; i < 200; i++) {
      const listed = await callOk(bobOnB.client, 'list_reservations', {});
      if ((listed.reservables ?? []).some((r) => r.name === 'psu-1')) break;
      await sleep(50);
    }
    const held = await callOk(aliceOnA.client, 'reserve', { targets: ['psu-1'] });
    assert.equal(held.state, 'granted');
    await callOk(aliceOnA.client, 'open_port', { instrument: 'psu-1' });

    const progress = [];
    const bobsTurn = bobOnB.client.callTool({ name: 'reserve', arguments: { targets: ['psu-1'], wait_s: 60 } },
      CallToolResultSchema, { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 60000 });
    bobsTurn.catch(() => {});  // awaited below; a failure before that must not go unhandled
    const waitingMessage = 'waiting: 1st in the queue for psu-1';
    for (let i = 0; i < 200 && !progress.some((p) => p.message === waitingMessage); i++) await sleep(25);
    assert.ok(progress.some((p) => p.message === waitingMessage), JSON.stringify(progress));

    // Each replica lists the same queue (a grant's expiry moves on as its port is used).
    const queue = (listed) => listed.reservations.map(({ expires_at: _, ...rest }) => rest);
    const fromA = await callOk(aliceOnA.client, 'list_reservations', {});
    const fromB = await callOk(bobOnB.client, 'list_reservations', {});
    assert.deepEqual(queue(fromA), queue(fromB));
    assert.deepEqual(fromA.reservations.map((r) => [r.holder, r.state]),
      [['http:alice', 'granted'], ['http:bob', 'waiting']]);

    await callOk(aliceOnA.client, 'release_reservation', { id: held.id });
    const granted = await within(bobsTurn, 10000, 'the grant on replica B');
    assert.equal(granted.structuredContent.state, 'granted', granted.content?.[0]?.text);
    await callOk(bobOnB.client, 'open_port', { instrument: 'psu-1' });
    await callOk(bobOnB.client, 'write', { port_name: 'psu-1', data: 'VOLT 2' });
    for (const alice of [aliceOnA, aliceOnB]) {
      const refused = await alice.client.callTool({ name: 'open_port', arguments: { instrument: 'psu-1' } });
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /psu-1 is reserved by http:bob/);
    }
  } finally {
    for (const c of clients) await c.client.close();
    for (const service of started.reverse()) await service.stop();
    removeDir(dir);
  }
});
