// A second TypeScript generator beside openapi-typescript: orval writes a fetch client (one function
// per operation, its bodies and answers typed) from the live document, which .ci/run then compiles
// with `tsc --strict`. Both files are in target/, where .ci/run saves the document.
const path = require("node:path");
const target = path.join(__dirname, "..", "..", "target");

module.exports = {
  docsieve: {
    input: path.join(target, "openapi.json"),
    output: { target: path.join(target, "orval", "docsieve.ts"), client: "fetch", mode: "single" },
  },
};
