// tourney serve: the leaderboard refreshes itself from /api/leaderboard (no reload). Every
// value is written with textContent: entrant names are hostile text.
"use strict";
(function () {
  const body = document.querySelector("#board tbody");
  const live = document.getElementById("live");
  const PERIOD = 2000;
  let last = "";
  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
  }
  function signed(x) { const r = Math.round(x); return (r > 0 ? "+" : "") + r; }
  function pad(n) { return String(n).padStart(2, "0"); }
  function when(seconds) {  // as the page prints it: UTC, to the minute
    if (seconds === null || seconds === undefined) return "–";
    const d = new Date(seconds * 1000);
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) +
      " " + pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes());
  }
  function draw(board) {
    const key = JSON.stringify(board.entrants);
    if (key === last) return;
    const before = {};
    for (const tr of body.querySelectorAll("tr[data-entrant]")) before[tr.dataset.entrant] = tr.dataset.games;
    last = key;
    body.replaceChildren();
    if (!board.entrants.length) {
      const tr = document.createElement("tr");
      tr.className = "empty";
      cell(tr, "No entrants yet.", "name");
      tr.firstChild.colSpan = 10;
      body.appendChild(tr);
      return;
    }
    for (const e of board.entrants) {
      const tr = document.createElement("tr");
      tr.dataset.entrant = e.entrant;
      tr.dataset.games = String(e.games);
      cell(tr, String(e.rank));
      const name = document.createElement("td");
      name.className = "name";
      const link = document.createElement("a");
      link.href = "/entrants/" + encodeURIComponent(e.entrant);
      link.textContent = e.entrant;
      name.appendChild(link);
      tr.appendChild(name);
      cell(tr, "v" + e.version);
      cell(tr, e.rating === null ? "–" : signed(e.rating));
      cell(tr, e.interval === null ? "–" : String(Math.round(e.interval)));
      cell(tr, String(e.games));
      cell(tr, e.score === null ? "–" : (100 * e.score).toFixed(1) + "%");
      cell(tr, e.wins + "/" + e.draws + "/" + e.losses, "wdl");
      cell(tr, when(e.last_active), "name");
      cell(tr, e.status, "name status-" + e.status.replace(/[^a-z]/g, ""));
      if (before[e.entrant] !== undefined && before[e.entrant] !== String(e.games)) tr.className = "flash";
      body.appendChild(tr);
    }
  }
  async function poll() {
    try {
      const r = await fetch("/api/leaderboard", {cache: "no-store"});
      if (!r.ok) throw new Error(String(r.status));
      draw(await r.json());
      live.textContent = "live";
      live.className = "pill";
    } catch (err) {
      live.textContent = "reconnecting";
      live.className = "pill stale";
    }
    setTimeout(poll, PERIOD);
  }
  const first = document.getElementById("board-data");
  if (first) { try { last = JSON.stringify(JSON.parse(first.textContent).entrants); } catch (e) { last = ""; } }
  setTimeout(poll, PERIOD);
})();
