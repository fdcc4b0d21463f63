/* tablecam web app: the live page (camera, scoreboard, moves, alert, the
 * referee's questions with one-tap answers, turn signals, corrections) and
 * the match history (list, replay, score chart).
 * No framework and nothing from elsewhere: the server's JSON API
 * (docs/web.md), server-sent events for what happens live, and the DOM. */
'use strict';

(() => {
  const GAMES = ['qwirkle', 'cards', 'cube2', 'stack4', 'cubed'];
  const COLORS = ['#e8b23a', '#4fa3e0', '#e05a8a', '#6cc070', '#b07ce0', '#e0884f', '#9aa5b1', '#f06292'];
  const SIGNAL_LABELS = { pass: 'Pass', reroll: 'Re-roll', draw: 'Draw' };

  /* With a token, the page came as /?token=T: every request carries it. */
  const token = new URLSearchParams(location.search).get('token') || '';
  const withToken = (url) =>
    token ? url + (url.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : url;

  async function api(path, opts = {}) {
    const headers = {};
    if (token) headers.Authorization = 'Bearer ' + token;
    let body;
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(path, { method: opts.method || 'GET', headers, body, cache: 'no-store' });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error((data && data.error) || res.status + ' ' + res.statusText);
      err.status = res.status;
      throw err;
    }
    return data;
  }

  /* el('div', {class: 'x', onclick: f}, child, 'text', ...) */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k === 'hidden') e.hidden = true;
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function svgEl(tag, attrs, ...children) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }

  const view = document.getElementById('view');
  const playerColor = (i) => COLORS[i % COLORS.length];
  const fmtTime = (iso) => {
    if (!iso) return '';
    const d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString();
  };

  /* ---- moves in words ---- */

  function pieceText(p) {
    if (typeof p === 'string') return p;
    if (Array.isArray(p)) return p.join('/');
    if (!p || typeof p !== 'object') return '?';
    const words = [];
    for (const [k, v] of Object.entries(p)) {
      if (typeof v === 'string' && k !== 'player') words.push(v);
      if (k === 'player' && typeof v === 'string') words.unshift(v);
    }
    if (Array.isArray(p.faces)) words.push(p.faces.join('/'));
    const at = [['x', 'y'], ['col', 'row'], ['q', 'r']].find(([a, b]) => typeof p[a] === 'number' && typeof p[b] === 'number');
    let s = words.join(' ');
    if (at) s += ' @' + p[at[0]] + ',' + p[at[1]];
    else if (Array.isArray(p.cells) && p.cells.length) s += ' @' + p.cells[0].join(',');
    return s;
  }

  function moveText(m) {
    if (!m || typeof m !== 'object') return '';
    const parts = [m.type || '?'];
    if (Array.isArray(m.pieces)) parts.push(m.pieces.map(pieceText).join(', '));
    if (Array.isArray(m.from)) parts.push(m.from.join(',') + ' \u2192 ' + (Array.isArray(m.to) ? m.to.join(',') : m.to));
    return parts.join(' ');
  }

  function verdictCell(e) {
    switch (e.kind) {
      case 'illegal': return el('span', { class: 'bad', text: '\u2717 ' + (e.rule || 'illegal') });
      case 'takeback': return el('span', { class: 'muted', text: 'taken back' });
      case 'confirm': return el('span', { class: 'warn', text: e.question ? '? asked' : '? unclear' });
      case 'restored': return el('span', { class: 'muted', text: 'table restored' });
      case 'corrected': return el('span', { class: 'good', text: '\u270e corrected' });
      case 'game-over': return el('span', { class: 'good', text: 'game over' });
      default:
        if (e.legal === false) return el('span', { class: 'bad', text: '\u2717 ' + (e.rule || 'illegal') });
        return el('span', { class: 'good', text: '\u2713 legal' });
    }
  }

  /* ---- sound: a few beeps made with the Web Audio API ---- */

  const sound = { ctx: null, button: document.getElementById('sound') };

  function soundState() {
    const on = sound.ctx && sound.ctx.state === 'running';
    sound.button.textContent = on ? 'Sound on' : 'Enable sound';
    sound.button.classList.toggle('on', !!on);
    return on;
  }

  function unlockSound() {
    try {
      if (!sound.ctx) sound.ctx = new (window.AudioContext || window.webkitAudioContext)();
      if (sound.ctx.state !== 'running') sound.ctx.resume().then(soundState, soundState);
    } catch (e) { sound.ctx = null; }
    soundState();
  }

  function beep() {
    document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
    if (!soundState()) return;
    const ctx = sound.ctx, t0 = ctx.currentTime;
    for (let i = 0; i < 3; i++) {
      const osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.type = 'square';
      osc.frequency.setValueAtTime(i % 2 ? 660 : 880, t0 + i * 0.22);
      gain.gain.setValueAtTime(0.0001, t0 + i * 0.22);
      gain.gain.exponentialRampToValueAtTime(0.25, t0 + i * 0.22 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + i * 0.22 + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + i * 0.22);
      osc.stop(t0 + i * 0.22 + 0.2);
    }
  }

  sound.button.addEventListener('click', unlockSound);
  /* Browsers start audio only after a gesture: the first tap anywhere. */
  document.addEventListener('pointerdown', () => { if (!sound.ctx) unlockSound(); }, { once: true });
  try {
    sound.ctx = new (window.AudioContext || window.webkitAudioContext)();
  } catch (e) { sound.ctx = null; }
  soundState();

  /* ---- live state: /api/live, then pushed events ---- */

  const live = { doc: null, events: [], lastId: 0, es: null, loaded: false, error: null };
  const alertBox = document.getElementById('alert');
  const alertText = document.getElementById('alert-text');

  function showAlert(a) {
    /* A question has its own banner, with the answers to tap. */
    if (!a || a.question) {
      alertBox.hidden = true;
      document.body.classList.remove('alerting');
      return;
    }
    const title = a.kind === 'confirm' ? 'Check the table' : 'Illegal move';
    alertBox.querySelector('.alert-title').textContent =
      title + (typeof a.player === 'number' ? ' \u2014 ' + playerName(a.player) : '');
    const lines = [a.text || a.reason || ''];
    if (a.reason && a.text && !a.text.includes(a.reason)) lines.push(a.reason);
    if (a.kind === 'illegal') lines.push('Put the table back as it was before this move.');
    alertText.textContent = lines.filter(Boolean).map((l) => (/[.!?]$/.test(l) ? l : l + '.')).join(' ');
    alertBox.hidden = false;
    document.body.classList.add('alerting');
  }

  const noticeBox = document.getElementById('notice');
  function showNotice(text) {
    noticeBox.textContent = text ? 'Camera: ' + text + (/[.!?]$/.test(text) ? '' : '.') : '';
    noticeBox.hidden = !text;
  }

  /* ---- the referee's question: one big button an answer ---- */

  const questionBox = document.getElementById('question');
  const question = { id: 0, sending: false };

  function questionStatus(text, bad) {
    const s = document.getElementById('question-status');
    s.textContent = text;
    s.classList.toggle('bad', !!bad);
  }

  async function answerQuestion(q, k, label, button) {
    if (question.sending) return;
    question.sending = true;
    const buttons = questionBox.querySelectorAll('button');
    buttons.forEach((b) => { b.disabled = true; });
    button.classList.add('chosen');
    questionStatus('Sending\u2026');
    try {
      await api('/api/answer', { method: 'POST', body: { question: q.id, answer: k } });
      if (question.id === q.id) questionStatus('Sent: ' + label + '. The referee judges the table again.');
    } catch (e) {
      if (question.id !== q.id) return;
      button.classList.remove('chosen');
      buttons.forEach((b) => { b.disabled = false; });
      questionStatus(e.message, true);
    } finally {
      question.sending = false;
    }
  }

  /* Shows question q (null: none is open).  The same question again keeps
   * what was tapped; another replaces it. */
  function showQuestion(q) {
    if (!q || typeof q.id !== 'number') {
      question.id = 0;
      questionBox.hidden = true;
      document.body.classList.remove('asking');
      return;
    }
    if (q.id === question.id && !questionBox.hidden) return;
    question.id = q.id;
    const game = live.doc && live.doc.game;
    const noun = game === 'qwirkle' ? 'cube' : game === 'cards' ? 'card' : 'piece';
    document.getElementById('question-text').textContent = q.text || 'Which piece is this?';
    const answers = (q.answers || []).map((a, k) => {
      const pct = typeof a.p === 'number' ? Math.round(a.p * 100) + ' %' : '';
      const b = el('button', { type: 'button', class: 'answer', 'data-answer': k },
        el('span', { class: 'answer-label', text: a.label || pieceText(a.piece) }),
        pct ? el('span', { class: 'answer-p', text: pct }) : null);
      b.addEventListener('click', () => answerQuestion(q, k, a.label || pieceText(a.piece), b));
      return b;
    });
    if (q.none) {
      const label = 'No ' + noun + ' there';
      const b = el('button', { type: 'button', class: 'answer answer-none', 'data-answer': -1 },
        el('span', { class: 'answer-label', text: label }));
      b.addEventListener('click', () => answerQuestion(q, -1, label.toLowerCase(), b));
      answers.push(b);
    }
    document.getElementById('question-answers').replaceChildren(...answers);
    questionStatus('');
    questionBox.hidden = false;
    document.body.classList.add('asking');
  }

  function playerName(i) {
    const p = live.doc && live.doc.players;
    return p && p[i] !== undefined ? p[i] : 'Player ' + (i + 1);
  }

  function onEvent(ev) {
    if (typeof ev.id === 'number' && ev.id <= live.lastId) return;
    if (typeof ev.id === 'number') live.lastId = ev.id;
    live.events.push(ev);
    if (live.events.length > 500) live.events.shift();
    if (ev.kind === 'illegal' || ev.kind === 'confirm') {
      showAlert(ev);
      beep();
    } else {
      showAlert(null);
    }
    /* Whatever follows a question settles it; a new one replaces it. */
    showQuestion(ev.kind === 'confirm' ? ev.question || null : null);
    if (route().name === 'live') renderMoves();
  }

  function onLive(doc) {
    if (doc.camera && camImg && !camImg.classList.contains('has-frame')) reloadCamera();
    live.doc = doc;
    showAlert(doc.alert || null);
    showNotice(doc.notice || null);
    showQuestion(doc.question || null);
    if (route().name === 'live') renderLiveState();
  }

  function setConn(ok) {
    document.body.classList.toggle('offline', !ok);
  }

  async function startLive() {
    try {
      const doc = await api('/api/live');
      live.events = doc.events || [];
      live.lastId = doc.last_id || 0;
      delete doc.events;
      live.doc = doc;
      live.loaded = true;
      live.error = null;
      showAlert(doc.alert || null);
      showNotice(doc.notice || null);
      showQuestion(doc.question || null);
    } catch (e) {
      live.error = e;
      live.loaded = true;
      render();
      if (e.status === 401) return;
      setTimeout(startLive, 3000);
      return;
    }
    render();
    const es = new EventSource(withToken('/api/events?since=' + live.lastId));
    live.es = es;
    es.addEventListener('event', (m) => { try { onEvent(JSON.parse(m.data)); } catch (e) { /* a bad line */ } });
    es.addEventListener('live', (m) => { try { onLive(JSON.parse(m.data)); } catch (e) { /* a bad line */ } });
    es.addEventListener('open', () => setConn(true));
    es.addEventListener('error', () => setConn(false));
  }

  /* ---- routes: #/ live, #/history?game=&player=, #/match/ID[/SEQ] ---- */

  function route() {
    const h = location.hash.replace(/^#/, '') || '/';
    const [path, query] = h.split('?');
    const params = new URLSearchParams(query || '');
    let m;
    if ((m = path.match(/^\/match\/(\d+)(?:\/(\d+))?$/))) return { name: 'match', id: +m[1], seq: m[2] === undefined ? null : +m[2] };
    if (path === '/history') return { name: 'history', params };
    return { name: 'live' };
  }

  function render() {
    const r = route();
    document.getElementById('nav-live').classList.toggle('active', r.name === 'live');
    document.getElementById('nav-history').classList.toggle('active', r.name !== 'live');
    if (r.name === 'live') renderLive();
    else if (r.name === 'history') renderHistory(r.params);
    else renderMatch(r.id, r.seq);
  }

  function errorBox(e) {
    if (e && e.status === 401)
      return el('div', { class: 'card error' }, el('h2', { text: 'This server needs its access token' }),
        el('p', { text: 'Open the address you were given, the one that ends in ?token=\u2026' }));
    return el('div', { class: 'card error', text: String(e && e.message || e) });
  }

  /* ---- the live page ---- */

  let camImg = null;
  function camera() {
    if (camImg) return camImg;
    const wrap = el('div', { class: 'camera' });
    const img = el('img', { alt: 'The table, as the camera sees it, with the recognised pieces', id: 'camera' });
    const none = el('div', { class: 'camera-none', text: 'No camera picture yet' });
    /* A multipart stream may never fire 'load': look for a decoded frame. */
    img.addEventListener('load', () => wrap.classList.add('has-frame'));
    setInterval(() => {
      if (img.naturalWidth > 0 && !wrap.classList.contains('has-frame')) wrap.classList.add('has-frame');
    }, 500);
    /* No picture yet (404) or the stream broke: try again a little later,
     * or as soon as the live state says there is a picture. */
    img.addEventListener('error', () => {
      wrap.classList.remove('has-frame');
      clearTimeout(camRetry);
      camRetry = setTimeout(reloadCamera, 5000);
    });
    img.src = withToken('/api/frame.mjpg');
    wrap.append(img, none);
    camImg = wrap;
    return wrap;
  }
  let camRetry = null;
  function reloadCamera() {
    if (!camImg) return;
    clearTimeout(camRetry);
    camImg.querySelector('img').src = withToken('/api/frame.mjpg?t=' + Date.now());
  }

  function renderLive() {
    view.replaceChildren();
    if (!live.loaded) { view.append(el('p', { class: 'muted', text: 'Loading\u2026' })); return; }
    if (live.error) { view.append(errorBox(live.error)); return; }
    view.append(el('section', { class: 'live-grid' },
      el('div', { class: 'live-main' }, camera(), el('div', { id: 'moves', class: 'card moves' })),
      el('div', { class: 'live-side' },
        el('div', { id: 'scoreboard', class: 'card scoreboard' }),
        el('div', { id: 'signals', class: 'card signals' }),
        el('div', { id: 'corrections', class: 'card corrections' }))));
    renderLiveState();
    renderMoves();
  }

  function renderLiveState() {
    const board = document.getElementById('scoreboard');
    if (!board) return;
    const d = live.doc || {};
    board.replaceChildren();
    if (!d.live) {
      board.append(el('h2', { text: 'No game right now' }),
        el('p', { class: 'muted', text: 'No game is being refereed. Past games are in the ' },
          el('a', { href: '#/history', text: 'history' }), '.'));
    } else {
      const players = d.players || [];
      board.append(el('h2', {},
        el('span', { class: 'game-name', text: d.game || 'game' }),
        d.match ? el('a', { class: 'small', href: '#/match/' + d.match, text: ' match ' + d.match }) : null,
        d.round && d.round > 1 ? el('span', { class: 'small', text: ' round ' + d.round }) : null));
      const list = el('ol', { class: 'players' });
      players.forEach((name, i) => {
        const turn = !d.over && d.to_move === i;
        const won = d.over && (d.winners || []).includes(i);
        list.append(el('li', { class: 'player' + (turn ? ' to-move' : '') + (won ? ' winner' : ''), 'data-seat': i },
          el('span', { class: 'swatch swatch-' + (i % COLORS.length) }),
          el('span', { class: 'name', text: name }),
          el('span', { class: 'score', text: (d.scores || [])[i] ?? 0 })));
      });
      board.append(list);
      let turnText;
      if (d.over) {
        const w = (d.winners || []).map((i) => players[i]);
        turnText = 'Game over' + (w.length ? ' \u2014 ' + w.join(' and ') + (w.length > 1 ? ' win' : ' wins') : '');
      } else {
        turnText = (players[d.to_move] || 'Player ' + ((d.to_move || 0) + 1)) + '\u2019s turn';
      }
      board.append(el('div', { id: 'turn', class: 'turn' + (d.over ? ' over' : ''), text: turnText }));
      const extras = [];
      if (typeof d.bag === 'number' && d.bag >= 0) extras.push(d.bag + ' in the bag');
      if (typeof d.moves === 'number') extras.push(d.moves + (d.moves === 1 ? ' move' : ' moves'));
      if (extras.length) board.append(el('p', { class: 'muted small', text: extras.join(' \u00b7 ') }));
    }
    renderSignals();
    renderCorrections();
  }

  function status(box, text, bad) {
    let s = box.querySelector('.status');
    if (!s) { s = el('p', { class: 'status' }); box.append(s); }
    s.textContent = text;
    s.classList.toggle('bad', !!bad);
  }

  async function act(box, path, body, done) {
    status(box, 'Sending\u2026');
    try {
      await api(path, { method: 'POST', body });
      status(box, done);
    } catch (e) {
      status(box, e.message, true);
    }
  }

  function renderSignals() {
    const box = document.getElementById('signals');
    if (!box) return;
    const d = live.doc || {};
    const sigs = d.signals || [];
    box.replaceChildren();
    box.hidden = !(d.live && d.controls && sigs.length && !d.over);
    if (box.hidden) return;
    box.append(el('h2', { text: 'Turns the camera cannot see' }));
    (d.players || []).forEach((name, i) => {
      box.append(el('div', { class: 'signal-row' + (d.to_move === i ? ' to-move' : '') },
        el('span', { class: 'name', text: name }),
        sigs.map((t) => el('button', {
          class: 'big', type: 'button', 'data-player': i, 'data-type': t,
          text: SIGNAL_LABELS[t] || t,
          onclick: () => act(box, '/api/signal', { player: i, type: t }, name + ': ' + (SIGNAL_LABELS[t] || t) + ' sent'),
        }))));
    });
  }

  function lastMove() {
    for (let i = live.events.length - 1; i >= 0; i--)
      if (live.events[i].move && (live.events[i].kind === 'move' || live.events[i].kind === 'corrected'))
        return live.events[i];
    return null;
  }

  function renderCorrections() {
    const box = document.getElementById('corrections');
    if (!box) return;
    const d = live.doc || {};
    box.replaceChildren();
    box.hidden = !(d.live && d.controls);
    if (box.hidden) return;
    const form = el('form', { class: 'fix', hidden: true });
    const area = el('textarea', { rows: 6, spellcheck: 'false', 'aria-label': 'The last move as JSON' });
    form.append(el('label', { text: 'The last move, as it really was (JSON):' }), area,
      el('div', { class: 'row' },
        el('button', { type: 'submit', class: 'primary', text: 'Save correction' }),
        el('button', { type: 'button', text: 'Cancel', onclick: () => { form.hidden = true; } })));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      let move;
      try { move = JSON.parse(area.value); } catch (e) { status(box, 'That is not valid JSON: ' + e.message, true); return; }
      act(box, '/api/correct', { move }, 'Correction sent');
      form.hidden = true;
    });
    box.append(el('h2', { text: 'Corrections' }),
      el('div', { class: 'row' },
        el('button', {
          type: 'button', class: 'big', id: 'undo', text: 'Undo last move',
          onclick: () => { if (confirm('Undo the last move?')) act(box, '/api/undo', {}, 'Undo sent'); },
        }),
        el('button', {
          type: 'button', class: 'big', id: 'fix', text: 'Fix a misread',
          onclick: () => {
            const m = lastMove();
            area.value = m ? JSON.stringify(m.move, null, 1) : '{"type":"place","pieces":[]}';
            form.hidden = false;
            area.focus();
          },
        })),
      form);
  }

  function renderMoves() {
    const box = document.getElementById('moves');
    if (!box) return;
    box.replaceChildren(el('h2', { text: 'Moves' }));
    if (!live.events.length) { box.append(el('p', { class: 'muted', text: 'No moves yet.' })); return; }
    const tbody = el('tbody');
    for (let i = live.events.length - 1; i >= 0; i--) {
      const e = live.events[i];
      tbody.append(el('tr', { class: 'ev-' + e.kind },
        el('td', { class: 'num', text: e.seq || '' }),
        el('td', {}, typeof e.player === 'number' ? el('span', { class: 'who who-' + (e.player % COLORS.length), text: playerName(e.player) }) : ''),
        el('td', { class: 'what' }, el('div', { text: e.text || moveText(e.move) }),
          e.move && e.text ? el('div', { class: 'muted small', text: moveText(e.move) }) : null,
          e.reason && !(e.text || '').includes(e.reason) ? el('div', { class: 'bad small', text: e.reason }) : null),
        el('td', {}, verdictCell(e)),
        el('td', { class: 'num', text: e.kind === 'move' || e.kind === 'corrected' ? '+' + (e.points || 0) : '' })));
    }
    box.append(el('table', { class: 'list' },
      el('thead', {}, el('tr', {}, ['#', 'Player', 'Move', 'Verdict', 'Points'].map((h) => el('th', { text: h })))),
      tbody));
  }

  /* ---- history ---- */

  async function renderHistory(params) {
    const game = params.get('game') || '', player = params.get('player') || '', state = params.get('state') || '';
    const gameSel = el('select', { name: 'game', 'aria-label': 'Game' },
      el('option', { value: '', text: 'All games' }),
      GAMES.map((g) => el('option', { value: g, text: g, selected: g === game })));
    const playerIn = el('input', { name: 'player', type: 'search', placeholder: 'Player', value: player, 'aria-label': 'Player' });
    const stateSel = el('select', { name: 'state', 'aria-label': 'State' },
      el('option', { value: '', text: 'Any state' }),
      ['live', 'finished', 'abandoned'].map((s) => el('option', { value: s, text: s, selected: s === state })));
    const form = el('form', { class: 'filters' }, gameSel, playerIn, stateSel,
      el('button', { type: 'submit', class: 'primary', text: 'Filter' }));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const q = new URLSearchParams();
      if (gameSel.value) q.set('game', gameSel.value);
      if (playerIn.value.trim()) q.set('player', playerIn.value.trim());
      if (stateSel.value) q.set('state', stateSel.value);
      location.hash = '#/history' + (q.toString() ? '?' + q : '');
    });
    gameSel.addEventListener('change', () => form.requestSubmit());
    stateSel.addEventListener('change', () => form.requestSubmit());
    const out = el('div', { class: 'card' }, el('p', { class: 'muted', text: 'Loading\u2026' }));
    view.replaceChildren(el('h1', { text: 'Match history' }), form, out);

    const q = new URLSearchParams();
    if (game) q.set('game', game);
    if (player) q.set('player', player);
    if (state) q.set('state', state);
    let data;
    try {
      data = await api('/api/matches' + (q.toString() ? '?' + q : ''));
    } catch (e) {
      out.replaceWith(errorBox(e));
      return;
    }
    if (route().name !== 'history') return;
    const matches = data.matches || [];
    if (!matches.length) { out.replaceChildren(el('p', { class: 'muted', text: 'No matches.' })); return; }
    const tbody = el('tbody');
    for (const m of matches) {
      const who = el('span', { class: 'who-list' });
      m.players.forEach((p, i) => {
        if (i) who.append(' v ');
        who.append(el('span', { class: (m.winners || []).includes(i) ? 'winner' : '', text: p + (m.scores ? ' ' + m.scores[i] : '') }));
      });
      tbody.append(el('tr', { class: 'match-row', 'data-id': m.id },
        el('td', { class: 'num' }, el('a', { href: '#/match/' + m.id, text: m.id })),
        el('td', {}, el('a', { href: '#/match/' + m.id, text: m.game })),
        el('td', {}, who),
        el('td', {}, el('span', { class: 'state state-' + m.state, text: m.state })),
        el('td', { class: 'small', text: fmtTime(m.started) }),
        el('td', { class: 'num', text: m.events })));
    }
    out.replaceChildren(el('table', { class: 'list' },
      el('thead', {}, el('tr', {}, ['#', 'Game', 'Players', 'State', 'Started', 'Moves'].map((h) => el('th', { text: h })))),
      tbody));
  }

  /* ---- one match, move by move ---- */

  const cache = { id: null, data: null };

  async function renderMatch(id, seq) {
    if (cache.id !== id) {
      view.replaceChildren(el('p', { class: 'muted', text: 'Loading match ' + id + '\u2026' }));
      try {
        cache.data = await api('/api/matches/' + id);
        cache.id = id;
      } catch (e) {
        view.replaceChildren(errorBox(e));
        return;
      }
      if (route().name !== 'match' || route().id !== id) return;
    }
    const { match, events, corrections } = cache.data;
    const n = events.length;
    const k = seq === null ? n : Math.max(0, Math.min(n, seq));
    const ev = k > 0 ? events[k - 1] : null;
    const go = (s) => { location.hash = '#/match/' + id + '/' + Math.max(0, Math.min(n, s)); };

    const head = el('div', { class: 'card match-head' },
      el('h1', {}, 'Match ' + match.id + ' \u00b7 ', el('span', { class: 'game-name', text: match.game })),
      el('ol', { class: 'players' }, match.players.map((p, i) =>
        el('li', { class: 'player' + ((match.winners || []).includes(i) ? ' winner' : '') },
          el('span', { class: 'swatch swatch-' + (i % COLORS.length) }),
          el('span', { class: 'name', text: p }),
          el('span', { class: 'score', text: (ev ? ev.scores : match.scores || [])[i] ?? 0 })))),
      el('p', { class: 'muted small', text: [match.state, 'started ' + fmtTime(match.started), match.ended ? 'ended ' + fmtTime(match.ended) : '', n + ' moves'].filter(Boolean).join(' \u00b7 ') }));

    const slider = el('input', { type: 'range', min: 0, max: n, value: k, id: 'seq', 'aria-label': 'Move' });
    slider.addEventListener('input', () => go(+slider.value));
    const controls = el('div', { class: 'replay-controls' },
      el('button', { type: 'button', title: 'Start', text: '\u00ab', onclick: () => go(0) }),
      el('button', { type: 'button', title: 'Previous move', id: 'prev', text: '\u25c0', onclick: () => go(k - 1) }),
      slider,
      el('button', { type: 'button', title: 'Next move', id: 'next', text: '\u25b6', onclick: () => go(k + 1) }),
      el('button', { type: 'button', title: 'End', text: '\u00bb', onclick: () => go(n) }),
      el('span', { id: 'seq-label', class: 'seq-label', text: 'Move ' + k + ' of ' + n }));

    let board;
    if (match.board_svg) {
      board = el('img', { class: 'board', id: 'board', alt: 'The board after move ' + k, src: withToken('/api/matches/' + id + '/board/' + k + '.svg') });
    } else {
      const pos = k > 0 ? ev.position : null;
      board = el('div', { class: 'board-list' }, el('p', { class: 'muted', text: 'No drawing for ' + match.game + ' yet; the pieces on the table:' }),
        el('ul', {}, (pos && pos.pieces || []).map((p) => el('li', { text: pieceText(p) }))));
    }
    const photoWrap = el('figure', { class: 'photo' });
    if (k > 0) {
      const img = el('img', { alt: 'The table at move ' + k, id: 'photo', src: withToken('/api/matches/' + id + '/snapshots/' + k + '.jpg') });
      img.addEventListener('error', () => photoWrap.replaceChildren(el('p', { class: 'muted', text: 'No photo of this move.' })));
      photoWrap.append(img, el('figcaption', { class: 'muted small', text: 'The camera\u2019s key frame' }));
    } else {
      photoWrap.append(el('p', { class: 'muted', text: 'Before the first move.' }));
    }

    const current = el('div', { class: 'card current', id: 'current' });
    if (ev) {
      current.append(...[el('h2', {}, 'Move ' + k + ': ', el('span', { class: 'who who-' + (ev.player % COLORS.length), text: match.players[ev.player] || 'Player ' + (ev.player + 1) })),
        el('p', { text: moveText(ev.move) }),
        el('p', {}, verdictCell({ kind: ev.legal ? 'move' : 'illegal', legal: ev.legal, rule: ev.rule }),
          ev.legal ? ' +' + ev.points + ' points' : ''),
        ev.reason ? el('p', { class: 'bad', text: ev.reason }) : null,
        ev.extra && ev.extra.note ? el('p', { class: 'muted', text: ev.extra.note }) : null].filter(Boolean));
    } else {
      current.append(el('h2', { text: 'Before the first move' }));
    }

    const tbody = el('tbody');
    events.forEach((e, i) => {
      tbody.append(el('tr', { class: (i + 1 === k ? 'current' : '') + (e.legal ? '' : ' ev-illegal'), 'data-seq': e.seq, onclick: () => go(e.seq) },
        el('td', { class: 'num', text: e.seq }),
        el('td', {}, el('span', { class: 'who who-' + (e.player % COLORS.length), text: match.players[e.player] || e.player })),
        el('td', { class: 'what', text: moveText(e.move) }),
        el('td', {}, verdictCell({ kind: e.legal ? 'move' : 'illegal', legal: e.legal, rule: e.rule })),
        el('td', { class: 'num', text: e.legal ? '+' + e.points : '' }),
        el('td', { class: 'num small', text: Array.isArray(e.scores) ? e.scores.join(' \u2013 ') : '' })));
    });

    const parts = [head, el('div', { class: 'card' }, controls,
      el('div', { class: 'replay-grid' }, el('div', { class: 'board-wrap' }, board), photoWrap)),
    current,
    el('div', { class: 'card' }, el('h2', { text: 'Scores over the game' }), scoreChart(match, events, k)),
    el('div', { class: 'card' }, el('h2', { text: 'Moves' }), el('table', { class: 'list moves-table' },
      el('thead', {}, el('tr', {}, ['#', 'Player', 'Move', 'Verdict', 'Points', 'Scores'].map((h) => el('th', { text: h })))), tbody))];
    if (corrections && corrections.length) {
      parts.push(el('div', { class: 'card' }, el('h2', { text: 'Corrections' }),
        el('ul', {}, corrections.map((c) => el('li', { text: 'move ' + c.seq + ': ' + c.field + ' ' + c.before + ' \u2192 ' + c.after + (c.note ? ' (' + c.note + ')' : '') })))));
    }
    view.replaceChildren(...parts);
    const cur = tbody.querySelector('tr.current');
    if (cur && seq !== null) cur.scrollIntoView({ block: 'nearest' });
  }

  /* Scores after each move, one line a player, with the replayed move marked. */
  function scoreChart(match, events, k) {
    const n = events.length, np = match.players.length;
    const series = match.players.map(() => [0]);
    events.forEach((e) => {
      for (let p = 0; p < np; p++) {
        const v = Array.isArray(e.scores) ? e.scores[p] : undefined;
        series[p].push(typeof v === 'number' ? v : series[p][series[p].length - 1]);
      }
    });
    const W = 640, H = 220, L = 40, R = 12, T = 12, B = 28;
    const maxY = Math.max(1, ...series.flat());
    const x = (i) => L + (n ? (i * (W - L - R)) / n : 0);
    const y = (v) => T + (H - T - B) * (1 - v / maxY);
    const svg = svgEl('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart', id: 'chart', role: 'img', 'aria-label': 'Scores after each move' });
    const step = Math.max(1, Math.ceil(maxY / 5));
    for (let v = 0; v <= maxY; v += step) {
      svg.append(svgEl('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }),
        svgEl('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, v));
    }
    const xstep = Math.max(1, Math.ceil(n / 10));
    for (let i = 0; i <= n; i += xstep)
      svg.append(svgEl('text', { x: x(i), y: H - 8, 'text-anchor': 'middle', class: 'axis' }, i));
    svg.append(svgEl('line', { x1: x(k), x2: x(k), y1: T, y2: H - B, class: 'marker' }));
    series.forEach((s, p) => {
      svg.append(svgEl('polyline', { points: s.map((v, i) => x(i) + ',' + y(v)).join(' '), fill: 'none', stroke: playerColor(p), 'stroke-width': 2.5, class: 'series' }));
      svg.append(svgEl('circle', { cx: x(k), cy: y(s[k]), r: 4.5, fill: playerColor(p) }));
    });
    const legend = el('div', { class: 'legend' }, match.players.map((name, p) =>
      el('span', {}, el('span', { class: 'swatch swatch-' + (p % COLORS.length) }), name + ' ' + series[p][k])));
    return el('div', { class: 'chart-wrap' }, svg, legend);
  }

  /* ---- start ---- */

  document.addEventListener('keydown', (ev) => {
    const r = route();
    if (r.name !== 'match' || ev.target.closest('input, textarea, select')) return;
    const n = cache.data ? cache.data.events.length : 0;
    const k = r.seq === null ? n : r.seq;
    if (ev.key === 'ArrowLeft') location.hash = '#/match/' + r.id + '/' + Math.max(0, k - 1);
    if (ev.key === 'ArrowRight') location.hash = '#/match/' + r.id + '/' + Math.min(n, k + 1);
  });
  window.addEventListener('hashchange', render);
  render();
  startLive();
})();
