/* tourney league report: draws every section from the JSON in #report-data. */
"use strict";
tourneyData("report-data").then((D) => {
  const PALETTE = ["#2f6fd6", "#d64545", "#1e9e6a", "#e08a1e", "#8e44ad", "#16a2b8", "#b8860b",
    "#e0529c", "#5d6d7e", "#6ab04c", "#c0392b", "#34495e"];

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("data-") || k === "title" || k === "href" || k === "style" ||
               k === "id" || k === "colspan" || k === "value") e.setAttribute(k, v);
      else e[k] = v;
    }
    for (const kid of kids) if (kid !== null && kid !== undefined)
      e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    return e;
  }
  const pct = (x) => (x === null || x === undefined) ? "–" : (100 * x).toFixed(1) + "%";

  /* ---- sortable tables: click a header; numbers sort as numbers ---- */
  function makeSortable(table) {  // the last header row names the columns
    const head = table.tHead.rows[table.tHead.rows.length - 1];
    const heads = head.querySelectorAll("th");
    heads.forEach((th, col) => th.addEventListener("click", () => {
      const asc = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const key = (r) => {
        const c = r.cells[col];
        const v = c.dataset.sort !== undefined ? c.dataset.sort : c.textContent;
        const n = parseFloat(v);
        return isNaN(n) || !/^-?[\d.]/.test(v) ? v.toLowerCase() : n;
      };
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        const c = (typeof x === "number" && typeof y === "number") ? x - y
          : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach((r) => body.append(r));
    }));
  }

  /* ---- a living league's statuses: a badge says each in words, coloured as a hint ---- */
  const STATUS_TIPS = {
    active: "plays rated games",
    validating: "waiting for its entry check; not rated yet",
    suspended: "kept forfeiting after it was admitted; plays no games until reinstated",
    failed: "the entry check refused it",
    replaced: "a newer version of the same entrant took its place; its games stay",
    retired: "its entrant left; its games and place in the history stay",
  };
  const STATUS_ORDER = Object.keys(STATUS_TIPS);
  const statusOf = {};  // bot -> status, for the leaderboard's tags
  for (const e of D.entrants || []) statusOf[e.bot] = e.status;
  function badge(cls, status) {
    const known = Object.prototype.hasOwnProperty.call(STATUS_TIPS, status);
    return el("span", { class: `${cls} status-${known ? status : "other"}`, "data-status": status,
      title: `${status}: ${known ? STATUS_TIPS[status] : "status"}` }, status);
  }

  /* ---- leaderboard: every field of `tourney ratings --format json` ----
     Columns in groups: the Elo fit with its interval first (the figure to compare bots by),
     then TrueSkill, the record, the forfeits, the fit's flags and anything else the JSON holds.
     Each column has one format: the same decimals in every row, right-aligned tabular digits,
     and a sign where the figure is relative (Elo is relative to the pool's mean or anchor). */
  const MINUS = "\u2212";
  const signed = (x, d) => {  // +12, −3, 0 (no "−0")
    const t = Math.abs(x).toFixed(d);
    return Number(t) === 0 ? t : (x < 0 ? MINUS : "+") + t;
  };
  const unbounded = (v) => (v === "∞" ? "+∞" : v === "−∞" || v === "-∞" ? "−∞" : null);
  const FORMATS = {
    elo: (v) => signed(v, 0), elo_low: (v) => signed(v, 0), elo_high: (v) => signed(v, 0),
    elo_se: (v) => "±" + v.toFixed(0),
    mu: (v) => v.toFixed(2), sigma: (v) => v.toFixed(2),
    rating: (v) => (v < 0 ? MINUS : "") + Math.abs(v).toFixed(2),
    score: (v) => (100 * v).toFixed(1) + "%",
  };
  const GROUPS = [
    ["", ["rank", "bot"]],
    ["Elo", ["elo", "elo_low", "elo_high", "elo_se"]],
    ["TrueSkill", ["mu", "sigma", "rating"]],
    ["record", ["games", "wins", "draws", "losses", "score"]],
    ["forfeits", ["forfeits", "forfeits_timeout", "forfeits_crash", "forfeits_illegal",
      "forfeits_protocol_error"]],
    ["Elo fit", ["perfect", "pool"]],
  ];
  const TEXT_KEYS = new Set(["bot", "perfect"]);  // left-aligned words
  const LABELS = {
    rank: "rank", bot: "bot", elo: "Elo", elo_low: "low", elo_high: "high", elo_se: "± s.e.",
    mu: "mu", sigma: "sigma", rating: "mu−3σ", games: "games", wins: "W", draws: "D",
    losses: "L", score: "score %", forfeits: "all", forfeits_timeout: "timeouts",
    forfeits_crash: "crashes", forfeits_illegal: "illegal",
    forfeits_protocol_error: "protocol err.", perfect: "perfect", pool: "pool",
  };
  const TIPS = {
    rank: "place by Elo, as tourney ratings ranks",
    elo: "Elo rating fitted to every game at once (Bradley–Terry), relative to the pool",
    elo_low: "lower end of the Elo interval", elo_high: "upper end of the Elo interval",
    elo_se: "standard error of the Elo rating",
    mu: "TrueSkill mean", sigma: "TrueSkill uncertainty",
    rating: "conservative TrueSkill rating mu − 3·sigma",
    score: "share of points: a win 1, a draw ½",
    forfeits: "games forfeited (timeouts, crashes, illegal moves, protocol errors)",
    perfect: "won or lost every game: the Elo leans on the prior, its interval is wide",
    pool: "bots in different pools never met, directly or through others: not comparable",
  };
  function cellText(key, v) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "string" && unbounded(v)) return unbounded(v);
    if (typeof v === "object") return JSON.stringify(v);
    if (typeof v === "number" && FORMATS[key]) return FORMATS[key](v);
    if (/(^|_)(los|rate|share)$/.test(key) && typeof v === "number") return pct(v);
    if (typeof v === "number" && !Number.isInteger(v)) return v.toFixed(2);
    return String(v);
  }
  /* a number to sort by: an unbounded end of an interval sorts beyond every finite one */
  function sortValue(v) {
    if (typeof v === "number") return v;
    const u = typeof v === "string" ? unbounded(v) : null;
    if (u) return u === "+∞" ? "1e308" : "-1e308";
    return String(v);
  }
  function leaderboard() {
    const rows = D.ratings.leaderboard;
    const table = document.getElementById("leaderboard-table");
    if (!rows.length) { table.append(el("tr", {}, el("td", { text: "no games yet" }))); return; }
    const present = Object.keys(rows[0]);
    const known = new Set(GROUPS.flatMap(([, ks]) => ks));
    const groups = GROUPS.map(([g, ks]) => [g, ks.filter((k) => present.includes(k))])
      .filter(([, ks]) => ks.length);
    const rest = present.filter((k) => !known.has(k));
    if (rest.length) groups.push(["", rest]);
    const keys = groups.flatMap(([, ks]) => ks);
    const level = D.ratings.elo && D.ratings.elo.level;
    const groupTitle = (g) => (g === "Elo" && level ? `Elo (${Math.round(100 * level)}% ` +
      "interval)" : g);
    const firsts = new Set(groups.filter(([g]) => g).map(([, ks]) => ks[0]));
    const align = (k) => (TEXT_KEYS.has(k) ? "name" : "num") + (firsts.has(k) ? " first" : "");
    table.append(el("thead", {},
      el("tr", { class: "groups" }, ...groups.map(([g, ks]) =>
        el("th", { colspan: String(ks.length), class: g ? "group first" : "", "data-group": g },
          groupTitle(g)))),
      el("tr", {}, ...keys.map((k) =>
        el("th", { class: align(k), title: TIPS[k] || k, "data-key": k },
          LABELS[k] || k.replace(/_/g, " "))))));
    const body = el("tbody");
    for (const r of rows) {
      // a living league's bot that no longer plays (or not yet) is tagged with its status
      const status = statusOf[r.bot];
      const tagged = status !== undefined && status !== "active";
      const attrs = { "data-bot": r.bot };
      if (status !== undefined) attrs["data-status"] = status;
      if (tagged) attrs.class = "inactive";
      body.append(el("tr", attrs, ...keys.map((k) => el("td", {
        class: align(k) + (k.startsWith("forfeits") && r[k] > 0 ? " bad" : ""),
        "data-key": k, "data-value": JSON.stringify(r[k]),
        "data-sort": sortValue(r[k]),
      }, cellText(k, r[k]), ...(k === "bot" && tagged ? [" ", badge("tag", status)] : [])))));
    }
    table.append(body);
    makeSortable(table);
    const dp = D.ratings.draw_probability;
    document.getElementById("leaderboard-note").textContent =
      `${D.ratings.rated_games} rated games, ${D.ratings.void_games} void; draw probability ` +
      `${dp === null ? "–" : dp.toFixed(3)}. Ranked by Elo, as tourney ratings ranks; ` +
      "compare bots by Elo and its interval (relative to the pool: only differences mean " +
      "something). Click a column to sort.";
  }

  /* ---- a living league's entrants: every version of each entrant's bot ---- */
  function entrants() {
    const rows = D.entrants;
    const table = document.getElementById("entrants-table");
    if (!table) return;  // not a living league: no panel
    if (!rows.length) { table.append(el("tr", {}, el("td", { text: "no entrants yet" }))); return; }
    const head = [["entrant", "name"], ["version", ""], ["bot", "name"], ["status", "name"],
      ["games", ""], ["added", "name"], ["reason", "name"]];
    table.append(el("thead", {}, el("tr", {}, ...head.map(([h, cls]) =>
      el("th", { class: cls, "data-key": h }, h)))));
    const body = el("tbody");
    for (const e of rows) {
      const rank = STATUS_ORDER.indexOf(e.status);
      body.append(el("tr", { "data-bot": e.bot, "data-status": e.status },
        el("td", { class: "name", "data-key": "entrant" }, e.entrant),
        el("td", { "data-key": "version", "data-sort": e.version }, String(e.version)),
        el("td", { class: "name", "data-key": "bot" }, e.bot),
        el("td", { class: "name", "data-key": "status",
          "data-sort": rank < 0 ? STATUS_ORDER.length : rank }, badge("badge", e.status)),
        el("td", { "data-key": "games", "data-sort": e.games }, String(e.games)),
        el("td", { class: "name", "data-key": "added",
          "data-sort": isNaN(Date.parse(e.added)) ? e.added : Date.parse(e.added) },
          e.added.replace("T", " ")),
        el("td", { class: "name reason", "data-key": "reason" }, e.reason || "–")));
    }
    table.append(body);
    makeSortable(table);
    const counts = {};
    for (const e of rows) counts[e.status] = (counts[e.status] || 0) + 1;
    const names = new Set(rows.map((e) => e.entrant));
    const order = [...STATUS_ORDER, ...Object.keys(counts).filter((s) => !STATUS_ORDER.includes(s))];
    document.getElementById("entrants-note").textContent =
      `${names.size} entrant${names.size === 1 ? "" : "s"}, ${rows.length} version` +
      `${rows.length === 1 ? "" : "s"}: ` +
      order.filter((s) => counts[s]).map((s) => `${counts[s]} ${s}`).join(", ") +
      ". Each version is rated on its own under its bot name; the leaderboard tags every " +
      "version that is not active. Click a column to sort.";
  }

  /* ---- head-to-head heat map ---- */
  function heat(rate) {  // red (0) → white (½) → green (1)
    const t = Math.max(0, Math.min(1, rate));
    const mix = (a, b, f) => Math.round(a + (b - a) * f);
    const [lo, mid, hi] = [[214, 69, 69], [248, 248, 248], [30, 158, 106]];
    const [from, to, f] = t < 0.5 ? [lo, mid, t / 0.5] : [mid, hi, (t - 0.5) / 0.5];
    return `rgb(${mix(from[0], to[0], f)},${mix(from[1], to[1], f)},${mix(from[2], to[2], f)})`;
  }
  function h2h() {
    const names = D.ratings.leaderboard.map((r) => r.bot);
    const cells = {};
    for (const c of D.ratings.h2h || []) cells[c.bot + "\u0000" + c.opponent] = c;
    const table = document.getElementById("h2h-table");
    table.append(el("thead", {}, el("tr", {}, el("th", { class: "name" }, "row v column"),
      ...names.map((n) => el("th", {}, n)))));
    const body = el("tbody");
    for (const a of names) {
      const tr = el("tr", {}, el("th", { class: "name" }, a));
      for (const b of names) {
        const c = cells[a + "\u0000" + b];
        if (a === b) tr.append(el("td", { class: "self" }, "–"));
        else if (!c) tr.append(el("td", { class: "self", "data-bot": a, "data-opponent": b }, ""));
        else {
          tr.append(el("td", {
            class: "cell", style: `background:${heat(c.score)}`,
            "data-bot": a, "data-opponent": b, "data-score": c.score,
            "data-games": c.games,
            title: `${a} v ${b}: ${pct(c.score)} of the points over ${c.games} games`,
          }, (100 * c.score).toFixed(0) + "%", el("span", { class: "n" }, `${c.games} games`)));
        }
      }
      body.append(tr);
    }
    table.append(body);
  }

  /* ---- ratings over the league (uPlot) ---- */
  function history() {
    const H = D.history;
    const box = document.getElementById("history-chart");
    const bots = D.ratings.leaderboard.map((r) => r.bot).filter((b) => H.bots[b]);
    if (!H.games.length || typeof uPlot === "undefined") {
      box.textContent = "no games yet"; return;
    }
    const data = [H.games];
    const series = [{ label: "games" }];
    const bands = [];
    bots.forEach((b, i) => {
      const col = PALETTE[i % PALETTE.length];
      const mu = H.bots[b].mu, sg = H.bots[b].sigma;
      const hi = mu.map((m, j) => m === null ? null : m + 3 * sg[j]);
      const lo = mu.map((m, j) => m === null ? null : m - 3 * sg[j]);
      const base = data.length;
      data.push(mu, hi, lo);
      series.push({ label: b, stroke: col, width: 2, points: { show: false } },
        { label: b + " +3σ", stroke: col + "00", width: 0, points: { show: false } },
        { label: b + " −3σ", stroke: col + "00", width: 0, points: { show: false } });
      bands.push({ series: [base + 1, base + 2], fill: col + "22" });
    });
    const width = Math.max(320, box.clientWidth || 600);
    // eslint-disable-next-line no-new, new-cap
    new uPlot({
      width, height: 300, series, bands, legend: { show: false },
      scales: { x: { time: false } },
      axes: [{ label: "games finished", size: 40 }, { label: "TrueSkill mu (band: mu ± 3σ)",
        size: 56 }],
      cursor: { drag: { x: false, y: false } },
    }, data, box);
    const legend = el("div", { class: "note" });
    bots.forEach((b, i) => legend.append(el("span", { style: "margin-right:14px" },
      el("span", { class: "dot", style: `background:${PALETTE[i % PALETTE.length]}` }), " ", b)));
    box.append(legend);
    document.getElementById("history-note").textContent =
      "Each point is the leaderboard as `tourney ratings` would have printed it after that many " +
      "games had finished (line: mu; band: mu ± 3σ, whose lower edge is the conservative rating).";
  }

  /* ---- terminations and think time ---- */
  function simpleTable(id, head, rows) {
    const table = document.getElementById(id);
    table.append(el("thead", {}, el("tr", {}, ...head.map((h, i) =>
      el("th", { class: i === 0 ? "name" : "" }, h)))));
    const body = el("tbody");
    for (const r of rows) body.append(el("tr", { "data-bot": r[0].text }, ...r.map((c, i) =>
      el("td", { class: (i === 0 ? "name " : "") + (c.cls || ""), "data-sort": c.sort ?? c.text,
        title: c.title || "" }, c.node || c.text))));
    table.append(body);
    makeSortable(table);
  }
  function health() {
    const order = D.ratings.leaderboard.map((r) => r.bot);
    for (const b of Object.keys(D.terminations)) if (!order.includes(b)) order.push(b);
    const kinds = ["normal", "stalemate", "move_cap", "timeout", "crash", "illegal",
      "protocol_error", "void", "opponent_forfeit"];
    const forfeit = new Set(["timeout", "crash", "illegal", "protocol_error"]);
    simpleTable("term-table", ["bot", "games", "normal", "stalemate", "move cap", "timeout",
      "crash", "illegal", "protocol", "void", "opp. forfeit"],
    order.filter((b) => D.terminations[b]).map((b) => {
      const t = D.terminations[b];
      return [{ text: b }, { text: String(t.games) }, ...kinds.map((k) => ({
        text: String(t[k] || 0),
        cls: (t[k] || 0) === 0 ? "zero" : (forfeit.has(k) ? "bad" : (k === "void" ? "bad" : "")),
      }))];
    }));
    const slowest = Math.max(1e-9, ...Object.values(D.think).map((t) => t.max));
    /* one unit and one number of decimals per column, chosen by the column's largest value */
    const unitOf = (key) => {
      const top = Math.max(0, ...Object.values(D.think).map((t) => t[key] || 0));
      const [scale, unit, d] = top < 0.001 ? [1e6, "µs", 0] : top < 1 ? [1e3, "ms", 2]
        : [1, "s", 2];
      return (x) => (x === null || x === undefined ? "–" : (x * scale).toFixed(d) + " " + unit);
    };
    const fmtOf = Object.fromEntries(["median", "p90", "max", "per_game"].map((k) =>
      [k, unitOf(k)]));
    simpleTable("think-table", ["bot", "decisions", "median", "90th pct", "slowest decision",
      "per game"],
    order.filter((b) => D.think[b]).map((b) => {
      const t = D.think[b];
      const bar = el("span", { class: "bar", style: `width:${Math.max(2, 80 * t.max / slowest)}px` });
      const f = (k) => fmtOf[k](t[k]);
      return [{ text: b }, { text: String(t.decisions) },
        { text: f("median"), sort: t.median }, { text: f("p90"), sort: t.p90 },
        { node: el("span", {}, f("max"), bar), text: f("max"), sort: t.max },
        { text: f("per_game"), sort: t.per_game }];
    }));
  }

  /* ---- configuration ---- */
  function config() {
    const box = document.getElementById("config-body");
    for (const c of D.configs) {
      const lim = c.limits || {};
      const dl = el("dl", { class: "config" });
      const add = (k, v) => dl.append(el("dt", {}, k), el("dd", {}, v));
      if (c.folder !== undefined) add("folder", el("code", {}, c.folder));  // not in public
      add("league", c.name);
      add("game", `${c.game} (${c.players} players)`);
      add("variant", c.variant_text);
      add("rules version", c.rules_version);
      add("deals", c.deals);
      add("schedule", `${c.kind}, ${c.games_per_pair} games per pair` +
        (c.challenger ? `, challenger ${c.challenger}` : ""));
      add("limits", `move ${lim.move_time} s, overage ${lim.overage} s, start-up ` +
        `${lim.startup_time} s, memory ${Math.round((lim.memory_bytes || 0) / 1048576)} MB, ` +
        `CPU ${lim.cpu_seconds} s`);
      add("tourney version", c.tourney_version);
      box.append(dl);
      const t = el("table", { style: "margin-top:10px" });
      t.append(el("thead", {}, el("tr", {}, el("th", { class: "name" }, "bot"),
        el("th", { class: "name" }, "spec"), el("th", { class: "name" }, "sha256"))));
      const body = el("tbody");
      for (const b of c.bots) body.append(el("tr", {}, el("td", { class: "name" }, b.name),
        el("td", { class: "name" }, el("code", {}, b.spec)),
        el("td", { class: "name" }, el("code", {}, b.sha256 || "–"))));
      t.append(body);
      box.append(el("div", { class: "scroll" }, t));
    }
  }

  /* ---- games: filterable, paged ---- */
  function games() {
    const G = D.games;
    const n = G.game_id.length;
    const folderOf = {};
    for (const c of D.configs) folderOf[c.name] = c.folder;
    const bots = [...new Set(G.bots.flat())].sort();
    const terms = [...new Set(G.termination)].sort();
    const fBot = document.getElementById("f-bot"), fOpp = document.getElementById("f-opp");
    const fTerm = document.getElementById("f-term"), fId = document.getElementById("f-id");
    for (const b of bots) { fBot.append(el("option", { value: b }, b)); fOpp.append(el("option", { value: b }, b)); }
    for (const t of terms) fTerm.append(el("option", { value: t }, t));
    const PAGE = 50;
    let page = 0, shown = [];
    const table = document.getElementById("games-table");
    table.append(el("thead", {}, el("tr", {}, ...["game", "seats", "winner", "score",
      "termination", "decisions", "duration", "replay"].map((h, i) =>
      el("th", { class: i < 3 || i === 4 || i === 7 ? "name" : "" }, h)))));
    const body = el("tbody");
    table.append(body);
    function filter() {
      const b = fBot.value, o = fOpp.value, t = fTerm.value, id = fId.value.trim();
      shown = [];
      for (let i = 0; i < n; i++) {
        const seats = G.bots[i];
        if (b && !seats.includes(b)) continue;
        if (o && !seats.includes(o)) continue;
        if (t && G.termination[i] !== t) continue;
        if (id && !G.game_id[i].startsWith(id)) continue;
        shown.push(i);
      }
      page = 0; draw();
    }
    function draw() {
      body.textContent = "";
      const pages = Math.max(1, Math.ceil(shown.length / PAGE));
      page = Math.min(page, pages - 1);
      for (const i of shown.slice(page * PAGE, (page + 1) * PAGE)) {
        const id = G.game_id[i];
        const held = document.getElementById("replay-" + id) !== null;
        const term = G.termination[i];
        const chip = el("span", { class: "chip" + (G.rated[i] ? (["timeout", "crash",
          "illegal", "protocol_error"].includes(term) ? " forfeit" : "") : " void"),
        title: G.reason[i] }, G.rated[i] ? term : term + " (void)");
        const folder = folderOf[G.league[i]] || "FOLDER";
        const replay = held ? el("button", { class: "view", "data-replay": id,
          title: "open this game's replay", onclick: () => openReplay(id) }, "view") :
          el("code", { class: "cmd", title: "this page does not hold its replay; run this" },
            `tourney replay ${folder} ${id} --html ${id}.html`);
        body.append(el("tr", { "data-game": id },
          el("td", { class: "name" }, el("code", {}, id)),
          el("td", { class: "name" }, G.bots[i].join(" · ")),
          el("td", { class: "name" }, G.draw[i] ? "draw" : (G.winner[i] || "–")),
          el("td", {}, G.score[i].join("–")),
          el("td", { class: "name" }, chip),
          el("td", {}, String(G.decisions[i])),
          el("td", {}, G.duration[i].toFixed(2) + " s"),
          el("td", { class: "name" }, replay)));
      }
      document.getElementById("f-count").textContent = `${shown.length} of ${n} games`;
      document.getElementById("p-pos").textContent = `page ${page + 1} of ${pages}`;
      document.getElementById("p-prev").disabled = page === 0;
      document.getElementById("p-next").disabled = page >= pages - 1;
    }
    for (const f of [fBot, fOpp, fTerm]) f.addEventListener("change", filter);
    fId.addEventListener("input", filter);
    document.getElementById("p-prev").addEventListener("click", () => { page--; draw(); });
    document.getElementById("p-next").addEventListener("click", () => { page++; draw(); });
    filter();
  }

  /* ---- replays: each game's data is packed on its own in #replay-ID, unpacked when the
     game is opened, and shown by the viewer page (D.viewer) in a frame over the report ---- */
  const dialog = document.getElementById("replay-dialog");
  const frame = document.getElementById("replay-frame");
  async function openReplay(id) {
    const R = await tourneyData("replay-" + id);
    R.board = D.boards[`${R.game}/${R.players}`];
    /* plain JSON inside the frame's script element: "<" written as \u003c cannot end it */
    const json = JSON.stringify(R).replace(/</g, "\\u003c");
    frame.srcdoc = D.viewer.replace("<!--replay-data-->",
      () => `<script type="application/json" id="replay-data">${json}</` + "script>");
    document.getElementById("replay-title").textContent = R.header.title;
    dialog.dataset.game = id;
    if (!dialog.open) dialog.showModal();
    window.history.replaceState(null, "", "#game=" + id);
    frame.focus();
  }
  function closeReplay() {
    if (dialog.open) dialog.close();
  }
  dialog.addEventListener("close", () => {
    frame.srcdoc = "";
    delete dialog.dataset.game;
    if (location.hash.startsWith("#game=")) window.history.replaceState(null, "", "#games");
  });
  document.getElementById("replay-close").addEventListener("click", closeReplay);
  window.addEventListener("message", (e) => {
    if (e.source === frame.contentWindow && e.data === "tourney-close") closeReplay();
  });
  function fromAddress() {
    const m = /^#game=([\w-]+)$/.exec(location.hash);
    if (m && document.getElementById("replay-" + m[1])) openReplay(m[1]);
  }
  window.addEventListener("hashchange", fromAddress);

  /* ---- a live report (the league still runs) reloads itself, keeping where you were ---- */
  if (D.live) {
    const KEY = "tourney-report-scroll";
    const saved = Number(sessionStorage.getItem(KEY));
    if (saved) window.scrollTo(0, saved);
    sessionStorage.removeItem(KEY);
    const reload = () => {
      if (dialog.open) { setTimeout(reload, 5000); return; }  // never under an open replay
      sessionStorage.setItem(KEY, String(window.scrollY));
      location.reload();
    };
    setTimeout(reload, D.live * 1000);
  }

  leaderboard(); entrants(); h2h(); history(); health(); config(); games();
  document.body.dataset.ready = "1";
  fromAddress();
}).catch((err) => console.error("tourney: cannot read the page data:", err));
