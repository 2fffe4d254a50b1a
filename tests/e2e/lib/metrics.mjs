// Scrapes labgate's /metrics and reads the Prometheus text exposition strictly: every
// family has HELP and TYPE before its samples, names start with labgate_, no series
// appears twice, and histogram buckets are cumulative up to +Inf == _count. A breach throws.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\["\\n])*)"(,|$)/;

function parseValue(text) {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value ${text}`);
  return Number(text);
}

function parseLabels(text) {
  const labels = {};
  let rest = text.slice(1, -1);
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`bad labels ${text}`);
    if (match[1] in labels) throw new Error(`label twice in ${text}`);
    labels[match[1]] = match[2].replace(/\\(["\\n])/g, (_, c) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

export function key(name, labels = {}) {
  return name + JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
}

// { families: Map(name -> {help, type}), samples: Map(key -> value), value(name, labels) }
export function parseExposition(text) {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('no final newline');
  const families = new Map();
  const samples = new Map();
  const buckets = new Map();  // histogram series -> [[le, count]], and its _count
  let current = null;
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('# HELP ')) {
      const [name] = line.slice(7).split(' ', 1);
      if (!NAME.test(name) || families.has(name)) throw new Error(`bad HELP: ${line}`);
      families.set(name, { help: line.slice(8 + name.length), type: null });
      current = null;
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      const family = families.get(name);
      if (!family || family.type || !['counter', 'gauge', 'histogram'].includes(type)) {
        throw new Error(`bad TYPE: ${line}`);
      }
      family.type = type;
      current = name;
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`bad line: ${line}`);
    const [, name, labelText, valueText] = match;
    const labels = labelText ? parseLabels(labelText) : {};
    const value = parseValue(valueText);
    const family = families.get(current);
    const base = family?.type === 'histogram' ? name.replace(/_(bucket|sum|count)$/, '') : name;
    if (base !== current) throw new Error(`sample outside its family: ${line}`);
    const k = key(name, labels);
    if (samples.has(k)) throw new Error(`series twice: ${line}`);
    samples.set(k, value);
    if (family.type === 'counter' && !(value >= 0)) throw new Error(`negative counter: ${line}`);
    if (family.type === 'histogram') {
      const { le, ...rest } = labels;
      const series = key(base, rest);
      if (!buckets.has(series)) buckets.set(series, { le: [], count: null });
      if (name.endsWith('_bucket')) buckets.get(series).le.push([parseValue(le), value]);
      if (name.endsWith('_count')) buckets.get(series).count = value;
    }
  }
  for (const [name, family] of families) {
    if (!name.startsWith('labgate_')) throw new Error(`${name} does not start with labgate_`);
    if (!family.type) throw new Error(`${name} has no TYPE`);
  }
  for (const [series, { le, count }] of buckets) {
    for (let i = 1; i < le.length; i++) {
      if (!(le[i][0] > le[i - 1][0]) || le[i][1] < le[i - 1][1]) {
        throw new Error(`${series}: buckets not cumulative`);
      }
    }
    if (le.at(-1)?.[0] !== Infinity || le.at(-1)[1] !== count) throw new Error(`${series}: +Inf != count`);
  }
  return {
    families,
    samples,
    // The sample's value; undefined when it is absent.
    value: (name, labels = {}) => samples.get(key(name, labels)),
  };
}

export async function scrape(url, headers = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status} ${text}`);
  if (response.headers.get('content-type') !== 'text/plain; version=0.0.4; charset=utf-8') {
    throw new Error(`${url}: content type ${response.headers.get('content-type')}`);
  }
  return parseExposition(text);
}

// Scrapes until `predicate(exposition)` holds (metrics move a moment after the reply).
export async function scrapeUntil(url, predicate, { timeoutMs = 15000, headers = {} } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exposition = await scrape(url, headers);
    if (predicate(exposition)) return exposition;
    if (Date.now() > deadline) {
      throw new Error(`${url}: condition not met; samples ${JSON.stringify([...exposition.samples].filter(([k]) => !k.includes('_bucket')))}`);
    }
    await sleep(50);
  }
}

// Waits for a port file a process writes once it serves, and returns the port.
export async function waitForPortFile(file, { timeoutMs = 15000, child } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') {
    if (child && child.exitCode !== null) throw new Error(`exited before writing ${file}`);
    if (Date.now() > deadline) throw new Error(`${file} never appeared`);
    await sleep(20);
  }
  return Number(readFileSync(file, 'utf8').trim());
}
