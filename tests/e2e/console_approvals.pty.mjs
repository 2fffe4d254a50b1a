// Approvals in the console, in a real browser (Debian's chromium, headless), on a real pty
// power supply through libserialport. Runs inside the pty harness with its supply simulator,
// which CMake registers as e2e.console_approvals_pty:
//   labgate-pty-run --devices 1 --mode psu -- node --test console_approvals.pty.mjs
// An MCP client without elicitation writes what a `confirm` rule holds; an operator approves it
// on the page and the supply takes the value; a second write declined on the page is refused,
// never reaches the supply, and is recorded with the approver's name; a viewer sees the held
// write without buttons and a POST of its own gets 403. With LABGATE_CONSOLE_SCREENSHOTS=DIR the
// screenshots in docs/ are (re)made there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callOk, tempDir, removeDir } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { eventually } from './lib/serial_helpers.mjs';
import { findChromium, saveScreenshot, signedInConsole } from './lib/chromium.mjs';

const DEVICES = (process.env.LABGATE_PTY_DEVICES ?? '').split(',').filter(Boolean);
const chromium = findChromium();
const skip = chromium ? false : 'chromium is not installed (scripts/setup.sh --test installs it)';
const js = (value) => JSON.stringify(value);

const row = (bytes) => `[...document.querySelectorAll('#approvals tr[data-approval]')]
  .find((tr) => tr.querySelector('.bytes').textContent === ${js(bytes)})`;

test('the pty harness provides a power supply', () => {
  assert.ok(DEVICES.length >= 1,
    'LABGATE_PTY_DEVICES must name a pty device: run this file through labgate-pty-run (ctest -R e2e.console_approvals_pty)');
});

