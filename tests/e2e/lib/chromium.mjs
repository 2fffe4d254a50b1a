// Debian's chromium, headless, driven over the DevTools protocol through Node's own
// WebSocket: no puppeteer, no browser download. One page per Browser.
import { spawn, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir, removeDir } from './harness.mjs';

// The chromium binary ($LABGATE_CHROMIUM, else `chromium` on PATH), or null when absent. A
// named binary is taken as given: if it is missing, launching it fails (it is not skipped).
export function findChromium() {
  const named = process.env.LABGATE_CHROMIUM;
  if (named) return named;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const path = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (path) return path;
    } catch { /* not on PATH */ }
  }
  return null;
}

// `promise`, or a rejection after `ms` (the timer does not keep the process alive).
function within(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class Browser {
  static async launch(binary, { width = 1280, height = 900, timeoutMs = 60000 } = {}) {
    const profile = tempDir('labgate-chromium-');
    const args = ['--headless=new', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
      '--disable-extensions', '--disable-background-networking', '--disable-sync',
      '--disable-component-update', '--disable-default-apps', '--mute-audio', '--hide-scrollbars',
      '--password-store=basic', '--use-mock-keychain', `--window-size=${width},${height}`,
      `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'];
    // Chromium's sandbox needs user namespaces, which containers and root often lack; the
    // browser only ever loads the local gateway's page. /dev/shm is small in containers.
    args.unshift('--no-sandbox', '--disable-dev-shm-usage');
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const endpoint = new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const found = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      child.on('exit', (code) => reject(new Error(`chromium exited (${code}) before listening: ${stderr}`)));
    });
    let url;
    try {
      url = await within(endpoint, timeoutMs);
    } catch (error) {
      child.kill('SIGKILL');
      removeDir(profile);
      throw new Error(`chromium did not start: ${error.message} ${stderr}`);
    }
    const browser = new Browser(child, profile, url, () => stderr);
    await browser.connect();
    return browser;
  }

  constructor(child, profile, url, stderr) {
    this.child = child;
    this.profile = profile;
    this.url = url;
    this.stderr = stderr;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
  }

  async connect() {
    this.socket = new WebSocket(this.url);
    await new Promise((resolve, reject) => {
      this.socket.addEventListener('open', resolve, { once: true });
      this.socket.addEventListener('error', () => reject(new Error('DevTools socket failed')), { once: true });
    });
    this.socket.addEventListener('message', (message) => {
      const payload = JSON.parse(message.data);
      if (payload.id && this.pending.has(payload.id)) {
        const { resolve, reject } = this.pending.get(payload.id);
        this.pending.delete(payload.id);
        if (payload.error) reject(new Error(`${payload.error.message} (${payload.error.code})`));
        else resolve(payload.result);
      } else if (payload.method) {
        for (const listener of this.listeners) listener(payload);
      }
    });
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    ({ sessionId: this.sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true }));
    await this.page('Page.enable');
    await this.page('Runtime.enable');
  }

  send(method, params = {}, sessionId) {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  // A command to the page.
  page(method, params = {}) { return this.send(method, params, this.sessionId); }

  async goto(url) {
    const loaded = new Promise((resolve) => {
      const listener = (event) => {
        if (event.method === 'Page.loadEventFired' && event.sessionId === this.sessionId) {
          this.listeners.delete(listener);
          resolve();
        }
      };
      this.listeners.add(listener);
    });
    const { errorText } = await this.page('Page.navigate', { url });
    if (errorText) throw new Error(`navigating to ${url}: ${errorText}`);
    await loaded;
  }

  // The value of a JavaScript expression in the page (awaited if it is a promise).
  async evaluate(expression) {
    const { result, exceptionDetails } = await this.page('Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true });
    if (exceptionDetails) {
      throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    }
    return result.value;
  }

  // Polls `expression` until it is truthy; fails after `timeoutMs` naming `what`.
  async waitFor(expression, what, timeoutMs = 20000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await this.evaluate(expression);
      if (value) return value;
      if (Date.now() > deadline) {
        const text = await this.evaluate('document.body ? document.body.innerText : ""');
        throw new Error(`timed out waiting for ${what}; the page says:\n${text}`);
      }
      await sleep(50);
    }
  }

  async screenshot() {
    const { data } = await this.page('Page.captureScreenshot', { format: 'png' });
    return Buffer.from(data, 'base64');
  }

  async close() {
    const running = () => this.child.exitCode === null && this.child.signalCode === null;
    const exited = new Promise((resolve) => this.child.on('exit', resolve));
    try {
      await within(this.send('Browser.close'), 5000);
    } catch { /* gone already, or not answering: killed below */ }
    this.socket?.close();
    if (running()) await within(exited, 5000).catch(() => {});
    if (running()) this.child.kill('SIGKILL');
    removeDir(this.profile);
  }
}

// Where screenshots go when $LABGATE_CONSOLE_SCREENSHOTS names a folder (the docs/ ones
// are made this way); null otherwise.
export function screenshotPath(name) {
  const dir = process.env.LABGATE_CONSOLE_SCREENSHOTS;
  return dir ? join(dir, name) : null;
}

// Saves the page as `name` in $LABGATE_CONSOLE_SCREENSHOTS (how docs/ gets its pictures); else
// nothing.
export async function saveScreenshot(browser, name) {
  const path = screenshotPath(name);
  if (path) writeFileSync(path, await browser.screenshot());
}

// A console page at `base`, signed in with `token` through its token prompt.
export async function signedInConsole(binary, base, token, size = { width: 1280, height: 700 }) {
  const browser = await Browser.launch(binary, size);
  await browser.goto(`${base}/console`);
  await browser.waitFor(`document.querySelector('#auth').classList.contains('open')`, 'the token prompt');
  await browser.evaluate(`(() => {
    document.querySelector('#token-input').value = ${JSON.stringify(token)};
    document.querySelector('#token-form').requestSubmit();
  })()`);
  await browser.waitFor(`!document.querySelector('#auth').classList.contains('open')`, 'the prompt to close');
  return browser;
}
