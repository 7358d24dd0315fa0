// The build step: writes built/bot.js from src/bot.js (a stand-in for a compiler).
const fs = require("fs");
fs.mkdirSync("built", { recursive: true });
const source = fs.readFileSync("src/bot.js", "utf8");
fs.writeFileSync("built/bot.js", "// built by make.js\n" + source);
console.log("built built/bot.js (" + source.length + " bytes)");