test('an operator approves and declines held writes in the console; a viewer cannot', { skip }, async () => {
  const device = DEVICES[0];
  const dir = tempDir();
  writeFileSync(join(dir, 'tokens'), 'alice alice-token\nvera vera-token\nbot bot-token\n');
  writeFileSync(join(dir, 'access.json'), JSON.stringify({ principals: {
    alice: { role: 'operator', may_approve: ['set-*'] },
    vera: { role: 'viewer' },
    bot: { role: 'operator', may_approve: [] },
  } }));
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({ ports: [{ match: device,
    confirm: [{ name: 'set-voltage', pattern: '^VOLT [0-9]' }] }] }));
  const gw = await startHttpGateway(['--auth-token-file', join(dir, 'tokens'), '--access-file',
    join(dir, 'access.json'), '--policy', join(dir, 'policy.json')]);
  const base = `http://127.0.0.1:${gw.port}`;
  // The assistant: an MCP client that cannot be asked (no elicitation).
  const { client } = await connectHttp(gw.url, { requestInit: { headers: { Authorization: 'Bearer bot-token' } } });
  const voltage = async () => (await callOk(client, 'query', { port_name: device, data: 'VOLT?' })).data.trim();
  let alice;
  let vera;
  try {
    const { session } = await callOk(client, 'create_session', { device_id: 'bench-psu', port_name: device });
    await callOk(client, 'open_port', { port_name: device, baud_rate: 115200, terminator: '\n',
      timeout_ms: 2000, session_id: session.id });
    assert.equal(await voltage(), '0');

    alice = await signedInConsole(chromium, base, 'alice-token', { width: 1280, height: 700 });
    const held = client.callTool({ name: 'write', arguments: { port_name: device, data: 'VOLT 3.5' } });
    await alice.waitFor(`${row('VOLT 3.5')}?.querySelector('button.approve') != null`, 'the held write on the page');
    const cells = await alice.evaluate(`[...${row('VOLT 3.5')}.cells].map((cell) => cell.textContent)`);
    assert.deepEqual(cells.slice(1, 7), ['bot', device, 'write', 'VOLT 3.5', 'set-voltage', '']);
    assert.match(cells[7], /^\d+ min \d+ s$/, 'the countdown');
    assert.equal(await alice.evaluate(`${row('VOLT 3.5')}.querySelectorAll('button').length`), 2);
    assert.doesNotMatch(await alice.evaluate('document.body.innerText'), /\b(null|undefined|NaN)\b/);
    assert.equal(await alice.evaluate(`document.querySelector('#approvals-note').textContent`), '');
    await saveScreenshot(alice, 'console-approval.png');

    await alice.evaluate(`${row('VOLT 3.5')}.querySelector('button.approve').click()`);
    const approved = await held;
    assert.equal(approved.isError, false, JSON.stringify(approved.content));
    assert.equal(await voltage(), '3.5', 'the supply took the approved value');
    await alice.waitFor(`document.querySelector('#approvals-note').textContent.startsWith('Approved: write of VOLT 3.5')`,
      'the outcome on the page');
    await alice.waitFor(`${row('VOLT 3.5')} === undefined`, 'the row to leave');

    // Declined on the page: refused, never sent, recorded with the approver's name.
    const declined = client.callTool({ name: 'write', arguments: { port_name: device, data: 'VOLT 12' } });
    await alice.waitFor(`${row('VOLT 12')}?.querySelector('button.decline') != null`, 'the second write');
    await alice.evaluate(`${row('VOLT 12')}.querySelector('button.decline').click()`);
    const refused = await declined;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text,
      /not sent: the safety policy's rule 'set-voltage' needs a person's approval, and alice in the labgate console declined it/);
    assert.equal(await voltage(), '3.5', 'the declined value never reached the supply');
    await alice.waitFor(`document.querySelector('#approvals-note').textContent.startsWith('Declined: write of VOLT 12')`,
      'the decline on the page');
    await eventually(async () => {
      const { messages } = await callOk(client, 'list_messages', { session_id: session.id });
      const events = messages.filter((m) => m.direction === 'event').map((m) => m.content);
      return events.includes('write approved by alice in the labgate console: VOLT 3.5') &&
        events.includes('write not approved (decline by alice in the labgate console): VOLT 12');
    }, 'both decisions in the port\'s session');

    // A viewer sees what waits, without buttons; a POST of its own is refused.
    vera = await signedInConsole(chromium, base, 'vera-token', { width: 1280, height: 560 });
    const third = client.callTool({ name: 'write', arguments: { port_name: device, data: 'VOLT 4' } });
    await vera.waitFor(`${row('VOLT 4')} !== undefined`, 'the third write on the viewer\'s page');
    assert.equal(await vera.evaluate(`${row('VOLT 4')}.querySelectorAll('button').length`), 0);
    assert.equal(await vera.evaluate(`${row('VOLT 4')}.cells[8].textContent`), 'not yours to answer');
    assert.equal(await vera.evaluate(`document.querySelector('#principal').textContent`), 'signed in as vera (viewer)');
    await saveScreenshot(vera, 'console-approval-viewer.png');
    const id = await vera.evaluate(`${row('VOLT 4')}.dataset.approval`);
    const byVera = await vera.evaluate(`fetch('/console/api/approvals/${id}/approve', { method: 'POST',
      headers: { Authorization: 'Bearer vera-token', 'X-Labgate-Csrf': state.csrf } })
      .then(async (response) => [response.status, (await response.json()).error])`);
    assert.equal(byVera[0], 403);
    assert.match(byVera[1], /vera may not act from the console: it needs the operator or admin role/);
    // alice, still on her page, declines it; the viewer's page sees it go.
    await alice.waitFor(`${row('VOLT 4')}?.querySelector('button.decline') != null`, 'the third write for alice');
    await alice.evaluate(`${row('VOLT 4')}.querySelector('button.decline').click()`);
    assert.equal((await third).isError, true);
    await vera.waitFor(`${row('VOLT 4')} === undefined`, 'the viewer\'s row to leave');
    assert.equal(await voltage(), '3.5');
  } finally {
    await alice?.close();
    await vera?.close();
    await client.close();
    await gw.stop();
    removeDir(dir);
  }
});
