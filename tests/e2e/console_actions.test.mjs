// The console's actions on ports and reservations, over its JSON API with an access file: an
// operator force-closes a port another principal holds (the close is recorded in the port's
// session with who and why, and the holder's next call finds it closed) and ends another's
// reservation (the next in line is granted; the end names the operator and the reason); a viewer,
// or an operator outside the port's or reservation's globs or read-only, gets 403, a POST without
// a reason 400, and an unknown port or reservation 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { callOk, tempDir, removeDir } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { eventually } from './lib/serial_helpers.mjs';
import { findChromium, signedInConsole } from './lib/chromium.mjs';

const chromium = findChromium();
const skip = chromium ? false : 'chromium is not installed (scripts/setup.sh --test installs it)';
const js = (value) => JSON.stringify(value);

const TOKENS = 'alice alice-token\nbob bob-token\ncarol carol-token\nvera vera-token\n' +
  'student student-token\nreader reader-token\n';
const ACCESS = {
  principals: {
    alice: { role: 'operator' },
    bob: { role: 'operator' },
    carol: { role: 'operator' },
    vera: { role: 'viewer' },
    student: { role: 'operator', ports: ['loop://dmm-*'] },
    reader: { role: 'operator', read_only: true },
  },
};

const bearer = (token) => ({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });

async function withGateway(body) {
  const dir = tempDir();
  writeFileSync(join(dir, 'tokens'), TOKENS);
  writeFileSync(join(dir, 'access.json'), JSON.stringify(ACCESS));
  mkdirSync(join(dir, 'profiles'));
  writeFileSync(join(dir, 'profiles', 'psu.json'),
    JSON.stringify({ model: 'LOOP-PSU', tags: ['psu'], settings: { baud_rate: 9600, terminator: '\n' } }));
  writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
    instruments: [{ name: 'psu-1', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-1' } }],
  }));
  const gateway = await startHttpGateway(['--auth-token-file', join(dir, 'tokens'), '--access-file',
    join(dir, 'access.json'), '--profiles', join(dir, 'profiles'), '--instruments', join(dir, 'instruments.json')]);
  try {
    await body(gateway, `http://127.0.0.1:${gateway.port}`);
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
}

