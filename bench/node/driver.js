// Load driver of the peer's shape for Tabula's game socket: N concurrent four-seat race35
// games, each played to its end over one WebSocket (the referee's, which acts for every
// seat) and replaced by a new one until the time is up; prints moves/s, the latency of a
// move (from sending `play` until its `played` reply) and the server's CPU per move, in the
// columns of the peer benchmark's driver.js (../shared/peer-bench, `--mode wire`).
//
//   node --experimental-websocket bench/node/driver.js --url http://127.0.0.1:PORT
//        [--clients 8 32] [--seconds 8] [--players 4] [--seats] [--server-pid PID]
//        [--label TEXT]
//
// A game: POST /games, GET /games/{id}/legal-moves (keep-alive HTTP), then the socket's
// hello as the referee, then a random legal move each turn (`play` with the move, its seat
// and the expected version), the next one sent when the reply's legal moves are in, then
// the socket closed. The peer's wire mode is the same shape: one socket.io connection per
// match, one emitted `update` per move, the next sent on the server's answer.
//
// --seats: every seat of each game also has a socket of its own (its seat's token) that
// listens, as four players in four browsers would (the peer's `clients` mode shape): the
// server pushes each move's events to the four of them besides answering the referee's.
// Printed after the figures: the events pushed to the seats' sockets.
//
// cpu ms/move: the server's CPU (user + system, /proc/PID/stat, its workers included) over
// the whole run of one size (game creation included) per move; clients ms: this process's.
// Needs Node 20 or later (the WebSocket client behind --experimental-websocket; built in
// from Node 22): no packages to install.

'use strict';

const { execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const fs = require('node:fs');
const http = require('node:http');

const STALL_MS = 10000; // a move unanswered this long abandons its game (counted)

function options(argv) {
  const opts = { url: null, clients: [8, 32], seconds: 8, players: 4, serverPid: 0, label: '' };
  opts.seats = false;
  for (let i = 2; i < argv.length; i += 1) {
    const name = argv[i];
    const values = [];
    while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) values.push(argv[(i += 1)]);
    if (name === '--url') [opts.url] = values;
    else if (name === '--clients') opts.clients = values.map(Number);
    else if (name === '--seconds') opts.seconds = Number(values[0]);
    else if (name === '--players') opts.players = Number(values[0]);
    else if (name === '--server-pid') opts.serverPid = Number(values[0]);
    else if (name === '--label') opts.label = values.join(' ');
    else if (name === '--seats') opts.seats = true;
    else throw new Error(`unknown option ${name}`);
  }
  if (!opts.url) throw new Error('--url http://127.0.0.1:PORT is required');
  if (typeof WebSocket === 'undefined') {
    throw new Error('no WebSocket client: run node with --experimental-websocket (Node 20-21)');
  }
  return opts;
}

const agent = new http.Agent({ keepAlive: true });

function call(method, url, body, token) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    if (token) headers.authorization = `Bearer ${token}`;
    const request = http.request(url, { method, agent, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => {
        if (response.statusCode >= 300) {
          reject(new Error(`${method} ${url} answered ${response.statusCode}: ${text}`));
        } else {
          resolve(JSON.parse(text));
        }
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

async function createGame(url, players) {
  const seats = Array.from({ length: players }, (_, seat) => ({ name: `P${seat}` }));
  const created = await call('POST', `${url}/games`, { ruleset: 'race35', seats });
  const token = created.tokens.referee;
  const legal = await call('GET', `${url}/games/${created.id}/legal-moves`, undefined, token);
  return { id: created.id, token, legal, seats: created.tokens.seats };
}

function socketOf(url, game, token, onMessage) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/games/${game.id}/socket`);
  socket.onopen = () => socket.send(JSON.stringify({ type: 'hello', token, after: 0 }));
  socket.onmessage = onMessage;
  return socket;
}

// A listening socket for each seat of ``game``; resolves once every one is welcomed.
function listen(url, game, tally) {
  return Promise.all(
    game.seats.map(
      (token) =>
        new Promise((resolve) => {
          const socket = socketOf(url, game, token, (frame) => {
            const message = JSON.parse(frame.data);
            if (message.type === 'welcome') resolve(socket);
            else if (message.type === 'events') tally.pushed += message.events.length;
          });
          socket.onerror = () => resolve(socket);
        })
    )
  );
}

// One game over its own socket. Resolves when the game is over, the deadline has passed
// (no move is sent after it) or a move stalled.
function playOverSocket(url, game, deadline, tally) {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/games/${game.id}/socket`);
    let legal = game.legal;
    let pending = null; // { ref, began }
    let refs = 0;
    let done = false;
    let stallTimer = null;

    const finish = (stalled) => {
      if (done) return;
      done = true;
      clearTimeout(stallTimer);
      if (stalled) tally.stalls += 1;
      socket.close();
      resolve();
    };

    const send = () => {
      if (!legal.moves.length) {
        tally.games += 1;
        finish(false);
        return;
      }
      if (performance.now() >= deadline) {
        finish(false);
        return;
      }
      const move = legal.moves[Math.floor(Math.random() * legal.moves.length)];
      refs += 1;
      pending = { ref: String(refs), began: performance.now() };
      stallTimer = setTimeout(() => finish(true), STALL_MS);
      const message = { type: 'play', ref: pending.ref, move: move.id, seat: move.seat };
      message.expected_version = legal.version;
      socket.send(JSON.stringify(message));
    };

    socket.onopen = () => {
      socket.send(JSON.stringify({ type: 'hello', token: game.token, after: 0 }));
    };
    socket.onmessage = (frame) => {
      const message = JSON.parse(frame.data);
      if (message.type === 'welcome') {
        clearTimeout(stallTimer);
        send();
        return;
      }
      if (done || !pending || message.ref !== pending.ref) return; // the first events' push
      if (message.type !== 'played') {
        console.error(`a play was refused: ${frame.data}`);
        finish(true);
        return;
      }
      tally.latencies.push(performance.now() - pending.began);
      clearTimeout(stallTimer);
      pending = null;
      legal = message.legal_moves;
      send();
    };
    socket.onerror = () => finish(true);
    socket.onclose = () => finish(!done);
    stallTimer = setTimeout(() => finish(true), STALL_MS);
  });
}

