// An error page's "Back": the page before it, as the browser's own Back button would go (the
// link's address, the page the request came from or the leaderboard, is where it goes when
// there is no page before).
"use strict";
(function () {
  const back = document.getElementById("back");
  if (!back) return;
  back.addEventListener("click", (event) => {
    if (history.length > 1) {
      event.preventDefault();
      history.back();
    }
  });
})();
