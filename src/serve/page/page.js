// A seat's page: shows the message the server sends (the seat's whole state, at every change)
// and sends answers. Nothing here decides anything: the server checks every answer.
// From the top: a take-back request, the end, the game's own screen for the seat, the question,
// the seat's cards, everything else it may see (folded), the account (newest first, folded).
"use strict";
const base = location.pathname.replace(/\/+$/, "");
let current = null;
let sending = false;
// The seat this page is for ("P1"), as the last message said.
let m_you = null;

// The narrowest window (px) that shows the screen drawn for wide windows (88 columns).
const WIDE = 760;

// The account's newest lines shown unfolded.
const LATEST = 6;

const $ = (id) => document.getElementById(id);
function text(el, t) { el.textContent = t == null ? "" : String(t); }
function add(parent, tag, t, cls) {
  const el = document.createElement(tag);
  if (t != null) el.textContent = t;
  if (cls) el.className = cls;
  parent.appendChild(el);
  return el;
}
function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

// A zone: the cards the seat knows, named (in full for the seat's own), and the others counted.
function zone(parent, z, full) {
  const box = add(parent, "div", null, "zone");
  const count = z.cards.length + z.hidden;
  const h = add(box, "h3", z.name + ": ");
  add(h, "small", count === 0 ? "empty" : plural(count, "card", "cards") +
    (z.hidden && z.cards.length ? " (" + z.hidden + " hidden from you)" : z.hidden ? " (hidden from you)" : ""));
  if (!z.cards.length) return;
  if (!full) {
    add(box, "p", z.cards.map((c) => c.name + (c.face_up ? "" : " (face down)")).join(", "), "names");
    return;
  }
  const ul = add(box, "ul", null, "cards");
  for (const c of z.cards) {
    const li = add(ul, "li", null, "card");
    add(li, "b", c.name + (c.face_up ? "" : " (face down)"));
    // A card's line often begins with its name: the rest of it.
    const line = c.line && c.line.startsWith(c.name) ? c.line.slice(c.name.length).replace(/^[:\s]+/, "") : c.line;
    // Its vars that say something (not their empty or zero start, not the owner the zone names).
    const vs = (c.vars || []).filter((v) => v[1] !== "none" && v[1] !== "0" && v[1] !== "no" && v[1] !== m_you);
    const more = [line, c.text, vs.map((v) => v[0] + " " + v[1]).join(", ")].filter((t) => t);
    if (more.length) add(li, "small", " " + more.join(" · "));
  }
}