async function worker(opts, deadline, tally) {
  while (performance.now() < deadline) {
    const game = await createGame(opts.url, opts.players);
    const seats = opts.seats ? await listen(opts.url, game, tally) : [];
    await playOverSocket(opts.url, game, deadline, tally);
    for (const socket of seats) socket.close();
  }
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

function processSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(/\s+/);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime + stime
}

function children(pid) {
  const found = [];
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) found.push(...text.split(/\s+/).map(Number));
    } catch {
      // the thread ended meanwhile
    }
  }
  return found;
}

// The server's CPU seconds so far: the process and its live workers (as bench/harness.py's
// service_cpu_seconds counts them).
function cpuSeconds(pid) {
  if (!pid) return NaN;
  let spent = processSeconds(pid);
  for (const child of children(pid)) {
    try {
      spent += processSeconds(child);
    } catch {
      // ended meanwhile
    }
  }
  return spent;
}

function percentile(values, fraction) {
  if (!values.length) return NaN;
  const ordered = Float64Array.from(values).sort();
  return ordered[Math.min(ordered.length - 1, Math.floor(fraction * ordered.length))];
}

async function runSize(opts, clients) {
  const tally = { latencies: [], games: 0, stalls: 0, pushed: 0 };
  const serverBefore = cpuSeconds(opts.serverPid);
  const mineBefore = process.cpuUsage();
  const began = performance.now();
  const deadline = began + opts.seconds * 1000;
  await Promise.all(Array.from({ length: clients }, () => worker(opts, deadline, tally)));
  const elapsed = (performance.now() - began) / 1000;
  const server = cpuSeconds(opts.serverPid) - serverBefore;
  const mineUsage = process.cpuUsage(mineBefore);
  const mine = (mineUsage.user + mineUsage.system) / 1e6;
  const moves = tally.latencies.length;
  const per = (seconds) => (1000 * seconds) / Math.max(moves, 1);
  const cells = [
    String(clients).padStart(7),
    String(moves).padStart(6),
    (moves / opts.seconds).toFixed(0).padStart(8),
    percentile(tally.latencies, 0.5).toFixed(1).padStart(7),
    percentile(tally.latencies, 0.99).toFixed(1).padStart(7),
    String(tally.games).padStart(5),
    per(server).toFixed(2).padStart(11),
    per(mine).toFixed(2).padStart(10),
    String(tally.stalls).padStart(6),
    elapsed.toFixed(1).padStart(7),
  ];
  console.log(`${cells.join('  ')}  ${opts.label}`);
  if (opts.seats) console.log(`        events pushed to the seats' sockets: ${tally.pushed}`);
}

async function main() {
  const opts = options(process.argv);
  console.log(`Tabula socket: ${opts.players}-seat race35 games, ${opts.seconds} s per size`);
  console.log(
    'clients   moves   moves/s  p50 ms   p99 ms  games  cpu ms/move  clients ms  stalls  wall s'
  );
  for (const clients of opts.clients) await runSize(opts, clients);
  agent.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
