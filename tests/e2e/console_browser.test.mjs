// The console in a real browser: Debian's chromium, headless, driven over the DevTools
// protocol. With a port open, a recorded session and some traffic, the page lists the
// port and its owner, shows the transcript, and shows live traffic written after it
// loaded; a token-protected console refuses a wrong token. Skipped only when chromium
// is not installed (scripts/setup.sh --test installs it). With
// LABGATE_CONSOLE_SCREENSHOTS=DIR the screenshots in docs/ are (re)made there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, removeDir, callOk } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { eventually } from './lib/serial_helpers.mjs';
import { Browser, findChromium, saveScreenshot } from './lib/chromium.mjs';

const chromium = findChromium();
const skip = chromium ? false : 'chromium is not installed (scripts/setup.sh --test installs it)';

// A string as a JavaScript literal inside an evaluated expression.
const js = (value) => JSON.stringify(value);

test('the console shows ports with their owners, transcripts and live traffic', { skip }, async () => {
  const dir = tempDir();
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ ports: [{ match: 'loop://*', max_baud: 115200,
    deny: [{ name: 'no-reset', pattern: '^\\*RST' }], confirm: [{ name: 'output-on', pattern: '^OUTP ON' }] },
  { match: 'replay://*' }] }));
  const gw = await startHttpGateway(['--policy', policy]);
  const base = `http://127.0.0.1:${gw.port}`;
  const { client } = await connectHttp(gw.url);
  let browser;
  try {
    // Some lab work for the page to show: a recorded port with a query and a note.
    const { session } = await callOk(client, 'create_session', { device_id: 'bench-dmm', port_name: 'loop://dmm' });
    await callOk(client, 'open_port', { port_name: 'loop://dmm', baud_rate: 115200, terminator: '\n',
      timeout_ms: 500, session_id: session.id });
    await callOk(client, 'query', { port_name: 'loop://dmm', data: '*IDN?' });
    await eventually(async () => (await callOk(client, 'list_messages', { session_id: session.id })).messages.length === 3,
      'the port\'s records');
    await callOk(client, 'append_message', { session_id: session.id, role: 'assistant',
      content: 'identified the meter', features: 'scpi, idn' });
    await callOk(client, 'open_port', { port_name: 'loop://psu', baud_rate: 9600 });

    browser = await Browser.launch(chromium);
    await browser.goto(`${base}/console`);

    // The port and its owner.
    const row = `document.querySelector('#ports tr[data-port=${js('loop://dmm')}]')`;
    await browser.waitFor(`${row}?.querySelector('.owner')?.textContent === 'http:local'`, 'loop://dmm owned by http:local');
    const cells = await browser.evaluate(`[...${row}.cells].map((cell) => cell.textContent)`);
    assert.equal(cells[1], 'loop://dmm');
    assert.equal(cells[2], 'open');
    assert.equal(cells[4], session.id.slice(0, 8), 'the bound session');
    assert.match(cells[5], /^rx 6 B · tx 6 B/);
    assert.equal(cells[6], 'allowed ≤ 115200 baud · deny: no-reset · confirm: output-on');
    assert.equal(await browser.evaluate(`document.querySelector('#principal').textContent`), 'signed in as local');
    await browser.waitFor(`document.querySelectorAll('#backends .chip.ok').length === 5`, 'five healthy backends (actions, reservations, serial, session, tasks)');

    // The reservations: local holds loop://psu.
    await eventually(async () => (await callOk(client, 'list_reservations', {})).reservables
      .some((r) => r.name === 'loop://psu'), 'loop://psu reservable');
    const reserved = await callOk(client, 'reserve', { targets: ['loop://psu'] });
    const reservation = `document.querySelector('#reservations tr[data-reservation=${js(reserved.id)}]')`;
    await browser.waitFor(reservation, 'the reservation in its table');
    const held = await browser.evaluate(`[...${reservation}.cells].map((cell) => cell.textContent)`);
    assert.deepEqual(held.slice(1, 5), ['http:local', 'granted', 'loop://psu', 'loop://psu']);

    // The transcript, opened from the session list.
    const open = `document.querySelector('[data-open=${js(session.id)}]')`;
    await browser.waitFor(open, 'the session in the list');
    await browser.evaluate(`${open}.click()`);
    await browser.waitFor(`document.querySelector('#messages')?.textContent.includes('identified the meter')`,
      'the transcript');
    const transcript = await browser.evaluate(`[...document.querySelectorAll('#messages tbody tr')]
      .map((tr) => [tr.cells[2].textContent, tr.cells[4].textContent])`);
    assert.deepEqual(transcript.slice(1), [['device tx', '*IDN?\n'], ['device rx', '*IDN?\n'], ['assistant', 'identified the meter']]);
    assert.match(transcript[0][1], /^opened at 115200 baud/);

    // Live traffic: watch the port; once its stream reports the current state, anything
    // written through the gateway must appear on the page.
    await browser.evaluate(`document.querySelector('[data-watch=${js('loop://dmm')}]').click()`);
    const pane = `document.querySelector('[data-pane=${js('loop://dmm')}]')`;
    await browser.waitFor(`${pane}?.querySelector('.log')?.textContent.includes('opened: current state')`,
      'the watch to start');
    await callOk(client, 'write', { port_name: 'loop://dmm', data: 'VOLT 12.5' });
    await browser.waitFor(`[...${pane}.querySelectorAll('.line')].some((line) =>
      line.children[1].textContent === 'tx' && line.children[2].textContent === 'VOLT 12.5\\\\n')`, 'the write (tx)');
    await browser.waitFor(`[...${pane}.querySelectorAll('.line')].some((line) =>
      line.children[1].textContent === 'rx' && line.children[2].textContent === 'VOLT 12.5\\\\n')`, 'the echo (rx)');
    // The open transcript follows the session as it is recorded.
    await browser.waitFor(`document.querySelector('#messages').textContent.includes('VOLT 12.5')`,
      'the recorded write in the transcript');
    await callOk(client, 'query', { port_name: 'loop://dmm', data: 'MEAS:VOLT?' });
    await browser.waitFor(`${pane}.textContent.includes('MEAS:VOLT?')`, 'a query');

    // A rehearsal: replay the session from its row; the operator's assistant departs from it.
    await browser.evaluate(`document.querySelector('[data-replay=${js(session.id)}]').click()`);
    const replay = `replay://${session.id}`;
    const replayRow = `document.querySelector('#ports tr[data-port=${js(replay)}]')`;
    await browser.waitFor(`document.querySelector('#replay-note').textContent.startsWith('Replaying on replay://')`,
      'the replay to start');
    await browser.waitFor(`${replayRow}?.querySelector('.owner')?.textContent === 'http:local'`, 'the replay port');
    await callOk(client, 'query', { port_name: replay, data: '*IDN?' });
    const departed = await client.callTool({ name: 'write', arguments: { port_name: replay, data: 'OUTP ON' } });
    assert.equal(departed.isError, true);
    await browser.waitFor(`${replayRow}?.querySelector('.divergence')?.textContent.includes('OUTP ON')`,
      'the divergence on the page');
    assert.match(await browser.evaluate(`${replayRow}.querySelector('.replay').textContent`),
      /^replay strict ×1 matched 1 of \d+, 1 divergence/);
    assert.doesNotMatch(await browser.evaluate('document.body.innerText'), /\b(null|undefined|NaN)\b/,
      'no value is shown unrendered');
    await saveScreenshot(browser, 'console.png');
  } finally {
    await browser?.close();
    await client.close();
    await gw.stop();
    removeDir(dir);
  }
});

