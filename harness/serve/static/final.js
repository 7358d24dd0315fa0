// tourney serve: the leaderboard follows the deadline and the final. It asks /api/final every
// few seconds and reloads the page when the final has moved on (entries closed, a meeting
// played, the state changed), until its standings are published.
"use strict";
(function () {
  const me = document.currentScript;
  const PERIOD = 3000;
  const seen = me.dataset.mark;
  function mark(final) { return final.state + ":" + final.games + ":" + final.closed; }
  async function look() {
    try {
      const answer = await fetch("/api/final", {cache: "no-store"});
      if (answer.ok) {
        const final = await answer.json();
        if (mark(final) !== seen) {
          window.location.reload();
          return;
        }
      }
    } catch (err) {
      // the server is restarting: look again later
    }
    window.setTimeout(look, PERIOD);
  }
  window.setTimeout(look, PERIOD);
})();