// Each run of the server has its own `instance`, and counts its versions from 1: a message of
// a new run (the host restarted with --resume) is taken whatever its version, never ignored.
function show(m) {
  if (current && m.instance === current.instance && m.version < current.version) return;
  current = m;
  m_you = m.you;
  text($("title"), m.game);
  const seats = m.seats.map((s) => s.name + (s.name === m.you ? " (you)" : s.plays === "human" ? "" : " (" + s.plays + ")")).join(", ");
  text($("who"), (m.you ? "You are " + m.you : "You are watching") + " · " + seats);
  let status;
  if (m.end) status = "The game is over.";
  else if (m.error) status = m.error;
  else if (m.question) status = "Your turn to choose.";
  else if (m.waiting) status = "Waiting for " + m.waiting + ".";
  else status = "The game goes on…";
  text($("status"), status);

  // A take-back asked: at the top, with what this seat can do about it.
  const u = m.undo;
  $("undo-request").hidden = !u || !!m.end;
  if (u) {
    const mine = m.you && u.agreed.includes(m.you);
    const rest = u.needed.filter((p) => !u.agreed.includes(p));
    const who = u.agreed.join(", ");
    text($("undo-request-text"), mine
      ? "You asked to take back the last answer. Waiting for " + (rest.join(", ") || "the game") + " to agree."
      : who + " asks to take back the last answer. It is taken back once every person agrees (" + u.needed.join(", ") + ").");
    $("undo-agree").hidden = !m.you || mine || !u.needed.includes(m.you);
    $("undo-agree").disabled = !m.can_undo;
  }

  // The end: who won, every score, and the game's own final lines.
  $("end").hidden = !m.end;
  if (m.end) {
    const e = m.end;
    const won = e.winners.length ? "Won by " + e.winners.join(", ")
      : e.final_lines && e.final_lines.length ? "The rules name no winner: this is how it came out"
      : "The rules name no winner";
    text($("reason"), won + (e.reason ? " · the game ended by " + e.reason : ""));
    const ol = $("scores");
    ol.replaceChildren();
    for (const [who, score] of e.scores) add(ol, "li", who + ": " + score + (e.winners.includes(who) ? " (winner)" : ""));
    ol.hidden = !e.scores.length;
    const fl = $("final-lines");
    fl.replaceChildren();
    for (const l of e.final_lines || []) add(fl, "li", l.trim());
    fl.hidden = !(e.final_lines && e.final_lines.length);
  }

  // The game's own screen for this seat, as the terminal draws it.
  $("screen-box").hidden = !m.screen;
  text($("screen"), window.innerWidth >= WIDE && m.screen_wide ? m.screen_wide : m.screen);

  const q = m.question;
  $("question").hidden = !q;
  if (q) {
    const asked = $("question").dataset.id;
    const key = m.instance + ":" + q.id;
    if (asked !== key) {
      $("question").dataset.id = key;
      // A new question out of sight (the page was scrolled to the last one's buttons): back to
      // the top, where the screen and then the question are.
      const top = $("question").getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight * 0.8) window.scrollTo(0, 0);
      text($("answer-error"), "");
      text($("prompt"), q.prompt);
      const opts = $("options");
      opts.replaceChildren();
      const form = $("amount");
      $("split").hidden = true;
      if (q.split) {
        form.hidden = true;
        split(q);
      } else if (q.amount) {
        form.hidden = false;
        const input = $("amount-value");
        input.min = q.amount.min; input.max = q.amount.max; input.value = q.amount.min;
      } else {
        form.hidden = true;
        options(opts, q);
      }
    }
  } else {
    $("question").dataset.id = "";
  }

  // The seat's own cards in full; everything else it may see, folded.
  const mineZones = m.zones.filter((z) => z.mine);
  $("mine").hidden = !mineZones.some((z) => z.cards.length + z.hidden > 0);
  const my = $("my-zones");
  my.replaceChildren();
  for (const z of mineZones) if (z.cards.length + z.hidden > 0) zone(my, z, true);
  const table = $("table");
  if (!m.screen && !table.dataset.opened) { table.open = true; table.dataset.opened = "1"; }
  text($("where"), "Round " + m.round + (m.phase ? ", " + m.phase : ""));
  const zones = $("zones");
  zones.replaceChildren();
  for (const z of m.zones) if (!z.mine) zone(zones, z, false);
  const vars = $("vars");
  vars.replaceChildren();
  for (const v of m.vars) { add(vars, "dt", v.name); add(vars, "dd", v.value); }

  // Asking to take back this seat's last answer.
  const ub = $("undo-box");
  ub.hidden = !m.you || !!m.end || !!m.undo || !(m.can_undo || m.undo_refused);
  $("undo").disabled = !m.can_undo;
  text($("undo-text"), m.undo_refused ? m.undo_refused + "." : "");

  // The account, newest first: the latest lines, then the rest folded.
  const lines = m.account.slice().reverse();
  const latest = $("latest");
  latest.replaceChildren();
  for (const l of lines.slice(0, LATEST)) add(latest, "li", l);
  const rest = lines.slice(LATEST);
  const earlier = (m.omitted || 0) + rest.length;
  $("earlier").hidden = earlier === 0;
  text($("earlier-count"), plural(earlier, "earlier line", "earlier lines"));
  const acc = $("account");
  acc.replaceChildren();
  for (const l of rest) add(acc, "li", l);
  if (m.omitted) add(acc, "li", "(" + plural(m.omitted, "earlier line", "earlier lines") + " not kept)");
}