// POST `path` as `token`'s principal with its CSRF token (unless `csrf` is false).
async function act(base, token, path, body, { csrf = true } = {}) {
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  if (csrf) {
    headers['X-Labgate-Csrf'] = (await (await fetch(`${base}/console/api/whoami`,
      { headers: { Authorization: `Bearer ${token}` } })).json()).csrf;
  }
  const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

test('an operator force-closes another principal\'s port from the console, and the session records it', async () => {
  await withGateway(async (gateway, base) => {
    const bob = await connectHttp(gateway.url, bearer('bob-token'));
    const { session } = await callOk(bob.client, 'create_session', { device_id: 'psu', port_name: 'loop://stuck' });
    await callOk(bob.client, 'open_port', { port_name: 'loop://stuck', baud_rate: 9600, terminator: '\n',
      session_id: session.id });
    const path = `/console/api/ports/${encodeURIComponent('loop://stuck')}/close`;

    const byViewer = await act(base, 'vera-token', path, { reason: 'looks stuck' });
    assert.equal(byViewer.status, 403);
    assert.match(byViewer.json.error, /vera may not act from the console: it needs the operator or admin role/);
    assert.equal((await act(base, 'alice-token', path, { reason: 'x' }, { csrf: false })).status, 403);
    // An operator may close only a port it may change itself.
    const byStudent = await act(base, 'student-token', path, { reason: 'looks stuck' });
    assert.equal(byStudent.status, 403);
    assert.match(byStudent.json.error, /student may not use port loop:\/\/stuck: it is not among its ports/);
    const byReader = await act(base, 'reader-token', path, { reason: 'looks stuck' });
    assert.equal(byReader.status, 403);
    assert.match(byReader.json.error, /reader may not change port loop:\/\/stuck: reader \(operator\) is read-only/);
    const noReason = await act(base, 'alice-token', path, {});
    assert.equal(noReason.status, 400);
    assert.match(noReason.json.error, /the body must be \{"reason": "\.\.\."\}/);
    const unknown = await act(base, 'alice-token', `/console/api/ports/${encodeURIComponent('loop://none')}/close`,
      { reason: 'tidy up' });
    assert.equal(unknown.status, 404);
    assert.match(unknown.json.error, /port loop:\/\/none is not open/);
    // Still bob's, still open.
    assert.equal((await callOk(bob.client, 'write', { port_name: 'loop://stuck', data: 'ping' })).bytes_written, 5);

    const closed = await act(base, 'alice-token', path, { reason: 'stuck after a firmware crash' });
    assert.equal(closed.status, 200, JSON.stringify(closed.json));
    assert.deepEqual(closed.json, { port_name: 'loop://stuck', status: 'closed' });
    assert.match(gateway.stderr(), /console: alice closed port loop:\/\/stuck \(stuck after a firmware crash\)/);
    const after = await bob.client.callTool({ name: 'write', arguments: { port_name: 'loop://stuck', data: 'ping' } });
    assert.equal(after.isError, true);
    assert.match(after.content[0].text, /not open/);
    await eventually(async () => {
      const { messages } = await callOk(bob.client, 'list_messages', { session_id: session.id });
      return messages.some((m) => m.direction === 'event' &&
        m.content.includes('closed by alice in the labgate console: stuck after a firmware crash'));
    }, 'the forced close in the port\'s session');
    // The holder may open it again.
    await callOk(bob.client, 'open_port', { port_name: 'loop://stuck', baud_rate: 9600 });
  });
});

test('an operator ends another principal\'s reservation from the console; the next in line gets it', async () => {
  await withGateway(async (gateway, base) => {
    const bob = await connectHttp(gateway.url, bearer('bob-token'));
    const carol = await connectHttp(gateway.url, bearer('carol-token'));
    for (let i = 0; i < 200; i++) {
      if (((await callOk(bob.client, 'list_reservations', {})).reservables ?? []).some((r) => r.name === 'psu-1')) break;
      await sleep(50);
    }
    const held = await callOk(bob.client, 'reserve', { targets: ['psu-1'] });
    assert.equal(held.state, 'granted');
    const queued = carol.client.callTool({ name: 'reserve', arguments: { targets: ['psu-1'], wait_s: 30 } });
    await eventually(async () => (await callOk(bob.client, 'list_reservations', {})).reservations.length === 2,
      'carol in the queue');
    const path = `/console/api/reservations/${encodeURIComponent(held.id)}/end`;

    assert.equal((await act(base, 'vera-token', path, { reason: 'lunch' })).status, 403);
    // As with ports: an operator ends only a reservation of what it may change itself.
    const byStudent = await act(base, 'student-token', path, { reason: 'lunch' });
    assert.equal(byStudent.status, 403);
    assert.match(byStudent.json.error, /student may not use port psu-1: it is not among its ports/);
    const byReader = await act(base, 'reader-token', path, { reason: 'lunch' });
    assert.equal(byReader.status, 403);
    assert.match(byReader.json.error, /reader may not change port psu-1: reader \(operator\) is read-only/);
    assert.equal((await act(base, 'alice-token', path, { reason: '' })).status, 400);
    assert.equal((await act(base, 'alice-token', '/console/api/reservations/no-such-id/end', { reason: 'x' })).status, 404);

    const ended = await act(base, 'alice-token', path, { reason: 'bob left for the day' });
    assert.equal(ended.status, 200, JSON.stringify(ended.json));
    assert.equal(ended.json.id, held.id);
    assert.equal(ended.json.end_reason, 'ended by an operator: by alice in the labgate console: bob left for the day');
    assert.match(gateway.stderr(), new RegExp(`console: alice ended reservation ${held.id} \\(bob left for the day\\)`));
    const carols = await queued;
    assert.equal(carols.isError, false, carols.content?.[0]?.text);
    assert.equal(carols.structuredContent.state, 'granted');
    assert.equal(carols.structuredContent.holder, 'http:carol');
  });
});

test('on the page: an operator closes a port and ends a reservation with a reason; a viewer has no buttons', { skip }, async () => {
  await withGateway(async (gateway, base) => {
    const bob = await connectHttp(gateway.url, bearer('bob-token'));
    await callOk(bob.client, 'open_port', { port_name: 'loop://hung', baud_rate: 9600 });
    for (let i = 0; i < 200; i++) {
      if (((await callOk(bob.client, 'list_reservations', {})).reservables ?? []).some((r) => r.name === 'psu-1')) break;
      await sleep(50);
    }
    const held = await callOk(bob.client, 'reserve', { targets: ['psu-1'] });
    let alice;
    let vera;
    try {
      vera = await signedInConsole(chromium, base, 'vera-token');
      await vera.waitFor(`document.querySelector('#ports tr[data-port=${js('loop://hung')}]') != null`, 'the port');
      await vera.waitFor(`document.querySelector('#reservations tr[data-reservation=${js(held.id)}]') != null`, 'the reservation');
      assert.equal(await vera.evaluate(`document.querySelectorAll('[data-close], [data-end]').length`), 0);

      alice = await signedInConsole(chromium, base, 'alice-token');
      const close = `document.querySelector('#ports tr[data-port=${js('loop://hung')}] [data-close]')`;
      await alice.waitFor(`${close} != null`, 'the close button');
      await alice.evaluate(`(() => { window.prompt = () => 'hung after a brown-out'; ${close}.click(); })()`);
      await alice.waitFor(`document.querySelector('#actions-note').textContent.startsWith('Done: Close loop://hung')`,
        'the close on the page');
      const after = await bob.client.callTool({ name: 'write', arguments: { port_name: 'loop://hung', data: 'x' } });
      assert.equal(after.isError, true);
      assert.match(gateway.stderr(), /console: alice closed port loop:\/\/hung \(hung after a brown-out\)/);

      const end = `document.querySelector('#reservations tr[data-reservation=${js(held.id)}] [data-end]')`;
      await alice.waitFor(`${end} != null`, 'the end button');
      await alice.evaluate(`(() => { window.prompt = () => 'bench needed for calibration'; ${end}.click(); })()`);
      await alice.waitFor(`document.querySelector('#reservations tr[data-reservation=${js(held.id)}]') == null`,
        'the reservation to leave the page');
      assert.match(await alice.evaluate(`document.querySelector('#actions-note').textContent`),
        /^Done: End http:bob's reservation \(bench needed for calibration\)$/);
      // A cancelled prompt does nothing.
      await callOk(bob.client, 'open_port', { port_name: 'loop://hung', baud_rate: 9600 });
      await alice.waitFor(`${close} != null`, 'the port open again');
      await alice.evaluate(`(() => { window.prompt = () => null; ${close}.click(); })()`);
      assert.equal((await callOk(bob.client, 'write', { port_name: 'loop://hung', data: 'y' })).bytes_written, 1);
    } finally {
      await alice?.close();
      await vera?.close();
    }
  });
});
