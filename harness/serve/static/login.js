// An invitation link carries the token in its fragment (/login#tny_...), which the browser
// never sends to the server: fill it in, and take it out of the address bar.
"use strict";
(function () {
  const token = decodeURIComponent(location.hash.slice(1));
  if (token.startsWith("tny_")) {
    document.getElementById("token").value = token;
    history.replaceState(null, "", location.pathname);
  }
})();
