import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
const src = readFileSync(process.argv[2], "utf8").replace(/\/\/# sourceMappingURL.*$/m, "");
const imports = src.match(/import\s*\{[^}]*\}\s*from\s*"[^"]+";?/g) ?? [];
let body = src; for (const i of imports) body = body.replace(i, "");
body = body.replace(/export\s*\{[^}]*\};?\s*$/, "");
mkdirSync(process.argv[3], { recursive: true });
writeFileSync(process.argv[3] + "/worker.js", imports.join("") + `export default {fetch(){return new Response("ok")}};\nfunction __never(){${body}}\n`);
