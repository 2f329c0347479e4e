// TypeScript: import specifiers (paths aliases, baseUrl, index files, .js -> .ts) and re-export chains.
// (was test_lang_typescript.py: test_imports_paths_aliases_index_files_and_reexport_chains)
//
// test_imports_paths_aliases_index_files_and_reexport_chains:
//   export * / export * as: the module; export { a as b }: the definition
//   `../utils` is the index file; `slug` is slugify through the re-export
//   a paths alias to one file, a paths alias with a wildcard, baseUrl, `.js` -> `.ts`
//   not defined in the barrel: its only `export *` from outside is where it comes from
// exact: calls, imports, references, extends, implements
// path: src/app/main.ts
import { User } from "@models";
      // ^ imports: src/models/user.User
import { shout } from "@utils/str";
      // ^ imports: src/utils/str.shout
import { strings, debounce } from "src/utils";
               // ^ imports: <external>::lodash-es.debounce
// ^ imports: src/utils/str
import * as utils from "../utils/index.js";
                              // ^ imports: src/utils/index
import React from "react";
                // ^ imports: <external>::react
import { readFileSync } from "node:fs";
      // ^ imports: <external>::node:fs.readFileSync
import "./side-effect";
       // ^ imports: src/app/side-effect
export function run() {
  new User().key();
   // ^ calls: src/models/user.User (import)
   // ^ calls: src/models/user.User.key (local-type)
  shout("a");
// ^ calls: src/utils/str.shout (import)
  strings.slugify("b");
// ^ calls: src/utils/str.slugify (import)
  utils.slug("c");
  readFileSync("x");
// ^ calls: <external>::node:fs.readFileSync (import)
  React.createElement("div");
// ^ calls: <external>::react.createElement (import)
  debounce();
// ^ calls: <external>::lodash-es.debounce (import)
}
// path: src/app/side-effect.ts
console.log('loaded');
// path: src/models/index.ts
export { default as User } from "./user";
                 // ^ imports: src/models/user.User
// path: src/models/user.ts
import { slug } from "../utils";
// ^ imports: src/utils/str.slugify
export default class User {
  key() { return slug("u"); }
// ^ calls: src/utils/str.slugify (import)
}
// path: src/utils/index.ts
export * from "./str";
              // ^ imports: src/utils/str
export { slugify as slug } from "./str";
      // ^ imports: src/utils/str.slugify
export * as strings from "./str";
export * from "lodash-es";
            // ^ imports: <external>::lodash-es
// path: src/utils/str.ts
export function slugify(s: string) { return s.trim(); }
                                         // ^ unresolved: trim
export const shout = (s: string) => s + "!";
// path: tsconfig.base.json
{ "compilerOptions": { "baseUrl": "." } }
// path: tsconfig.json
{
  // JSONC: comments, "src/*"-like strings and trailing commas
  "extends": "./tsconfig.base.json",
  "compilerOptions": {
    "paths": { "@utils/*": ["src/utils/*"], "@models": ["src/models/index.ts"], },
  },
}
