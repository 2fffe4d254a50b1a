// Drives `labgate` over raw pipes, byte for byte, to test framing and hostile input.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN } from './harness.mjs';

export class RawGateway {
  constructor(args = []) {
    this.child = spawn(BIN.labgate, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stdout = Buffer.alloc(0);
    this.stderr = '';
    this.frames = [];  // { framing: 'newline'|'content-length', message }
    this.badOutput = [];  // stdout bytes that were not a protocol message
    this.child.stdout.on('data', (chunk) => {
      this.stdout = Buffer.concat([this.stdout, chunk]);
      this.#parse();
    });
    this.child.stderr.on('data', (chunk) => { this.stderr += chunk; });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.child.stdin.on('error', () => {});
  }

  #parse() {
    for (;;) {
      if (this.stdout.length === 0) return;
      if (this.stdout.subarray(0, 15).toString('latin1').toLowerCase().startsWith('content-length:')) {
        const end = this.stdout.indexOf('\r\n\r\n');
        if (end < 0) return;
        const header = this.stdout.subarray(0, end).toString('latin1');
        const length = Number(/content-length:\s*(\d+)/i.exec(header)[1]);
        if (this.stdout.length < end + 4 + length) return;
        const body = this.stdout.subarray(end + 4, end + 4 + length).toString('utf8');
        this.stdout = this.stdout.subarray(end + 4 + length);
        this.#push('content-length', body);
      } else {
        const newline = this.stdout.indexOf('\n');
        if (newline < 0) return;
        const line = this.stdout.subarray(0, newline).toString('utf8');
        this.stdout = this.stdout.subarray(newline + 1);
        this.#push('newline', line);
      }
    }
  }

  #push(framing, text) {
    try {
      const message = JSON.parse(text);
      this.frames.push({ framing, message, text });
    } catch {
      this.badOutput.push(text);
    }
  }

  write(data) {
    return new Promise((resolve, reject) => this.child.stdin.write(data, (err) => (err ? reject(err) : resolve())));
  }

  send(message) { return this.write(JSON.stringify(message) + '\n'); }

  sendFramed(message) {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    return this.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  // Waits for the first frame (not yet taken) matching `predicate`, and takes it.
  async take(predicate, timeoutMs = 10000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex((f) => predicate(f.message, f));
      if (index >= 0) return this.frames.splice(index, 1)[0];
      if (Date.now() > deadline) {
        throw new Error(`no matching frame; have ${JSON.stringify(this.frames.map((f) => f.message)).slice(0, 2000)}; stderr: ${this.stderr.slice(-2000)}`);
      }
      await sleep(5);
    }
  }

  takeId(id, timeoutMs) { return this.take((m) => m.id === id, timeoutMs); }

  async request(id, method, params) {
    await this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return (await this.takeId(id)).message;
  }

  async initialize(protocolVersion = '2025-11-25') {
    const reply = await this.request('init', 'initialize', {
      protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' },
    });
    await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }

  async close() {
    this.child.stdin.end();
    return this.exited;
  }
}