// A question's options as buttons, each answering its own option. A long list is laid out
// compactly: options whose labels begin alike ("Kala (Street 1) on row 1, Left", "Kala (Street 1)
// on row 2, Right") are grouped under what they share, each button showing the rest; else, short
// labels side by side. Every option keeps its button, whatever the layout.
const LONG = 8;
function options(parent, q) {
  const button = (box, label, i) => {
    const b = add(box, "button", label);
    const note = q.notes && q.notes[i];
    if (note) add(b, "small", note, "note");
    b.type = "button";
    b.dataset.option = String(i);
    b.title = q.options[i];
    b.addEventListener("click", () => answer(q.id, i));
    return b;
  };
  parent.className = "";
  const n = q.options.length;
  const groups = n > LONG ? grouped(q.options) : null;
  if (groups) {
    parent.className = "grouped";
    for (const g of groups) {
      const box = add(parent, "div", null, "group");
      add(box, "h3", g.head);
      const grid = add(box, "div", null, "grid");
      for (const [i, rest] of g.items) button(grid, rest, i).setAttribute("aria-label", q.options[i]);
    }
    columns();
    return;
  }
  const short = n > LONG && q.options.every((o) => o.length <= 18);
  const box = short ? add(parent, "div", null, "grid") : parent;
  if (n > LONG) parent.className = "compact";
  q.options.forEach((o, i) => button(box, o, i));
}

// Each group's grid in as many columns as fit, then as few as take no more rows (six options in
// three and three, not four and two).
const CELL = 152;
function columns() {
  for (const grid of document.querySelectorAll("#options.grouped .grid")) {
    const n = grid.children.length;
    const fit = Math.max(1, Math.floor((grid.clientWidth + 5) / CELL));
    const rows = Math.ceil(n / fit);
    grid.style.gridTemplateColumns = "repeat(" + Math.max(1, Math.ceil(n / rows)) + ", minmax(0, 1fr))";
  }
}

// Options grouped by how their labels begin: by their first k words, the fewest that part them
// into at least 2 groups and at most half as many groups as options; each group's heading what
// its labels share (up to a word ending in ")", ":" or ","), each option the rest of its label.
// `null` when no such grouping exists.
function grouped(labels) {
  const words = labels.map((l) => l.split(" "));
  const longest = Math.max(...words.map((w) => w.length));
  for (let k = 1; k < longest; k++) {
    const keys = new Map();
    words.forEach((w, i) => {
      if (w.length <= k) return;
      const key = w.slice(0, k).join(" ");
      if (!keys.has(key)) keys.set(key, []);
      keys.get(key).push(i);
    });
    const covered = [...keys.values()].reduce((a, g) => a + g.length, 0);
    if (covered < labels.length || keys.size < 2) continue;
    if (keys.size > labels.length / 2) return null;
    return [...keys.values()].map((members) => {
      // The words every label of the group shares, cut back to the last one ending a part.
      const ws = members.map((i) => words[i]);
      let shared = 0;
      while (ws.every((w) => shared < w.length - 1 && w[shared] === ws[0][shared])) shared++;
      let cut = shared;
      while (cut > k && !/[):,]$/.test(ws[0][cut - 1])) cut--;
      if (!/[):,]$/.test(ws[0][cut - 1])) cut = shared;
      const head = ws[0].slice(0, cut).join(" ").replace(/[:,]$/, "");
      return { head: head, items: members.map((i) => [i, words[i].slice(cut).join(" ")]) };
    });
  }
  return null;
}

async function post(path, body) {
  const r = await fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  let j = {};
  try { j = await r.json(); } catch (e) { /* no body */ }
  if (!r.ok) throw new Error(j.error || ("the server said " + r.status));
}

async function answer(id, option) {
  if (sending) return;
  sending = true;
  text($("answer-error"), "");
  try {
    await post("/answer", { question: id, option: option });
    text($("status"), "Answer sent…");
  } catch (e) {
    text($("answer-error"), e.message);
    refresh();
  } finally {
    sending = false;
  }
}

