/* tests/web/web_test.js: the web app as a player and an organiser use it,
 * in headless chromium.  Live: the scoreboard follows the referee, an
 * illegal move raises the red banner and beeps, the turn-signal and undo
 * buttons reach the referee, a question of the referee shows its answers
 * as big buttons and a tap answers it.  History: the list, a filter, a match replayed
 * move by move with its board, photo slot and score chart.  Screenshots go
 * to opts.out for a person to look at.  Called by run.js. */
'use strict';

const path = require('path');

const T = 10000; /* ms: the longest any one thing may take to show */

async function run(opts) {
  const { chromium } = opts.playwright;
  let passed = 0, failed = 0;
  const ctx = await chromium.launchPersistentContext(opts.userDataDir, {
    executablePath: opts.chromium,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--autoplay-policy=no-user-gesture-required'],
    viewport: { width: 1280, height: 900 },
    timeout: 60000,
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  page.setDefaultTimeout(T);
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('dialog', (d) => d.accept());
  const shot = async (name) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(opts.out, name + '.png'), fullPage: true });
  };

  /* Steps of one story: after a failure the rest of that story is skipped. */
  async function story(name, steps) {
    for (const [what, fn] of steps) {
      try {
        await fn();
        passed++;
        console.log('ok   ' + name + ': ' + what);
      } catch (e) {
        failed++;
        console.log('FAIL ' + name + ': ' + what + '\n     ' + String(e.message || e).split('\n').slice(0, 6).join('\n     '));
        await shot('fail-' + name).catch(() => {});
        return;
      }
    }
  }

  const text = (sel) => page.locator(sel).first().innerText();
  const expectText = async (sel, re, what) => {
    try {
      await page.waitForFunction(([s, src]) => {
        const e = document.querySelector(s);
        return e && new RegExp(src).test(e.innerText);
      }, [sel, re.source], { timeout: T });
    } catch (e) {
      const got = await text(sel).catch(() => '(nothing there)');
      throw new Error(`${what}: expected ${sel} to match ${re}, it shows: ${JSON.stringify(got.slice(0, 300))}`);
    }
  };
  const score = (seat) => text(`#scoreboard .player[data-seat="${seat}"] .score`);
  const cube = (x, y, color, shape) => ({ x, y, color, shape });

  /* ---- live ---- */
  const t1 = [cube(0, 0, 'red', 'circle'), cube(1, 0, 'red', 'square')];
  await story('live', [
    ['the page loads with both players and whose turn', async () => {
      await page.goto(opts.liveUrl);
      await page.waitForSelector('#scoreboard .player[data-seat="1"]');
      await expectText('#scoreboard', /Ann[\s\S]*Bob/, 'players');
      await expectText('#turn', /Ann.s turn/, 'turn');
      if ((await score(0)) !== '0' || (await score(1)) !== '0') throw new Error('scores do not start at 0');
    }],
    ['the camera picture shows', async () => {
      const b64 = await page.evaluate(() => {
        const c = document.createElement('canvas');
        c.width = 320; c.height = 240;
        const g = c.getContext('2d');
        g.fillStyle = '#2d5a3a'; g.fillRect(0, 0, 320, 240);
        g.fillStyle = '#111'; g.fillRect(120, 90, 36, 36); g.fillRect(160, 90, 36, 36);
        g.fillStyle = '#e53935'; g.beginPath(); g.arc(138, 108, 11, 0, 7); g.fill(); g.fillRect(168, 98, 20, 20);
        g.strokeStyle = '#0f0'; g.lineWidth = 3; g.strokeRect(118, 88, 80, 40);
        return c.toDataURL('image/jpeg', 0.9).split(',')[1];
      });
      await opts.send({ frame: b64 });
      await page.waitForSelector('.camera.has-frame');
    }],
    ['advice about the camera stands under the header until it is cleared', async () => {
      if (await page.isVisible('#notice')) throw new Error('a notice shows before there is one');
      await opts.send({ notice: 'the symbols look blurred by 2.4 mm: focus the camera' });
      await page.waitForSelector('#notice:not([hidden])');
      await expectText('#notice', /^Camera: the symbols look blurred by 2\.4 mm: focus the camera\.$/, 'notice');
      if (await page.isVisible('#alert')) throw new Error('the camera advice raised the alert');
      await opts.send({ notice: null });
      await page.waitForSelector('#notice', { state: 'hidden' });
    }],
    ['a legal move updates the scoreboard and the moves', async () => {
      await opts.send({ table: t1 });
      await expectText('#scoreboard .player[data-seat="0"] .score', /^2$/, 'Ann\'s score');
      await expectText('#turn', /Bob.s turn/, 'turn');
      await expectText('#moves tbody tr', /legal[\s\S]*\+2/, 'move list');
    }],
    ['an illegal move raises the red banner and beeps', async () => {
      await opts.send({ table: [...t1, cube(2, 0, 'red', 'circle')] });
      await page.waitForSelector('#alert:not([hidden])');
      await expectText('#alert', /ILLEGAL MOVE/i, 'alert');
      const bg = await page.$eval('#alert', (e) => getComputedStyle(e).backgroundColor);
      const [r, g] = bg.match(/\d+/g).map(Number);
      if (!(r > 150 && g < 80)) throw new Error('the banner is not red: ' + bg);
      const box = await page.$eval('#alert', (e) => e.getBoundingClientRect().width);
      if (box < 1200) throw new Error('the banner is not full width: ' + box + ' px');
      const beeps = await page.evaluate(() => Number(document.body.dataset.beeps || 0));
      if (beeps < 1) throw new Error('no beep was made for the illegal move');
      await expectText('#moves tbody tr', /\u2717/, 'the illegal move in the list');
      await shot('live-alert');
    }],
    ['putting the table back clears the alert', async () => {
      await opts.send({ table: t1 });
      await page.waitForSelector('#alert', { state: 'hidden' });
      if ((await score(0)) !== '2') throw new Error('the illegal move changed the score');
    }],
    ['Bob\'s re-roll button reaches the referee', async () => {
      await page.click('#signals button[data-player="1"][data-type="reroll"]');
      await expectText('#turn', /Ann.s turn/, 'turn after the re-roll');
      await expectText('#moves tbody tr', /reroll|re-roll/i, 'the re-roll in the moves');
    }],
    ['undo takes the re-roll back', async () => {
      await page.click('#undo');
      await expectText('#turn', /Bob.s turn/, 'turn after the undo');
      await expectText('#moves tbody tr', /taken back/, 'the take-back in the moves');
      await shot('live');
    }],
    ['a question shows its answers as big buttons, and a tap answers it', async () => {
      const beeps0 = await page.evaluate(() => Number(document.body.dataset.beeps || 0));
      await opts.send({ ask: {
        id: 1, text: 'Is this cube at (2,0) a red diamond or a red star8?', none: true, x_mm: 120, y_mm: 80,
        answers: [{ label: 'red diamond', p: 0.55, piece: cube(2, 0, 'red', 'diamond') },
          { label: 'red star8', p: 0.3, piece: cube(2, 0, 'red', 'star8') }],
      } });
      await page.waitForSelector('#question:not([hidden])');
      await expectText('#question-text', /^Is this cube at \(2,0\) a red diamond or a red star8\?$/, 'the question');
      const buttons = await page.$$eval('#question-answers button', (bs) =>
        bs.map((b) => b.dataset.answer + ' ' + b.innerText.replace(/\s+/g, ' ').trim()));
      const want = ['0 red diamond 55 %', '1 red star8 30 %', '-1 No cube there'];
      if (JSON.stringify(buttons) !== JSON.stringify(want))
        throw new Error('the answers are ' + JSON.stringify(buttons) + ', not ' + JSON.stringify(want));
      if (await page.isVisible('#alert')) throw new Error('the question raised the red alert as well');
      if (await page.evaluate(() => Number(document.body.dataset.beeps || 0)) <= beeps0)
        throw new Error('no beep was made for the question');
      const top = await page.$eval('#question', (e) => e.getBoundingClientRect().top);
      const cam = await page.$eval('.camera', (e) => e.getBoundingClientRect().top);
      if (!(top < cam)) throw new Error('the question is not above the live view');
      await expectText('#moves tbody tr', /\? asked/, 'the question in the moves');
      await shot('live-question');
      await page.setViewportSize({ width: 390, height: 844 });
      const sizes = await page.$$eval('#question-answers button', (bs) => bs.map((b) => b.getBoundingClientRect()));
      if (sizes.some((r) => r.height < 48 || r.width < 300))
        throw new Error('the answers are too small to tap on a phone: ' + JSON.stringify(sizes.map((r) => [r.width, r.height])));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 2) throw new Error('the page with a question is wider than the phone by ' + overflow + ' px');
      await shot('live-question-phone');
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.click('#question-answers button[data-answer="1"]');
      await expectText('#question-status', /^Sent: red star8\b/, 'the banner after the tap');
      await opts.send({ expect_answer: [1, 1] });
      if (!(await page.isVisible('#question'))) throw new Error('the banner went before the referee judged again');
    }],
    ['the question goes when the referee has judged the table again', async () => {
      await opts.send({ table: [...t1, cube(2, 0, 'red', 'diamond')] });
      await page.waitForSelector('#question', { state: 'hidden' });
      await expectText('#scoreboard .player[data-seat="1"] .score', /^3$/, 'Bob\'s score');
    }],
    ['the page works on a phone', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      const w = await page.$eval('#signals button[data-type="reroll"]', (e) => e.getBoundingClientRect());
      if (w.height < 44) throw new Error('the signal buttons are too small to tap: ' + w.height + ' px');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 2) throw new Error('the page is wider than the phone by ' + overflow + ' px');
      await shot('live-phone');
      await page.setViewportSize({ width: 1280, height: 900 });
    }],
  ]);

  /* ---- history ---- */
  await story('history', [
    ['the match list shows every stored match', async () => {
      await page.goto(opts.historyUrl + '#/history');
      await page.waitForSelector('tr.match-row');
      const n = await page.locator('tr.match-row').count();
      if (n !== opts.matches) throw new Error(`${n} rows for ${opts.matches} stored matches`);
      await expectText('table.list', /Ann[\s\S]*Bob/, 'players in the list');
    }],
    ['filtering by player narrows the list', async () => {
      await page.fill('input[name=player]', 'Cy');
      await page.click('.filters button[type=submit]');
      await page.waitForFunction(() => document.querySelectorAll('tr.match-row').length === 1);
      await expectText('tr.match-row', /Cy/, 'the filtered row');
      await page.fill('input[name=player]', 'Ann');
      await page.click('.filters button[type=submit]');
      await expectText('tr.match-row', /Ann/, 'the filtered row');
      await shot('history');
    }],
    ['a match opens and replays move by move', async () => {
      await page.click('tr.match-row a');
      await page.waitForSelector('#seq-label');
      await expectText('#seq-label', /Move 6 of 6/, 'the replay starts at the end');
      await page.click('.replay-controls button[title=Start]');
      await expectText('#seq-label', /Move 0 of 6/, 'start');
      await page.click('#next');
      await expectText('#seq-label', /Move 1 of 6/, 'next');
      await expectText('#current', /Ann[\s\S]*place[\s\S]*\+3 points/, 'move 1 described');
      await page.waitForFunction(() => { const i = document.getElementById('board'); return i && i.complete && i.naturalWidth > 0; });
      const title = await page.evaluate(async () => (await (await fetch(document.getElementById('board').src)).text()).match(/<title>([^<]*)/)[1]);
      if (!/3 cubes/.test(title)) throw new Error('the board after move 1 is not 3 cubes: ' + title);
      await expectText('.photo', /No photo/, 'the photo slot of a move without a key frame');
    }],
    ['the illegal move and the score chart', async () => {
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await expectText('#seq-label', /Move 3 of 6/, 'arrow keys');
      await expectText('#current', /\u2717/, 'the illegal verdict');
      await expectText('#current', /red circle/, 'the move');
      const lines = await page.locator('#chart polyline').count();
      if (lines !== 2) throw new Error(lines + ' chart lines for 2 players');
      const pts = await page.$eval('#chart polyline', (e) => e.getAttribute('points').split(' ').length);
      if (pts !== 7) throw new Error('the chart has ' + pts + ' points for 6 moves');
      await shot('match');
    }],
  ]);

  /* ---- the demo: the whole pipeline from a simulated camera ---- */
  if (opts.demoUrl) {
    await story('demo', [
      ['the demo\'s live page shows the camera and the players', async () => {
        await page.goto(opts.demoUrl);
        await page.waitForSelector('#scoreboard .player[data-seat="1"]');
        await expectText('#scoreboard', /Ann[\s\S]*Bob/, 'players');
        await page.waitForSelector('.camera.has-frame', { timeout: 120000 });
      }],
      ['the scoreboard changes as the camera sees moves', async () => {
        await page.waitForFunction(() => [...document.querySelectorAll('#scoreboard .score')]
          .some((e) => Number(e.innerText) > 0), null, { timeout: 240000 });
        await page.waitForSelector('#moves tbody tr');
        await shot('demo-live');
      }],
      ['the demo match is in the history, with key frames', async () => {
        await page.goto(opts.demoUrl + '#/history');
        await page.waitForSelector('tr.match-row');
        await page.click('tr.match-row a');
        await page.waitForSelector('#seq-label');
        await page.click('.replay-controls button[title=Start]');
        await page.click('#next');
        await expectText('#seq-label', /Move 1 of/, 'next');
        await page.waitForSelector('.photo img', { timeout: T });
        await page.waitForFunction(() => { const i = document.querySelector('.photo img'); return i && i.complete && i.naturalWidth > 0; });
        await shot('demo-match');
      }],
    ]);
  }

  if (consoleErrors.length) {
    failed++;
    console.log('FAIL the page threw: ' + consoleErrors.join('; '));
  } else {
    passed++;
    console.log('ok   no script errors on any page');
  }
  await ctx.close();
  return { passed, failed };
}

module.exports = { run };
