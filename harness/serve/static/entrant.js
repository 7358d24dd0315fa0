// While an entry check runs, look at it every two seconds and reload the page when it ends.
"use strict";
(function () {
  async function poll() {
    try {
      const r = await fetch("/api/me", {cache: "no-store"});
      if (r.ok) {
        const me = await r.json();
        if (!me.submissions.some(s => s.status === "validating")) { location.reload(); return; }
      }
    } catch (e) { /* try again */ }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();
