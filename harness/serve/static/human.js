/* tourney human seat: the new-game form, and a game page that draws the human's own view with
   the replay viewer's board (tourneyBoard of replay.js: any game's, a table for a game with no
   drawing of its own) and plays legal moves only. Text from
   the server goes into the page as textContent; the board is the viewer's escaped SVG. */
"use strict";
(() => {
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";
  const headers = (json) => {
    const h = { Accept: "application/json" };
    if (json) h["Content-Type"] = "application/json";
    if (csrf) h["X-CSRF-Token"] = csrf;
    return h;
  };
  const $ = (id) => document.getElementById(id);
  const say = (text) => { const m = $("message"); if (m) m.textContent = text || ""; };
  async function send(url, body) {
    let r;
    try {
      r = await fetch(url, { method: "POST", headers: headers(true), body: JSON.stringify(body),
        credentials: "same-origin" });
    } catch (err) {
      return [false, { error: "the server cannot be reached" }];
    }
    let data = {};
    try { data = await r.json(); } catch (err) { data = { error: `HTTP ${r.status}` }; }
    return [r.ok, data];
  }

  /* ---- the form: a new game ---- */
  const form = $("new-game");
  if (form) {
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = new FormData(form);
      const seed = String(f.get("seed") || "").trim();
      const [ok, data] = await send(form.action, { bot: f.get("bot"), seat: f.get("seat"),
        seed: seed || null });
      if (ok) location.assign(data.url); else say(data.error || "the game could not start");
    });
  }

  /* ---- the game page ---- */
  const dataEl = $("human-data");
  if (!dataEl) return;
  const M = JSON.parse(dataEl.textContent);
  const B = tourneyBoard(M);
  const VERBS = {
    play: "play a card to a flag", fog: "Fog beside a flag", mud: "Mud beside a flag",
    scout: "play Scout", "scout-draw": "draw for Scout", "scout-return": "put a card back",
    redeploy: "move one of your cards", deserter: "discard an opponent's card",
    traitor: "take an opponent's troop", claim: "claim a flag", done: "stop claiming",
    draw: "draw a card", pass: "no troop can be placed", deploy: "place a new unit",
    bolster: "add to your unit", initiative: "take the initiative", recruit: "recruit a coin",
    move: "move", control: "control a location", attack: "attack", tactic: "use the tactic",
    repeat: "Berserker: again", free: "a free maneuver", stop: "decline the rest",
    guard: "Royal Guard attacked", pick: "draft a unit",
  };
  let S = null;  // the last state from the server
  let prefix = [];  // the tokens of the move chosen so far
  let focus = "";  // a board token whose moves the list shows
  let timer = null;
  let sending = false;
  const toks = (a) => a.split(" ");
  const starts = (a, p) => p.every((t, i) => a[i] === t);
  const legal = () => (S && S.your_turn ? S.legal : []);
  const matching = () => legal().filter((a) => starts(toks(a), prefix));

  async function refresh() {
    clearTimeout(timer);
    let r, data;
    try {
      r = await fetch(M.state_url, { headers: headers(false), cache: "no-store",
        credentials: "same-origin" });
      data = await r.json();
    } catch (err) {
      say("the server cannot be reached; trying again");
      timer = setTimeout(refresh, 3000);
      return;
    }
    if (!r.ok) { say(data.error || `HTTP ${r.status}`); return; }
    if (!S || S.version !== data.version) {
      S = data;
      prefix = []; focus = "";
      draw();
    }
    if (!S.over) timer = setTimeout(refresh, S.your_turn ? 5000 : 300);
  }

  async function play(action) {
    if (sending) return;
    sending = true;
    say("");
    const [ok, data] = await send(M.move_url, { action });
    sending = false;
    if (!ok) say(data.error || "the move was refused");
    else { S.your_turn = false; S.legal = []; drawPicker(); }
    refresh();
  }

  function draw() {
    const v = S.view;
    document.body.dataset.turn = S.over ? "over" : S.your_turn ? "you" : "bot";
    document.body.dataset.version = String(S.version);
    document.body.dataset.decisions = String((v && v.decisions) || 0);
    // the human's own view, drawn as the replay viewer draws that seat's view (any game)
    if (v) [$("board").innerHTML, $("seats").innerHTML] = B.drawPosition(v, M.human, v.decisions);
    let status;
    if (S.over) status = S.result ? S.result.text : "the game is over";
    else if (S.your_turn) status = `Your move` + (v && v.phase ? ` (${v.phase})` : "") +
      `: ${S.legal.length} legal move${S.legal.length === 1 ? "" : "s"}.`;
    else if (v && v.current_player >= 0) status = `Waiting for ${B.seatName(v.current_player)}…`;
    else status = "Waiting…";
    $("status").textContent = status;
    const hist = $("history");
    hist.replaceChildren(...S.history.map(([seat, action, auto]) => {
      const li = document.createElement("li");
      li.textContent = `${seat === M.human ? "you" : B.seatName(seat)}: ${action}`;
      if (seat === M.human) li.classList.add("mine");
      if (auto) li.classList.add("auto");
      return li;
    }));
    hist.scrollTop = hist.scrollHeight;
    $("resign").disabled = S.over;
    if (S.over) {
      $("result").hidden = false;
      $("result-text").textContent = S.result ? S.result.text +
        (S.result.seed ? ` (deal seed ${S.result.seed})` : "") : "";
      const replay = $("replay-link");
      if (S.result && S.result.replay && !M.local) {
        replay.href = S.result.replay; replay.hidden = false;
      }
      if (!M.local) { $("home-link").href = M.home_url; $("home-link").hidden = false; }
      if (M.local) $("result-text").textContent += " — the game is stored; see the terminal.";
    }
    if (S.error) say(S.error);
    drawPicker();
  }

  function button(text, title, onclick, attrs) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (title) b.title = title;
    for (const [k, val] of Object.entries(attrs || {})) b.dataset[k] = val;
    b.addEventListener("click", onclick);
    return b;
  }

  function drawPicker() {
    const mine = legal();
    $("picker").hidden = !mine.length;
    const cands = matching();
    $("prefix").textContent = prefix.length ? prefix.join(" ") + " …" : "choose:";
    $("back").hidden = !prefix.length && !focus;
    const next = new Map();  // token -> [complete, more]
    for (const a of cands) {
      const t = toks(a);
      if (t.length <= prefix.length) continue;
      const tok = t[prefix.length];
      const [complete, more] = next.get(tok) || [false, false];
      next.set(tok, [complete || t.length === prefix.length + 1,
        more || t.length > prefix.length + 1]);
    }
    const choices = [];
    const whole = prefix.join(" ");
    if (prefix.length && cands.includes(whole)) {
      choices.push(button(`play “${whole}”`, "", () => play(whole), { action: whole }));
      choices[0].classList.add("go");
    }
    for (const [tok, [complete, more]] of next) {
      const full = [...prefix, tok].join(" ");
      choices.push(button(tok, VERBS[tok] || "", () => {
        if (complete && !more) play(full); else { prefix.push(tok); focus = ""; drawPicker(); }
      }, complete && !more ? { action: full } : { token: tok }));
    }
    $("choices").replaceChildren(...choices);
    const listed = focus ? cands.filter((a) => toks(a).includes(focus)) : cands;
    $("all-title").textContent = focus ? `Legal moves with ${focus}` : "Legal moves";
    $("all-actions").replaceChildren(...listed.map((a) =>
      button(a, VERBS[toks(a)[0]] || "", () => play(a), { action: a })));
    markBoard();
  }

  /* ---- the board: click a card, a flag, a hex or a unit ---- */
  const TOKEN_ATTRS = ["card", "flag", "at", "hex"];
  function tokenOf(el) {
    for (const k of TOKEN_ATTRS) if (el.dataset && el.dataset[k] !== undefined) return el.dataset[k];
    return null;
  }
  function clickable() {
    const board = $("board");
    const own = `[data-hand="${M.human}"] [data-card]`;
    const sel = { warchest: "[data-hex], [data-at]",
      battleline: `${own}, [data-side-of] [data-card], [data-flag]` }[M.game];
    return sel ? [...board.querySelectorAll(sel)] : [];  // other games: the list of moves
  }
  function markBoard() {
    const cands = matching();
    for (const el of clickable()) {
      const tok = tokenOf(el);
      const next = cands.some((a) => toks(a)[prefix.length] === tok);
      const any = !prefix.length && legal().some((a) => toks(a).includes(tok));
      el.classList.toggle("pickable", next || any);
      el.classList.toggle("chosen", prefix.includes(tok) || focus === tok);
    }
  }
  function pick(tok) {
    const cands = matching();
    if (cands.some((a) => toks(a)[prefix.length] === tok)) {
      const full = [...prefix, tok];
      const rest = cands.filter((a) => starts(toks(a), full));
      if (rest.length === 1 && toks(rest[0]).length === full.length) { play(rest[0]); return; }
      prefix = full; focus = "";
      drawPicker();
      return;
    }
    // from scratch: the moves naming this token, up to it
    const heads = new Map();
    for (const a of legal()) {
      const t = toks(a);
      const i = t.indexOf(tok);
      if (i >= 0) heads.set(t.slice(0, i + 1).join(" "), t.slice(0, i + 1));
    }
    if (!heads.size) return;
    let chosen = null;
    if (heads.size === 1) chosen = [...heads.values()][0];
    else chosen = heads.get(`play ${tok}`) || null;
    if (chosen) {
      prefix = chosen; focus = "";
      const rest = matching();
      if (rest.length === 1 && toks(rest[0]).length === prefix.length) { play(rest[0]); return; }
    } else { prefix = []; focus = tok; }
    drawPicker();
  }
  $("board").addEventListener("click", (e) => {
    if (!S || !S.your_turn) return;
    let el = e.target;
    const board = $("board");
    const allowed = new Set(clickable());
    while (el && el !== board && !allowed.has(el)) el = el.parentNode;
    if (!el || el === board) return;
    const tok = tokenOf(el);
    if (tok !== null) pick(tok);
  });
  $("back").addEventListener("click", () => {
    if (focus) focus = ""; else prefix.pop();
    drawPicker();
  });
  $("resign").addEventListener("click", async () => {
    if (!S || S.over || !window.confirm("Resign this game? It counts as a loss.")) return;
    const [ok, data] = await send(M.resign_url, {});
    if (!ok) say(data.error || "could not resign");
    refresh();
  });
  refresh();
})();