test('a token-protected console asks for a token and refuses a wrong one', { skip }, async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'alice token-of-alice\n');
  const gw = await startHttpGateway(['--auth-token-file', tokens]);
  const base = `http://127.0.0.1:${gw.port}`;
  const { client } = await connectHttp(gw.url,
    { requestInit: { headers: { Authorization: 'Bearer token-of-alice' } } });
  let browser;
  try {
    await callOk(client, 'open_port', { port_name: 'loop://secret', baud_rate: 9600 });
    browser = await Browser.launch(chromium, { width: 1000, height: 560 });
    await browser.goto(`${base}/console`);
    await browser.waitFor(`document.querySelector('#auth').classList.contains('open')`, 'the token prompt');

    const submit = (token) => browser.evaluate(`(() => {
      document.querySelector('#token-input').value = ${js(token)};
      document.querySelector('#token-form').requestSubmit();
    })()`);
    await submit('not-the-token');
    await browser.waitFor(`document.querySelector('#auth-error').textContent.startsWith('Refused')`, 'the refusal');
    assert.match(await browser.evaluate(`document.querySelector('#auth-error').textContent`),
      /^Refused: Unauthorized: the token was not accepted$/);
    assert.equal(await browser.evaluate(`document.querySelectorAll('#ports tr[data-port]').length`), 0,
      'nothing is shown without a good token');
    assert.equal(await browser.evaluate(`sessionStorage.getItem('labgate-console-token')`), null,
      'a refused token is not kept');
    await saveScreenshot(browser, 'console-token-refused.png');

    await submit('token-of-alice');
    await browser.waitFor(`!document.querySelector('#auth').classList.contains('open')`, 'the prompt to close');
    await browser.waitFor(`document.querySelector('#ports tr[data-port=${js('loop://secret')}] .owner')?.textContent === 'http:alice'`,
      'the port, owned by alice');
    assert.equal(await browser.evaluate(`document.querySelector('#principal').textContent`), 'signed in as alice');
    assert.equal(await browser.evaluate(`sessionStorage.getItem('labgate-console-token')`), 'token-of-alice');

    // The token is asked for once: a reload keeps it for the tab.
    await browser.goto(`${base}/console`);
    await browser.waitFor(`document.querySelector('#principal').textContent === 'signed in as alice'`, 'the kept token');
    assert.equal(await browser.evaluate(`document.querySelector('#auth').classList.contains('open')`), false);
  } finally {
    await browser?.close();
    await client.close();
    await gw.stop();
    removeDir(dir);
  }
});
