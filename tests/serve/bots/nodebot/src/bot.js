// A tourney bot in Node.js: JSON lines on stdin and stdout; it plays the last legal action.
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
function say(message) { process.stdout.write(JSON.stringify(message) + "\n"); }
lines.on("line", (line) => {
  const request = JSON.parse(line);
  if (request.type === "start") say({ type: "ready" });
  else if (request.type === "act") {
    const legal = request.legal_actions;
    say({ type: "action", action: legal[legal.length - 1] });
  } else if (request.type === "end") say({ type: "ok" });
  else if (request.type === "quit") process.exit(0);
});
