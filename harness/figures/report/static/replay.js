/* tourney replay viewer: frames rebuilt by the engine (first frame + changes per move),
   drawn as SVG. Views: 0 = the whole truth, 1 + s = what seat s observed.
   tourneyBoard(D) is the board drawing alone (D: players, seats, board), which the human
   seat's page (harness/serve/human.py) reuses; the viewer runs where the page has its data. */
"use strict";
function tourneyBoard(D) {
  /* Seats wear neutral tones (ink, brown, slate, taupe), never a hue of Battle Line's six
     suits, and the moves list and seat panels add a shape per seat (circle, square, triangle,
     diamond: the .seat-N dots of style.css). War Chest's teams of four are seats 0 + 2 (cool
     tones) against 1 + 3 (warm); a team's control markers take its first seat's tone. */
  const SEAT_COLOURS = ["#1f2a36", "#8f5f3a", "#5a6f85", "#a08a6e"];
  const TEAM_COLOURS = [SEAT_COLOURS[0], SEAT_COLOURS[1]];
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const seatName = (s) => `seat ${s} (${D.seats[s]})`;
  const ms = (s) => s < 0.001 ? (s * 1e6).toFixed(0) + " µs" : s < 1
    ? (s * 1000).toFixed(1) + " ms" : s.toFixed(2) + " s";

  /* A label's font size (at most `max`) at which `text` fits `width`: bold sans glyphs are
     at most about 0.72 em wide on average (DejaVu Sans Bold, the widest common fallback). */
  const fit = (text, width, max) =>
    Math.min(max, Math.floor(10 * width / (0.72 * Math.max(1, String(text).length))) / 10);
  const title = (name) => name.charAt(0).toUpperCase() + name.slice(1);

  /* ---- Battle Line ---- */
  const BL_COLOURS = { r: "#d7263d", o: "#f0822a", y: "#e8b90c", g: "#2e9e44", b: "#2f6fd6",
    p: "#8e44ad" };
  const CARD_W = 80;  // every card, on the board and in a hand: a tactic's name fits at 11 px
  const TACTIC_MARK = { alexander: "A", darius: "D", companion: "C", shield: "S", fog: "F",
    mud: "M", scout: "Sc", redeploy: "R", deserter: "De", traitor: "T" };
  function blCard(name, x, y, w, h, extra) {
    const m = /^([roygbp])(\d+)$/.exec(name);
    const hl = extra && extra.highlight ? ' stroke="#ffcc00" stroke-width="3.5"'
      : ' stroke="#0003" stroke-width="1"';
    const attrs = `data-card="${esc(name)}"`;
    if (m) {
      const fill = BL_COLOURS[m[1]];
      const big = Math.round(h * 0.42);
      return `<g ${attrs}><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" ` +
        `fill="${fill}"${hl}/>` +
        `<text x="${x + 6}" y="${y + 17}" font-size="15" font-weight="700" fill="#fff" ` +
        `data-label="rank">${m[2]}</text>` +
        `<text x="${x + w / 2}" y="${y + h / 2 + big / 2.6}" font-size="${big}" ` +
        `font-weight="700" fill="#fff" fill-opacity=".35" text-anchor="middle" ` +
        `data-label="mark">${m[2]}</text></g>`;
    }
    /* a tactic: its whole name across the top (the part a stacked card still shows), sized
       to fit the card, and its initial large below */
    const label = title(name);
    const mark = TACTIC_MARK[name] || "?";
    return `<g ${attrs}><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" ` +
      `fill="#263241"${extra && extra.highlight ? hl : ' stroke="#c9a227" stroke-width="1.5"'}/>` +
      `<text x="${x + w / 2}" y="${y + 15}" font-size="${fit(label, w - 8, 11)}" ` +
      'fill="#f2d479" text-anchor="middle" font-weight="700" data-label="name">' +
      `${esc(label)}</text><text x="${x + w / 2}" y="${y + h / 2 + 12}" ` +
      `font-size="${fit(mark, w - 8, Math.round(h * 0.34))}" fill="#f2d479" fill-opacity=".55" ` +
      `text-anchor="middle" font-weight="700" data-label="mark">${mark}</text></g>`;
  }
  function blBack(x, y, w, h) {
    return `<g data-card="hidden"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" ` +
      `fill="#56606b" stroke="#2d343b"/><rect x="${x + 5}" y="${y + 5}" width="${w - 10}" ` +
      `height="${h - 10}" rx="4" fill="none" stroke="#8d98a4" stroke-dasharray="3 3"/></g>`;
  }
  function blHand(f, seat, y, label) {
    const hand = f.hands[seat];
    const hw = CARD_W, hh = 66, gap = CARD_W + 6;
    let s = `<g data-hand="${seat}" data-hidden="${typeof hand === "number"}">`;
    s += `<text x="40" y="${y - 6}" font-size="13" font-weight="600" fill="${SEAT_COLOURS[seat]}">` +
      `${esc(label)}</text>`;
    if (typeof hand === "number") {
      const fan = hw / 2;  // hidden cards overlap: their backs tell nothing but their number
      for (let i = 0; i < hand; i++) s += blBack(40 + i * fan, y, hw, hh);
      const hc = f.hand_counts ? f.hand_counts[seat] : null;
      s += `<text x="${48 + hw + Math.max(hand - 1, 0) * fan}" y="${y + 40}" font-size="12" ` +
        'fill="#6b7785">' +
        `${hand} cards hidden${hc ? ` (${hc[0]} troops, ${hc[1]} tactics)` : ""}</text>`;
    } else {
      hand.forEach((c, i) => { s += blCard(c, 40 + i * gap, y, hw, hh); });
      if (!hand.length) s += `<text x="40" y="${y + 40}" font-size="12" fill="#6b7785">empty hand</text>`;
    }
    const info = [`tactics played ${f.tactics_played[seat]}`,
      `discards: ${(f.discards[seat] || []).join(", ") || "–"}`];
    info.forEach((t, i) => { s += `<text x="985" y="${y + 18 + 18 * i}" font-size="12" ` +
      `fill="#3c4a58" text-anchor="end">${esc(t)}</text>`; });
    return s + "</g>";
  }
  /* One flag column: the cards of `above` over the flag, of `below` under it, the flag (in
     its owner's colour once claimed) and fog or mud beside it. */
  function blFlag(flag, cx, flagY, k, above, below, f) {
    const cw = CARD_W, ch = 80, step = 24;
    const side = (seat) => `<g data-side-of="${flag.flag}" data-side-seat="${seat}">`;
    let s = side(above);
    const top = flag.sides[above] || [];
    for (let n = top.length - 1; n >= 0; n--) {
      s += blCard(top[n][0], cx - cw / 2, flagY - 34 - ch - n * step, cw, ch,
        { highlight: top[n][1] === k - 1 });
    }
    s += "</g>" + side(below);
    (flag.sides[below] || []).forEach((c, n) => {
      s += blCard(c[0], cx - cw / 2, flagY + 34 + n * step, cw, ch, { highlight: c[1] === k - 1 });
    });
    s += "</g>";
    const owner = flag.claimed;
    const fill = owner >= 0 ? SEAT_COLOURS[owner] : "#fffdf7";
    const claimable = (f.claimable || []).includes(flag.flag);
    s += `<g data-flag="${flag.flag}" data-claimed="${owner}" data-above="${above}" ` +
      `data-below="${below}">` +
      `<circle cx="${cx}" cy="${flagY}" r="19" fill="${fill}" stroke="${owner >= 0 ? "#0006"
        : "#8894a0"}" stroke-width="${claimable ? 3 : 1.5}"${claimable
        ? ' stroke-dasharray="4 3"' : ""}/>` +
      `<text x="${cx}" y="${flagY + 6}" font-size="17" font-weight="700" text-anchor="middle" ` +
      `fill="${owner >= 0 ? "#fff" : "#3c4a58"}">${flag.flag}</text>`;
    if (owner >= 0) s += `<title>flag ${flag.flag} claimed by ${esc(seatName(owner))}</title>`;
    s += "</g>";
    /* Fog and Mud beside the flag: light badges in the tactics' gold, apart from any seat */
    const env = (kind, x) => `<g data-env="${kind}" data-flag-env="${flag.flag}">` +
      `<rect x="${x}" y="${flagY - 10}" width="30" height="20" rx="4" fill="#fbf3d5" ` +
      `stroke="#c9a227"/><text x="${x + 15}" y="${flagY + 4}" ` +
      `font-size="${fit(title(kind), 26, 11)}" fill="#263241" text-anchor="middle" ` +
      `font-weight="700" data-label="name">${title(kind)}` +
      "</text></g>";
    if (flag.fog >= 0) s += env("fog", cx - 50);
    if (flag.mud >= 0) s += env("mud", cx + 20);
    return s;
  }
  /* Two players: the other seat's hand and cards above the flags, the viewer's below.
     Three players (nine flags in a triangle, each between two seats): the flags in three
     groups of three, one per pair of seats, that pair's cards above and below (the viewer's
     below when the pair includes it), labelled; the three hands under the board. */
  function drawBattleLine(f, viewSeat, k) {
    const seats = f.hands.length;
    const bottom = viewSeat === null ? 0 : viewSeat;
    const W = 1000, x0 = 50, colW = 100;
    const three = seats > 2;
    const flagY = three ? 232 : 298;
    const H = three ? 750 : 592;
    let s = `<svg viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" ` +
      `font-family="system-ui, sans-serif" data-game="battleline" data-seats="${seats}">`;
    s += `<rect x="0" y="0" width="${W}" height="${H}" fill="#f4efe3" rx="8"/>`;
    s += `<rect x="20" y="${flagY - 30}" width="${W - 40}" height="60" fill="#e6dcc4" rx="6"/>`;
    const pairOf = (flag) => flag.seats || [0, 1];
    const sides = (flag) => {
      const pair = pairOf(flag);
      const below = pair.includes(bottom) ? bottom : pair[1];
      return [pair[0] === below ? pair[1] : pair[0], below];
    };
    if (three) {
      f.flags.forEach((flag, i) => {
        if (i > 0 && String(pairOf(flag)) === String(pairOf(f.flags[i - 1]))) return;
        const n = f.flags.filter((g, j) => j >= i && String(pairOf(g)) === String(pairOf(flag)))
          .length;
        const [above, below] = sides(flag);
        const x = x0 + colW * i + 4, w = colW * n - 8;
        if (i > 0) s += `<line x1="${x - 4}" y1="14" x2="${x - 4}" y2="${flagY + 212}" ` +
          'stroke="#c8bb9c" stroke-dasharray="5 4"/>';
        s += `<text x="${x + w / 2}" y="24" font-size="13" font-weight="600" text-anchor="middle" ` +
          `fill="${SEAT_COLOURS[above]}" data-label="above">${esc(seatName(above))}</text>` +
          `<text x="${x + w / 2}" y="${flagY + 206}" font-size="13" font-weight="600" ` +
          `text-anchor="middle" fill="${SEAT_COLOURS[below]}" data-label="below">` +
          `${esc(seatName(below))}</text>`;
      });
      const order = [bottom, ...[...Array(seats).keys()].filter((t) => t !== bottom)];
      order.forEach((t, i) => {
        s += blHand(f, t, flagY + 250 + 96 * i,
          seatName(t) + (viewSeat === t ? " — this view" : ""));
      });
    } else {
      const top = 1 - bottom;
      s += blHand(f, top, 28, seatName(top));
      s += blHand(f, bottom, H - 80, seatName(bottom) + (viewSeat === null ? "" : " — this view"));
    }
    f.flags.forEach((flag, i) => {
      const [above, below] = sides(flag);
      s += blFlag(flag, x0 + colW * i + colW / 2, flagY, k, above, below, f);
    });
    return s + "</svg>";
  }
  function battleLinePanels(f) {
    const seats = f.hands.length;
    const decks = f.decks || {};
    return [...Array(seats).keys()].map((s) => {
      const hand = f.hands[s];
      const flags = f.flags.filter((fl) => fl.claimed === s).map((fl) => fl.flag);
      return box(s, [
        ["flags", flags.length ? `${flags.length}: ${flags.join(", ")}` : "none"],
        ["hand", typeof hand === "number" ? `${hand} (hidden)` : hand.join(" ") || "–"],
        ["tactics", `${f.tactics_played[s]} played` + (f.leader_played && f.leader_played[s]
          ? ", leader played" : "")],
        ["discards", (f.discards[s] || []).join(" ") || "–"],
      ]);
    }).join("") + `<div class="seatbox" style="border-top-color:#8d98a4"><h3>decks</h3>` +
      `<div class="row"><span class="k">troops</span>${decks.troops ?? "–"}</div>` +
      `<div class="row"><span class="k">tactics</span>${decks.tactics ?? "–"}</div>` +
      `<div class="row"><span class="k">phase</span>${esc(f.phase)}</div></div>`;
  }

  /* ---- War Chest ---- */
  const unitAbbr = (u) => u === "royal" ? "♔" : u.includes("-")
    ? u.split("-").map((p) => p[0].toUpperCase()).join("") : u[0].toUpperCase() + u.slice(1, 2);
  function drawWarChest(f) {
    const R = 34, S3 = Math.sqrt(3);
    const pos = {};
    let minX = 1e9, maxX = -1e9, minY = 1e9, maxY = -1e9;
    for (const h of D.board) {
      const x = R * S3 * (h.q + h.r / 2), y = R * 1.5 * h.r;
      pos[h.n] = [x, y];
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    const pad = R + 8;
    const W = maxX - minX + 2 * pad, H = maxY - minY + 2 * pad;
    const ox = pad - minX, oy = pad - minY;
    let s = `<svg viewBox="0 0 ${W.toFixed(0)} ${H.toFixed(0)}" xmlns="http://www.w3.org/2000/svg" ` +
      `font-family="system-ui, sans-serif" data-game="warchest">`;
    s += `<rect width="100%" height="100%" fill="#eef1ea" rx="8"/>`;
    const units = {};
    for (const u of f.board) units[u.hex] = u;
    for (const h of D.board) {
      const [x, y] = pos[h.n];
      const cx = x + ox, cy = y + oy;
      const pts = [...Array(6).keys()].map((i) => {
        const a = Math.PI / 180 * (60 * i - 30);
        return `${(cx + (R - 1) * Math.cos(a)).toFixed(1)},${(cy + (R - 1) * Math.sin(a)).toFixed(1)}`;
      }).join(" ");
      const ctl = Object.prototype.hasOwnProperty.call(f.control, h.n) ? f.control[h.n] : -1;
      s += `<g data-hex="${h.n}"${h.loc ? ` data-location="1" data-control="${ctl}"` : ""}>` +
        `<polygon points="${pts}" fill="${h.loc ? "#e2d6b5" : "#d8e0cc"}" stroke="#a8b39a" ` +
        `stroke-width="1.5"/>`;
      if (h.loc) {
        s += `<circle cx="${cx}" cy="${cy + 3}" r="${R * 0.66}" fill="${ctl >= 0 ? TEAM_COLOURS[ctl]
          : "#f7f3e8"}" fill-opacity="${ctl >= 0 ? 0.85 : 1}" stroke="#8a7d5a" stroke-width="2"/>`;
        if (ctl >= 0) s += `<title>${h.n}: controlled by team ${"AB"[ctl]}</title>`;
      }
      s += `<text x="${cx}" y="${cy - R * 0.74}" font-size="8.5" fill="#5d6759" ` +
        `text-anchor="middle">${h.n}</text></g>`;
      const u = units[h.n];
      if (u) {
        s += `<g data-unit="${esc(u.unit)}" data-owner="${u.owner}" data-height="${u.height}" ` +
          `data-at="${h.n}"><title>${esc(u.unit)} of ${esc(seatName(u.owner))}, stack of ` +
          `${u.height}</title><circle cx="${cx}" cy="${cy + 3}" r="${R * 0.52}" ` +
          `fill="${SEAT_COLOURS[u.owner]}" stroke="#fff" stroke-width="2.5"/>` +
          `<text x="${cx}" y="${cy + 8.5}" font-size="${fit(unitAbbr(u.unit), R - 5, 15)}" ` +
          `font-weight="700" fill="#fff" text-anchor="middle" data-label="unit">` +
          `${esc(unitAbbr(u.unit))}</text>` +
          `<circle cx="${cx + R * 0.5}" cy="${cy - R * 0.3}" r="9" fill="#1f2933"/>` +
          `<text x="${cx + R * 0.5}" y="${cy - R * 0.3 + 4}" font-size="11" font-weight="700" ` +
          `fill="#fff" text-anchor="middle">${u.height}</text></g>`;
      }
    }
    return s + "</svg>";
  }
  const counts = (c) => {
    if (typeof c === "number") return `${c} (hidden)`;
    const parts = Object.entries(c || {}).map(([k, n]) => n > 1 ? `${k}×${n}` : k);
    return parts.join(", ") || "–";
  };
  function warChestPanels(f) {
    const seats = f.hands.length;
    return [...Array(seats).keys()].map((s) => {
      const team = D.players === 4 ? s % 2 : s;
      return box(s, [
        ["team", `${"AB"[team]} · markers ${f.markers[team]}/${f.markers_total}` +
          (f.initiative === s ? " · initiative" : "")],
        ["units", (f.cards[s] || []).join(", ")],
        ["hand", counts(f.hands[s])],
        ["bag", `${f.bag_count[s]} coins`],
        ["supply", counts(f.supply[s])],
        ["face-up", counts(f.faceup[s])],
        ["face-down", counts(f.facedowns[s])],
        ["removed", counts(f.box[s])],
      ]);
    }).join("");
  }

  /* a seat's mark in HTML: its tone in its shape (style.css .dot.seat-N) */
  const seatDot = (s) => `<span class="dot seat-${s}" style="background:${SEAT_COLOURS[s]}" ` +
    `title="${esc(seatName(s))}"></span>`;
  function box(s, rows) {
    return `<div class="seatbox" data-seat="${s}" style="border-top-color:${SEAT_COLOURS[s]}">` +
      `<h3>${seatDot(s)} ${esc(seatName(s))}</h3>` + rows.map(([k, v]) =>
      `<div class="row" data-row="${esc(k)}"><span class="k">${esc(k)}</span>` +
      `<span class="v">${esc(v)}</span></div>`)
      .join("") + "</div>";
  }

  /* ---- any other game: its view as a table (what the game's observation holds, with every
     per-seat list also shown in the seat panels) ---- */
  const show = (v) => v === null || v === undefined ? "–" : typeof v === "object"
    ? JSON.stringify(v) : String(v);
  const perSeat = (f) => Object.keys(f).filter((key) => Array.isArray(f[key]) &&
    f[key].length === D.players && key !== "events");
  function drawGeneric(f) {
    const rows = Object.keys(f).filter((key) => !["seat", "events"].includes(key) &&
      !perSeat(f).includes(key));
    return `<table class="generic-view" data-game="${esc(D.game)}">` + rows.map((key) =>
      `<tr><th>${esc(key)}</th><td>${esc(show(f[key]))}</td></tr>`).join("") + "</table>";
  }
  function genericPanels(f) {
    const keys = perSeat(f);
    return D.seats.map((_, s) => box(s, keys.map((key) => [key, show(f[key][s])]))).join("");
  }

  /* One position of any game, as the replay viewer and the human seat's page both show it:
     [the board, the seat panels]; `viewSeat` is the seat whose view it is (null: the whole
     truth), `k` the moves made. A game without a drawing of its own is shown as tables. */
  function drawPosition(f, viewSeat, k) {
    if (D.game === "warchest") return [drawWarChest(f), warChestPanels(f)];
    if (D.game === "battleline") return [drawBattleLine(f, viewSeat, k), battleLinePanels(f)];
    return [drawGeneric(f), genericPanels(f)];
  }

  return { SEAT_COLOURS, SUIT_COLOURS: BL_COLOURS, esc, seatName, seatDot, ms, drawBattleLine,
    battleLinePanels, drawWarChest, warChestPanels, drawGeneric, genericPanels, drawPosition };
}

if (document.getElementById("replay-data")) tourneyData("replay-data").then((D) => {
  const N = D.moves.length;  // frames 0..N: frame k is the position after k moves
  if (D.header) {  // the report's viewer: the page came without the game's header
    const H = D.header;
    document.title = `tourney replay: ${H.game_id}`;
    document.getElementById("r-title").textContent = H.title;
    document.getElementById("r-sub").textContent = H.sub;
    const result = document.getElementById("result");
    result.textContent = H.result + (H.warning ? ` — ${H.warning}` : "");
    result.classList.toggle("warn", Boolean(H.warning));
  }
  const { esc, seatName, seatDot, ms, drawPosition } = tourneyBoard(D);

  /* ---- frames: apply each move's changes to a copy of the previous frame ---- */
  const cache = [];
  function framesOf(v) {
    if (cache[v]) return cache[v];
    const view = D.views[v];
    const out = [view.first];
    for (const changes of view.changes) {
      let doc = structuredClone(out[out.length - 1]);
      for (const [path, value] of changes) {
        if (path.length === 0) { doc = structuredClone(value); continue; }
        let target = doc;
        for (const key of path.slice(0, -1)) target = target[key];
        target[path[path.length - 1]] = structuredClone(value);
      }
      out.push(doc);
    }
    cache[v] = out;
    return out;
  }

  /* ---- the page ---- */
  const slider = document.getElementById("slider");
  const viewSel = document.getElementById("view");
  const movesEl = document.getElementById("moves");
  slider.max = String(N);
  viewSel.append(new Option("whole truth", "0"));
  D.seats.forEach((b, s) => viewSel.append(new Option(`seat ${s} view (${b})`, String(s + 1))));
  const items = D.moves.map(([seat, action, think], i) => {
    const li = document.createElement("li");
    li.dataset.ply = String(i);
    li.innerHTML = `<span class="ply">${i + 1}.</span>${seatDot(seat)}` +
      `<span>${esc(action)}</span><span class="t">${ms(think)}</span>`;
    li.title = `${seatName(seat)}: ${action} (${ms(think)})`;
    li.addEventListener("click", () => go(i + 1));
    movesEl.append(li);
    return li;
  });
  let k = 0, view = 0;
  function go(next) {
    k = Math.max(0, Math.min(N, next));
    const f = framesOf(view)[k];
    const viewSeat = view === 0 ? null : view - 1;
    [document.getElementById("board").innerHTML, document.getElementById("seats").innerHTML] =
      drawPosition(f, viewSeat, k);
    slider.value = String(k);
    document.getElementById("pos").textContent = `move ${k} / ${N}`;
    items.forEach((li, i) => li.classList.toggle("current", i === k - 1));
    if (k > 0) items[k - 1].scrollIntoView({ block: "nearest" });
    let status = "";
    if (k > 0) {
      const [seat, action, think] = D.moves[k - 1];
      status += `<b>move ${k}</b>: ${esc(seatName(seat))} played <code>${esc(action)}</code> ` +
        `in ${ms(think)}. `;
    } else status += "<b>start</b>: the deal. ";
    if (f.end) {
      status += `<b>Game over</b>: ${esc(typeof f.end === "object" ? f.end.reason || f.end.kind
        : f.reason || f.end)}`;
    } else if (f.current_player >= 0) {
      status += `Next: ${esc(seatName(f.current_player))}` +
        (f.phase ? ` (${esc(f.phase)})` : "") + ".";
    }
    if (viewSeat !== null) status += ` <i>Showing what seat ${viewSeat} knew.</i>`;
    document.getElementById("status").innerHTML = status;
    document.body.dataset.frame = String(k);
    document.body.dataset.view = String(view);
  }
  document.getElementById("b-first").onclick = () => go(0);
  document.getElementById("b-prev").onclick = () => go(k - 1);
  document.getElementById("b-next").onclick = () => go(k + 1);
  document.getElementById("b-last").onclick = () => go(N);
  slider.addEventListener("input", () => go(Number(slider.value)));
  viewSel.addEventListener("change", () => { view = Number(viewSel.value); go(k); });
  document.addEventListener("keydown", (e) => {
    /* in the report's frame, Escape closes the replay (the report's dialog never sees it) */
    if (e.key === "Escape" && window.parent !== window) {
      window.parent.postMessage("tourney-close", "*");
    }
    if (e.target instanceof HTMLSelectElement) return;
    const keys = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: N };
    if (e.key in keys) { e.preventDefault(); go(keys[e.key]); }
  });
  const start = Number((location.hash.match(/^#(\d+)$/) || [])[1]);
  go(Number.isFinite(start) ? start : 0);
}).catch((err) => console.error("tourney: cannot read the page data:", err));
