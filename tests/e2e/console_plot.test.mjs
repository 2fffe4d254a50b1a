// Plots in the console's transcript view, in a real browser (Debian's chromium, headless): a
// simulated supply (sim://SIM-PSU from the shipped example profile) is measured while its session
// records; the page plots the profile's "voltage" readings as SVG points holding the measured
// values, adds new ones live, zooms to a dragged time range, exports what it shows as CSV, and
// plots a regex typed over the device's replies. With LABGATE_CONSOLE_SCREENSHOTS=DIR the
// screenshot in docs/ is (re)made there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callOk } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { eventually } from './lib/serial_helpers.mjs';
import { Browser, findChromium, saveScreenshot } from './lib/chromium.mjs';

const EXAMPLES = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'examples', 'instruments');
const chromium = findChromium();
const skip = chromium ? false : 'chromium is not installed (scripts/setup.sh --test installs it)';

const points = `[...document.querySelectorAll('#plot-svg circle.point')]
  .map((c) => [Number(c.dataset.t), Number(c.dataset.v)])`;

test('the transcript plots readings live, zooms, exports CSV, and plots a typed regex', { skip }, async () => {
  const gw = await startHttpGateway(['--profiles', join(EXAMPLES, 'profiles'),
    '--instruments', join(EXAMPLES, 'instruments.json')]);
  const { client } = await connectHttp(gw.url);
  let browser;
  try {
    const { session } = await callOk(client, 'create_session', { device_id: 'psu-sim', port_name: 'sim://SIM-PSU' });
    await callOk(client, 'open_port', { instrument: 'psu-sim', session_id: session.id });
    const measured = [];
    const measure = async (volts) => {
      await callOk(client, 'write', { port_name: 'psu-sim', data: `VOLT ${volts}` });
      const reply = await callOk(client, 'query', { port_name: 'psu-sim', data: 'MEAS:VOLT?' });
      assert.equal(reply.readings[0].name, 'voltage');
      measured.push({ value: reply.readings[0].value, reply: reply.data });
    };
    for (const volts of [1, 2, 3, 2.4]) await measure(volts);  // steps within step-voltage (1 V)
    await eventually(async () => (await callOk(client, 'list_messages', { session_id: session.id }))
      .messages.filter((m) => m.content.startsWith('reading voltage')).length === 4, 'four readings recorded');

    browser = await Browser.launch(chromium, { width: 1280, height: 900 });
    await browser.goto(`http://127.0.0.1:${gw.port}/console#session=${session.id}`);
    await browser.waitFor(`document.querySelector('#plot-source option[value="reading:voltage"]') != null`,
      'the voltage reading offered');
    await browser.evaluate(`(() => {
      document.querySelector('#plot-source').value = 'reading:voltage';
      document.querySelector('#plot-draw').click();
    })()`);
    await browser.waitFor(`document.querySelectorAll('#plot-svg circle.point').length === 4`, 'four points');
    let shown = await browser.evaluate(points);
    assert.deepEqual(shown.map(([, v]) => v), measured.map((m) => m.value));
    for (let i = 1; i < shown.length; i++) assert.ok(shown[i][0] >= shown[i - 1][0], 'in time order');
    const ticks = await browser.evaluate(`[...document.querySelectorAll('#plot-svg .y-tick')].map((t) => t.textContent)`);
    assert.equal(ticks.length, 5);
    for (const tick of ticks) assert.match(tick, /^-?[\d.]+ V$/);
    assert.equal(await browser.evaluate(`document.querySelector('#plot-svg .y-title').textContent`), 'voltage (V)');
    // The polyline goes through every point.
    assert.equal(await browser.evaluate(
      `document.querySelector('#plot-svg polyline').getAttribute('points').split(' ').length`), 4);

    // Live: new measurements appear without reopening.
    await measure(1.6);
    await measure(2.5);
    await browser.waitFor(`document.querySelectorAll('#plot-svg circle.point').length === 6`, 'six points, live');
    shown = await browser.evaluate(points);
    assert.deepEqual(shown.map(([, v]) => v), measured.map((m) => m.value));
    await browser.evaluate(`document.querySelector('#plot').scrollIntoView({ block: 'end' })`);
    await saveScreenshot(browser, 'console-plot.png');

    // Zoom: drag from just before the third point to just after the fourth.
    await browser.evaluate(`(() => {
      const svg = document.querySelector('#plot-svg');
      const dots = [...svg.querySelectorAll('circle.point')].map((c) => c.getBoundingClientRect());
      const at = (x) => ({ clientX: x, clientY: dots[0].top, bubbles: true });
      const from = (dots[1].right + dots[2].left) / 2;
      const to = (dots[3].right + dots[4].left) / 2;
      svg.dispatchEvent(new MouseEvent('mousedown', at(from)));
      svg.dispatchEvent(new MouseEvent('mousemove', at(to)));
      svg.dispatchEvent(new MouseEvent('mouseup', at(to)));
    })()`);
    await browser.waitFor(`document.querySelectorAll('#plot-svg circle.point').length === 2`, 'the zoomed range');
    const zoomed = await browser.evaluate(points);
    assert.deepEqual(zoomed.map(([, v]) => v), [measured[2].value, measured[3].value]);
    assert.match(await browser.evaluate(`document.querySelector('#plot-note').textContent`),
      /^2 points in the zoomed range, in V$/);
    // CSV of what is shown.
    const csv = (await browser.evaluate('plotCsv()')).trim().split('\n');
    assert.equal(csv[0], 'time,value,unit');
    assert.deepEqual(csv.slice(1), zoomed.map(([t, v]) => `${new Date(t).toISOString()},${v},V`));
    await browser.evaluate(`document.querySelector('#plot-reset').click()`);
    await browser.waitFor(`document.querySelectorAll('#plot-svg circle.point').length === 6`, 'the whole range again');

    // A regex over what the device sent: the replies to MEAS:VOLT?, as numbers.
    await browser.evaluate(`(() => {
      document.querySelector('#plot-source').value = 'regex';
      document.querySelector('#plot-regex').value = '^([-+0-9.]+)\\\\s*$';
      document.querySelector('#plot-unit').value = 'V';
      document.querySelector('#plot-draw').click();
    })()`);
    await browser.waitFor(`document.querySelector('#plot-svg .y-title')?.textContent === 'value (V)'`, 'the regex plot');
    const byRegex = await browser.evaluate(points);
    assert.deepEqual(byRegex.map(([, v]) => v), measured.map((m) => Number(m.reply)));
    // A bad regex says so and draws nothing new.
    await browser.evaluate(`(() => {
      document.querySelector('#plot-regex').value = '([0-9';
      document.querySelector('#plot-draw').click();
    })()`);
    assert.match(await browser.evaluate(`document.querySelector('#plot-note').textContent`), /^Not a regex: /);
    assert.doesNotMatch(await browser.evaluate('document.body.innerText'), /\b(null|undefined|NaN)\b/);
  } finally {
    await browser?.close();
    await client.close();
    await gw.stop();
  }
});

