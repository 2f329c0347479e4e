// TypeScript: calls on typed receivers, constructors, super, inheritance and dispatch.
// (was test_lang_typescript.py: test_calls_receivers_constructors_super_inheritance_dispatch)
//
// test_calls_receivers_constructors_super_inheritance_dispatch:
//   static method returning a typed value; `new` runs the class and its constructor
//   this.m(): self, plus overrides in subclasses (dispatch); abstract m(): dispatch
//   super(...) is the base constructor, super.m() the base method
//   an interface-typed parameter: the interface method (inherited from Drawable),
//   then each implementation
//   a constructor parameter property; a typed field of an interface type
//   a local built with `new` (draw is inherited from Base), an inherited static,
//   a call on a declared return type
//   mystery.frobnicate() and s.unknownThing() cannot be resolved and are not guessed
//
// expect: calls.unresolved = 2
// exact: calls, imports, references, extends, implements
// path: src/model/base.ts
import { Shape } from "./contracts";
      // ^ imports: src/model/contracts.Shape
export abstract class Base implements Shape {
                                   // ^ implements: src/model/contracts.Shape
  constructor(protected size: number) {}
  static make(): Circle { return new Circle(1); }
              // ^ calls: src/model/circle.Circle (import)
              // ^ calls: src/model/circle.Circle.constructor (constructor)
              // ^ references: src/model/circle.Circle (import)
  abstract area(): number;
  draw() { this.outline(); this.area(); }
                        // ^ calls: src/model/base.Base.area (self)
        // ^ calls: src/model/base.Base.outline (self)
                        // ^ calls: src/model/circle.Circle.area (dispatch)
        // ^ calls: src/model/circle.Circle.outline (dispatch)
                        // ^ calls: src/model/square.Square.area (dispatch)
  outline() {}
}
import { Circle } from "./circle";
      // ^ imports: src/model/circle.Circle
// path: src/model/circle.ts
import { Base } from "./base";
      // ^ imports: src/model/base.Base
export class Circle extends Base {
                         // ^ extends: src/model/base.Base
  constructor(r: number) { super(r); }
// ^ calls: src/model/base.Base.constructor (super)
  area() { return 3 * this.size; }
  outline() { super.outline(); }
// ^ calls: src/model/base.Base.outline (super)
}
// path: src/model/contracts.ts
export interface Drawable { draw(): void; }
export interface Shape extends Drawable { area(): number; }
                            // ^ extends: src/model/contracts.Drawable
// path: src/model/square.ts
import { Base } from "./base";
      // ^ imports: src/model/base.Base
export class Square extends Base {
                         // ^ extends: src/model/base.Base
  area() { return this.size; }
}
// path: src/service.ts
import { Shape } from "./model/contracts";
      // ^ imports: src/model/contracts.Shape
import { Circle } from "./model/circle";
      // ^ imports: src/model/circle.Circle
function build(): Circle { return new Circle(0); }
               // ^ calls: src/model/circle.Circle (import)
               // ^ calls: src/model/circle.Circle.constructor (constructor)
               // ^ references: src/model/circle.Circle (import)
class Renderer {
  private current: Shape;
                // ^ references: src/model/contracts.Shape (import)
  constructor(private readonly circle: Circle) {}
                                    // ^ references: src/model/circle.Circle (import)
  paint(s: Shape) {
        // ^ references: src/model/contracts.Shape (import)
    s.draw();
 // ^ calls: src/model/base.Base.draw (dispatch)
 // ^ calls: src/model/contracts.Drawable.draw (local-type)
    s.unknownThing();
 // ^ unresolved: unknownThing
  }
  fields() {
    this.circle.outline();
 // ^ calls: src/model/circle.Circle.outline (local-type)
    this.current.area();
 // ^ calls: src/model/base.Base.area (dispatch)
 // ^ calls: src/model/circle.Circle.area (dispatch)
 // ^ calls: src/model/contracts.Shape.area (local-type)
 // ^ calls: src/model/square.Square.area (dispatch)
  }
  locals() {
    const c = new Circle(2);
               // ^ calls: src/model/circle.Circle (import)
               // ^ calls: src/model/circle.Circle.constructor (constructor)
    c.draw();
 // ^ calls: src/model/base.Base.draw (local-type)
    Circle.make();
 // ^ calls: src/model/base.Base.make (inheritance)
    build().outline();
 // ^ calls: src/model/circle.Circle.outline (local-type)
 // ^ calls: src/service.build (scope)
    mystery.frobnicate();
 // ^ unresolved: frobnicate
  }
}
