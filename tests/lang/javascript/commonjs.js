// JavaScript: CommonJS require and module.exports, constructor functions and object literals.
// (was test_lang_typescript.py: test_commonjs_require_and_module_exports)
//
//   `exports.add = function`, `module.exports.Calc = Calc`, `module.exports = class Klass`,
//   `module.exports = main`: what require() of the file gives
//   `const { add, Calc: Calculator } = require("./math")`, `require("./math").sub`
//   members assigned onto a constructor's prototype (Route.prototype.dispatch) or onto the
//   module's object (app.init) are methods; `this` in a prototype method is an instance, in
//   `obj.m = function` it is obj; a constructor function makes instances with those members
//   TypeScript importing JavaScript: a default import, `import X = require(...)`
//   `exports.add = ...` binds no name `add`: the call inside `sub` is a ReferenceError at
//   run time, so it stays unresolved; describe/it/expect are the test runner's globals
//
// expect: calls.unresolved = 1
// expect: calls.builtin = 4
// exact: calls, imports, references, extends, implements
// path: app/use.ts
import main from "../lib";
    // ^ imports: lib/index.main
import { add } from "../lib/math";
      // ^ imports: lib/math.add
import Klass = require("../lib/klass");
                            // ^ imports: lib/klass
import app from "../lib/app";
    // ^ imports: lib/app.app
export function go() { main(); add(1, 2); new Klass(); app.init(); }
                                                    // ^ calls: lib/app.app.init (import)
                    // ^ calls: lib/index.main (import)
                                           // ^ calls: lib/klass.Klass (import)
                            // ^ calls: lib/math.add (import)
             // ^ defines: app/use.go function
// path: lib/__tests__/main.test.js
const main = require("..");
          // ^ imports: lib/index
describe("main", () => { it("runs", () => { main(); expect(1).toBe(1); }); });
       // ^ calls: lib/index.main (import)
// path: lib/app.js
var Route = require("./route");
                    // ^ imports: lib/route
var app = exports = module.exports = {};
 // ^ defines: lib/app.app variable
app.init = function init() { this.route("/"); };
                          // ^ calls: lib/app.app.route (self)
// ^ defines: lib/app.app.init method
app.route = function route(path) { var r = new Route(path); r.dispatch(); return r; };
                                            // ^ calls: lib/route.Route (import)
                                                         // ^ calls: lib/route.Route.dispatch (local-type)
// ^ defines: lib/app.app.route method
// path: lib/index.js
const { add, Calc: Calculator } = require("./math");
          // ^ imports: lib/math.Calc
     // ^ imports: lib/math.add
const math = require("./math");
   // ^ imports: lib/math
const Klass = require("./klass");
                      // ^ imports: lib/klass
const sub = require("./math").sub;
   // ^ defines: lib/index.sub variable
   // ^ imports: lib/math.sub
function main() {
      // ^ defines: lib/index.main function
  add(1, 2);
// ^ calls: lib/math.add (import)
  math.sub(1, 2);
// ^ calls: lib/math.sub (import)
  sub(3, 4);
  new Calculator().mul(2, 3);
   // ^ calls: lib/math.Calc (import)
   // ^ calls: lib/math.Calc.mul (local-type)
  new Klass().go();
   // ^ calls: lib/klass.Klass (import)
   // ^ calls: lib/klass.Klass.go (local-type)
}
module.exports = main;
// path: lib/klass.js
module.exports = class Klass { go() { return 1; } };
                    // ^ defines: lib/klass.Klass class
                            // ^ defines: lib/klass.Klass.go method
// path: lib/math.js
exports.add = function (a, b) { return a + b; };
// ^ defines: lib/math.add function
exports.sub = (a, b) => add(a, -b);
// ^ defines: lib/math.sub function
                     // ^ unresolved: add
class Calc { mul(a, b) { return a * b; } }
   // ^ defines: lib/math.Calc class
          // ^ defines: lib/math.Calc.mul method
module.exports.Calc = Calc;
// path: lib/route.js
function Route(path) { this.path = path; }
      // ^ defines: lib/route.Route function
Route.prototype.dispatch = function dispatch() { return this.match(); };
                                                     // ^ calls: lib/route.Route.match (self)
// ^ defines: lib/route.Route.dispatch method
Route.prototype.match = function () { return true; };
// ^ defines: lib/route.Route.match method
module.exports = Route;
