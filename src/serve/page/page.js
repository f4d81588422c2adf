// A seat's page: shows the message the server sends (the seat's whole state, at every change)
// and sends answers. Nothing here decides anything: the server checks every answer.
"use strict";
const base = location.pathname.replace(/\/+$/, "");
let current = null;
let sending = false;

const $ = (id) => document.getElementById(id);
function text(el, t) { el.textContent = t == null ? "" : String(t); }
function add(parent, tag, t, cls) {
  const el = document.createElement(tag);
  if (t != null) el.textContent = t;
  if (cls) el.className = cls;
  parent.appendChild(el);
  return el;
}

// Each run of the server has its own `instance`, and counts its versions from 1: a message of
// a new run (the host restarted with --resume) is taken whatever its version, never ignored.
function show(m) {
  if (current && m.instance === current.instance && m.version < current.version) return;
  current = m;
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
  text($("where"), "Round " + m.round + (m.phase ? ", " + m.phase.replace(/_/g, " ") : ""));

  const zones = $("zones");
  zones.replaceChildren();
  for (const z of m.zones) {
    const box = add(zones, "div", null, "zone" + (z.mine ? " mine" : ""));
    add(box, "h3", z.name + (z.mine ? " (yours)" : "") + " · " + z.cards.length);
    const ul = add(box, "ul", null, "cards");
    for (const c of z.cards) {
      if (c.hidden) { add(ul, "li", "hidden card", "card hidden"); continue; }
      const li = add(ul, "li", c.name + (c.face_up ? "" : " (face down)"), "card");
      if (c.line) add(li, "small", c.line);
      if (c.text) add(li, "small", c.text);
      const vs = (c.vars || []).filter((v) => v[1] !== "none" && v[1] !== "0" && v[1] !== "no");
      if (vs.length) add(li, "small", vs.map((v) => v[0] + " " + v[1]).join(", "));
    }
  }
  const vars = $("vars");
  vars.replaceChildren();
  for (const v of m.vars) { add(vars, "dt", v.name); add(vars, "dd", v.value); }

  const q = m.question;
  $("question").hidden = !q;
  if (q) {
    const asked = $("question").dataset.id;
    const key = m.instance + ":" + q.id;
    if (asked !== key) {
      $("question").dataset.id = key;
      text($("answer-error"), "");
      text($("prompt"), q.prompt);
      const opts = $("options");
      opts.replaceChildren();
      const form = $("amount");
      if (q.amount) {
        form.hidden = false;
        const input = $("amount-value");
        input.min = q.amount.min; input.max = q.amount.max; input.value = q.amount.min;
      } else {
        form.hidden = true;
        q.options.forEach((o, i) => {
          const b = add(opts, "button", o);
          const note = q.notes && q.notes[i];
          if (note) add(b, "small", note, "note");
          b.type = "button";
          b.dataset.option = String(i);
          b.addEventListener("click", () => answer(q.id, i));
        });
      }
    }
  } else {
    $("question").dataset.id = "";
  }

  $("end").hidden = !m.end;
  if (m.end) {
    const won = m.end.winners.length ? "Won by " + m.end.winners.join(", ") : "The rules name no winner";
    text($("reason"), won + (m.end.reason ? " · the game ended by " + m.end.reason : ""));
    const ol = $("scores");
    ol.replaceChildren();
    for (const [who, score] of m.end.scores) add(ol, "li", who + ": " + score);
  }

  const ub = $("undo-box");
  ub.hidden = !m.you || !!m.end || !(m.can_undo || m.undo || m.undo_refused);
  $("undo").disabled = !m.can_undo;
  if (m.undo) text($("undo-text"), "Taking back the last answer: agreed by " + m.undo.agreed.join(", ") + "; every person must agree (" + m.undo.needed.join(", ") + ").");
  else if (m.undo_refused) text($("undo-text"), m.undo_refused + ".");
  else text($("undo-text"), "");

  const acc = $("account");
  const atEnd = acc.scrollTop + acc.clientHeight >= acc.scrollHeight - 4;
  text(acc, (m.omitted ? "(" + m.omitted + " earlier lines)\n" : "") + m.account.join("\n"));
  if (atEnd) acc.scrollTop = acc.scrollHeight;
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

$("amount").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const q = current && current.question;
  if (!q || !q.amount) return;
  const v = Number($("amount-value").value);
  answer(q.id, v - q.amount.min);
});

$("undo").addEventListener("click", async () => {
  try {
    await post("/undo", { question: current ? current.undo_question : 0 });
  } catch (e) {
    text($("undo-text"), e.message);
  }
});

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
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
refresh();
live();
