/* Shared by the report and the viewer: the page's data is gzip-compressed JSON in base64
   (a tenth of the plain JSON), decompressed by the browser's own DecompressionStream. */
"use strict";
async function tourneyData(id) {
  const text = document.getElementById(id).textContent.trim();
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
