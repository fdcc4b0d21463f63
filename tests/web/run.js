#!/usr/bin/env node
/* tests/web/run.js: the runner of the browser test.  Makes a match store
 * with `tablecam import`, starts `tablecam serve` on it (history), the
 * live driver (live page) and `tablecam demo` (the whole pipeline from a
 * simulated camera), runs web_test.js against them in headless chromium,
 * and always stops what it started.
 *
 *   node tests/web/run.js --tablecam BIN --driver BIN --out DIR
 *
 * Prints "N passed, N failed" last; exit status 0 only when all passed. */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, execFileSync } = require('child_process');

function args() {
  const a = {};
  for (let i = 2; i < process.argv.length; i += 2) a[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
  for (const k of ['tablecam', 'driver', 'out'])
    if (!a[k]) { console.error('usage: node run.js --tablecam BIN --driver BIN --out DIR'); process.exit(2); }
  return a;
}

function fail(msg) {
  console.error('web_browser: ' + msg);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

/* Starts a program that prints its page's address as its first line. */
function startServer(name, bin, argv, children) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(p);
    let out = '', err = '';
    const timer = setTimeout(() => reject(new Error(name + ' printed no address within 10 s; stderr: ' + err)), 10000);
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => reject(new Error(name + ' exited (' + code + ') before serving; stderr: ' + err)));
    const onData = (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      p.stdout.off('data', onData);
      resolve({ proc: p, url: out.slice(0, nl).trim(), rest: out.slice(nl + 1), stderr: () => err });
    };
    p.stdout.on('data', onData);
  });
}

/* Starts `tablecam demo`, which names its page on stderr. */
function startDemo(bin, argv, children) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(p);
    let err = '';
    const timer = setTimeout(() => reject(new Error('tablecam demo named no page within 60 s; stderr: ' + err)), 60000);
    p.stdout.on('data', () => {});
    p.on('exit', (code) => reject(new Error('tablecam demo exited (' + code + ') before serving; stderr: ' + err)));
    p.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/the web app is at (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc: p, url: m[1] });
      }
    });
  });
}

/* Sends one command line to the driver and waits for its "ok". */
function driverChannel(server) {
  let buf = server.rest;
  const waiting = [];
  server.proc.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(line);
    }
  });
  return (cmd) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the live driver did not answer ' + JSON.stringify(cmd).slice(0, 80))), 10000);
    waiting.push((line) => {
      clearTimeout(timer);
      if (line === 'ok') resolve();
      else reject(new Error('live driver: ' + line + ' (for ' + JSON.stringify(cmd).slice(0, 80) + ')'));
    });
    server.proc.stdin.write(JSON.stringify(cmd) + '\n');
  });
}

async function main() {
  const a = args();
  const here = __dirname;
  const pw = path.join(here, 'node_modules', 'playwright-core');
  if (!fs.existsSync(pw)) fail('playwright-core is missing: run scripts/install-web-test-deps');
  const chromium = '/usr/bin/chromium';
  if (!fs.existsSync(chromium)) fail(chromium + ' is missing: run scripts/install-web-test-deps');
  for (const b of [a.tablecam, a.driver]) if (!fs.existsSync(b)) fail(b + ' is missing: build it first');
  fs.mkdirSync(a.out, { recursive: true });
  for (const f of fs.readdirSync(a.out)) if (f.endsWith('.png')) fs.rmSync(path.join(a.out, f));

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tablecam-web-'));
  const children = [];
  const cleanup = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  };
  process.on('exit', cleanup);
  for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => { cleanup(); process.exit(1); });

  /* A finished-looking history: one qwirkle match with an illegal move. */
  const record = [
    { game: 'qwirkle', players: ['Ann', 'Bob'], options: {} },
    { player: 0, move: { type: 'place', pieces: [{ x: 0, y: 0, color: 'red', shape: 'circle' }, { x: 1, y: 0, color: 'red', shape: 'square' }, { x: 2, y: 0, color: 'red', shape: 'diamond' }] } },
    { player: 1, move: { type: 'place', pieces: [{ x: 0, y: 1, color: 'blue', shape: 'circle' }, { x: 0, y: 2, color: 'green', shape: 'circle' }] } },
    { player: 0, move: { type: 'place', pieces: [{ x: 3, y: 0, color: 'red', shape: 'circle' }] } },
    { player: 0, move: { type: 'place', pieces: [{ x: 3, y: 0, color: 'red', shape: 'star8' }] } },
    { player: 1, move: { type: 'reroll' } },
    { player: 0, move: { type: 'place', pieces: [{ x: 1, y: 1, color: 'blue', shape: 'square' }] } },
  ];
  const recFile = path.join(tmp, 'match.jsonl');
  fs.writeFileSync(recFile, record.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const histDb = path.join(tmp, 'history.db');
  let ids;
  try {
    execFileSync(a.tablecam, ['import', '--game', 'qwirkle', '--db', histDb, recFile], { stdio: 'pipe' });
    const other = path.join(tmp, 'other.jsonl');
    fs.writeFileSync(other, [{ game: 'qwirkle', players: ['Cy', 'Dee'], options: {} },
      { player: 0, move: { type: 'place', pieces: [{ x: 0, y: 0, color: 'purple', shape: 'clover' }] } }]
      .map((r) => JSON.stringify(r)).join('\n') + '\n');
    execFileSync(a.tablecam, ['import', '--game', 'qwirkle', '--db', histDb, other], { stdio: 'pipe' });
    ids = JSON.parse(execFileSync(a.tablecam, ['matches', '--db', histDb, '--json'], { encoding: 'utf8' })
      .trim().split('\n').map((l) => JSON.parse(l)).length);
  } catch (e) {
    fail('tablecam import failed: ' + (e.stderr ? e.stderr.toString() : e.message));
  }

  let serve, driver, demo;
  try {
    serve = await startServer('tablecam serve', a.tablecam, ['serve', '--db', histDb, '--http', '127.0.0.1:0'], children);
    driver = await startServer('live_driver', a.driver, ['--db', path.join(tmp, 'live.db')], children);
    /* The real demo: simulated camera, recognition, referee, store. */
    demo = await startDemo(a.tablecam, ['demo', '--seed', '7', '--moves', '3', '--http', '127.0.0.1:0',
      '--db', path.join(tmp, 'demo.db'), '--hold'], children);
  } catch (e) {
    cleanup();
    fail(e.message);
  }

  const test = require('./web_test.js');
  let result;
  try {
    result = await test.run({
      playwright: require(pw),
      chromium,
      userDataDir: fs.mkdtempSync(path.join(tmp, 'chromium-')),
      historyUrl: serve.url,
      liveUrl: driver.url,
      demoUrl: demo.url,
      send: driverChannel(driver),
      out: a.out,
      matches: ids,
    });
  } catch (e) {
    result = { passed: 0, failed: 1 };
    console.error('web_browser: ' + (e.stack || e));
  }
  cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
  console.log(`${result.passed} passed, ${result.failed} failed`);
  process.exit(result.failed ? 1 : 0);
}

main();