// An `allocate` asked as one form: a stepper per line, what is left going to the last line.
// The server still asks line by line: the page answers each line from the plan in turn.
let plan = null;
function split(q) {
  const sp = q.split, line = sp.given.length, last = sp.labels.length - 1;
  const key = JSON.stringify(sp.labels) + "/" + sp.total;
  // A later line of the plan this page sent: its amount, at once.
  if (plan && plan.key === key && sp.given.every((g, i) => plan.amounts[i] === g) && line < plan.amounts.length) {
    text($("prompt"), q.prompt);
    const n = plan.amounts[line];
    if (n >= 0 && n < q.options.length) {
      text($("split-left"), "");
      // The last line's answer may still be on its way.
      const go = () => {
        if (!current || !current.question || current.question.id !== q.id) return;
        if (sending) setTimeout(go, 50); else answer(q.id, n);
      };
      go();
      return;
    }
  }
  plan = null;
  text($("prompt"), q.prompt.replace(/: how many to .*$/, ""));
  const values = sp.labels.map((_, i) => (i < line ? sp.given[i] : 0));
  const box = $("split-lines");
  const draw = () => {
    box.replaceChildren();
    const used = values.slice(0, last).reduce((a, b) => a + b, 0);
    const left = sp.total - used;
    sp.labels.forEach((l, i) => {
      const row = add(box, "div", null, "split-line");
      add(row, "span", l, "label");
      if (i < line) { add(row, "b", String(values[i])); add(row, "small", "given"); return; }
      if (i === last) { add(row, "b", String(left)); add(row, "small", "the rest"); return; }
      const minus = add(row, "button", "−");
      minus.type = "button"; minus.disabled = values[i] === 0;
      minus.setAttribute("aria-label", "one less to " + l);
      minus.addEventListener("click", () => { values[i] -= 1; draw(); });
      add(row, "b", String(values[i]));
      const plus = add(row, "button", "+");
      plus.type = "button"; plus.disabled = left === 0;
      plus.setAttribute("aria-label", "one more to " + l);
      plus.addEventListener("click", () => { values[i] += 1; draw(); });
    });
    text($("split-left"), "Left: " + left + " of " + sp.total + (last >= 0 ? " (it goes to " + sp.labels[last] + ")" : ""));
  };
  draw();
  const form = $("split");
  form.hidden = false;
  form.onsubmit = (ev) => {
    ev.preventDefault();
    plan = { key: key, amounts: values.slice(0, last) };
    answer(q.id, values[line]);
  };
}

$("amount").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const q = current && current.question;
  if (!q || !q.amount) return;
  const v = Number($("amount-value").value);
  answer(q.id, v - q.amount.min);
});

async function undo(where) {
  try {
    await post("/undo", { question: current ? current.undo_question : 0 });
  } catch (e) {
    text(where, e.message);
  }
}
$("undo").addEventListener("click", () => undo($("undo-text")));
$("undo-agree").addEventListener("click", () => undo($("undo-request-text")));

async function refresh() {
  try {
    const r = await fetch(base + "/state", { cache: "no-store" });
    if (r.ok) show(await r.json());
    else text($("status"), (await r.json()).error);
  } catch (e) {
    text($("status"), "cannot reach the game: retrying…");
  }
}

function live() {
  const es = new EventSource(base + "/events");
  es.onmessage = (ev) => { try { show(JSON.parse(ev.data)); } catch (e) { /* a bad message: wait for the next */ } };
  es.onerror = () => {
    text($("status"), "connection lost: reconnecting…");
    // The browser retries a dropped stream by itself, but gives up on an answer that is not a
    // stream (the server busy, restarting): start again a moment later.
    if (es.readyState === EventSource.CLOSED) setTimeout(() => { refresh(); live(); }, 3000);
  };
}

// A phone that slept or a reload gets the whole state again: every message is the whole state.
window.addEventListener("resize", () => { if (current) show(current); columns(); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
refresh();
live();
