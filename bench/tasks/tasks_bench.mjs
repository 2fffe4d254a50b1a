// MCP tasks (issue 34), two figures:
//   1. tasks/get against ping on one stdio connection (stateful era, embedded labgate; then a
//      split deployment, where tasks/get crosses gRPC to labgate-session): N of each,
//      interleaved, sequential; p50/p90/p99 per method.
//   2. labgate-session's resident memory with 10,000 live tasks (split: the tasks are created
//      through a stdio gateway, each a 1-hour slow_compute, so all stay working).
// Usage: node bench/tasks/tasks_bench.mjs [N=2000] [TASKS=10000]
// with LABGATE_BIN and LABGATE_SESSION_BIN set (the build's binaries).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const N = Number(process.argv[2] ?? 2000);
const TASKS = Number(process.argv[3] ?? 10000);
const TASK_CAPS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

class Stdio {
  constructor(args) {
    this.child = spawn(process.env.LABGATE_BIN, [...args, '--log-level', 'warning'],
      { stdio: ['pipe', 'pipe', 'inherit'] });
    this.buffer = '';
    this.waiting = new Map();
    this.child.stdout.on('data', (chunk) => {
      this.buffer += chunk;
      let newline;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
        const resolve = this.waiting.get(message.id);
        if (resolve) {
          this.waiting.delete(message.id);
          resolve(message);
        }
      }
    });
    this.next = 1;
  }
  request(method, params) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }
  async initialize() {
    await this.request('initialize', { protocolVersion: '2025-11-25', capabilities: TASK_CAPS,
      clientInfo: { name: 'tasks-bench', version: '1' } });
    this.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }
  close() { this.child.kill('SIGKILL'); }
}

async function startSession(dir) {
  const portFile = join(dir, 'session.port');
  const child = spawn(process.env.LABGATE_SESSION_BIN, ['--listen', '127.0.0.1:0', '--port-file', portFile,
    '--data-dir', join(dir, 'data'), '--log-level', 'warning', '--gateway-token-file', join(dir, 'token')],
  { stdio: ['ignore', 'ignore', 'inherit'] });
  while (!existsSync(portFile) || readFileSync(portFile, 'utf8').trim() === '') await sleep(20);
  return { child, address: `127.0.0.1:${readFileSync(portFile, 'utf8').trim()}` };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function pingAgainstGet(label, args) {
  const gateway = new Stdio(args);
  await gateway.initialize();
  const created = await gateway.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0.01, label: 'bench' } });
  const { taskId } = created.result;
  await sleep(200);
  const times = { ping: [], 'tasks/get': [] };
  for (let i = 0; i < N + 200; i++) {
    for (const [method, params] of [['ping', {}], ['tasks/get', { taskId }]]) {
      const started = process.hrtime.bigint();
      const answer = await gateway.request(method, params);
      const micros = Number(process.hrtime.bigint() - started) / 1000;
      if (answer.error) throw new Error(JSON.stringify(answer.error));
      if (i >= 200) times[method].push(micros);  // the first 200 warm up
    }
  }
  gateway.close();
  const row = {};
  for (const [method, list] of Object.entries(times)) {
    list.sort((a, b) => a - b);
    row[method] = [0.5, 0.9, 0.99].map((p) => percentile(list, p).toFixed(0));
  }
  const ratio = (Number(row['tasks/get'][0]) / Number(row.ping[0])).toFixed(2);
  console.log(`${label}: ping p50/p90/p99 ${row.ping.join(' / ')} µs; tasks/get ${row['tasks/get'].join(' / ')} µs; ` +
    `p50 ratio ${ratio}`);
}

const dir = mkdtempSync(join(tmpdir(), 'labgate-tasks-bench-'));
writeFileSync(join(dir, 'token'), `${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
const split = (address) => ['--conformance-fixtures', '--session-addr', address, '--gateway-token-file', join(dir, 'token')];
try {
  await pingAgainstGet('embedded', ['--conformance-fixtures', '--data-dir', join(dir, 'embedded')]);
  const session = await startSession(dir);
  try {
    await pingAgainstGet('split', split(session.address));
    const gateway = new Stdio(split(session.address));
    await gateway.initialize();
    const before = rssMiB(session.child.pid);
    const started = Date.now();
    for (let i = 0; i < TASKS; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, TASKS - i) }, () =>
        gateway.request('tools/call', { name: 'slow_compute', arguments: { seconds: 3600, label: 'held' } })));
    }
    const seconds = (Date.now() - started) / 1000;
    await sleep(1000);
    const after = rssMiB(session.child.pid);
    console.log(`${TASKS} live tasks: labgate-session RSS ${before.toFixed(1)} → ${after.toFixed(1)} MiB ` +
      `(+${(after - before).toFixed(1)} MiB); created in ${seconds.toFixed(1)} s (${(TASKS / seconds).toFixed(0)}/s, 100 in flight)`);
    gateway.close();
  } finally {
    session.child.kill('SIGKILL');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
