/* Shared by the report and the viewer: the page's data is gzip-compressed JSON in base64
   (a tenth of the plain JSON), decompressed by the browser's own DecompressionStream; a
   viewer the report opens gets its game's data as plain JSON (application/json). */
"use strict";
async function tourneyData(id) {
  const node = document.getElementById(id);
  const text = node.textContent.trim();
  if (node.type === "application/json") return JSON.parse(text);
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
