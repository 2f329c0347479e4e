// TypeScript: definitions, their kinds, qualified names, spans and exports.
// (was test_lang_typescript.py: test_definitions_kinds_qualified_names_and_lines)
//
// - interfaces and their members, enums, type aliases, abstract classes, constructors,
//   accessors (a getter and a setter of one name: `side`, `side#2`), private `#secret`;
// - an overload signature is not a definition; its implementation is;
// - arrow functions and function expressions bound to a const are functions; a class field
//   holding an arrow function is a method; a namespace is a module;
// - a declaration file: `declare module "x"` describes another module, not this one (its
//   `hidden` is no definition here);
// - exported: what `export` marks; `Named`, `LIMIT` and `#secret` are not.
// Every definition, CONTAINS edge and edge of the project is asserted (exact).
//
// expect: files_by_status.ok = 2
// exact: calls, imports, references, extends, implements, defines, in
// path: src/decl.d.ts
export declare function version(): string;
                     // ^ defines: src/decl.version function 1-1 exported
// ^ defines: src/decl module 1-8 exported
                     // ^ in: src/decl
declare module "untyped-lib" {
  export function hidden(): void;
}
// path: src/shapes.ts
export interface Shape extends Named {
              // ^ defines: src/shapes.Shape interface 1-10 exported
                            // ^ extends: src/shapes.Named
// ^ defines: src/shapes module 1-90 exported
              // ^ in: src/shapes
  area(): number;
// ^ defines: src/shapes.Shape.area method 6-6 exported
// ^ in: src/shapes.Shape
  label: string;
}
interface Named { name(): string }
       // ^ defines: src/shapes.Named interface 11-11 unexported
               // ^ defines: src/shapes.Named.name method 11-11 exported
       // ^ in: src/shapes
               // ^ in: src/shapes.Named
export enum Color { Red, Green }
         // ^ defines: src/shapes.Color enum 16-16 exported
         // ^ in: src/shapes
export type Id = string | number;
         // ^ defines: src/shapes.Id type_alias 19-19 exported
         // ^ in: src/shapes
export abstract class Base implements Shape {
                   // ^ defines: src/shapes.Base class 22-45 exported
                                   // ^ implements: src/shapes.Shape
                   // ^ in: src/shapes
  constructor(protected size: number) {}
// ^ defines: src/shapes.Base.constructor method 26-26 exported
// ^ in: src/shapes.Base
  abstract area(): number;
        // ^ defines: src/shapes.Base.area method 29-29 exported
        // ^ in: src/shapes.Base
  name() { return "base"; }
// ^ defines: src/shapes.Base.name method 32-32 exported
// ^ in: src/shapes.Base
  label = "b";
  get side() { return this.size; }
   // ^ defines: src/shapes.Base.side method 36-36 exported
   // ^ in: src/shapes.Base
  set side(v: number) { this.size = v; }
   // ^ defines: src/shapes.ts::Base.side#2 method 39-39 exported
   // ^ in: src/shapes.Base
  #secret() {}
// ^ defines: src/shapes.Base.secret method 42-42 unexported
// ^ in: src/shapes.Base
}
export function make(kind: string): Shape;
                                 // ^ references: src/shapes.Shape (scope)
export function make(kind: string, size?: number): Shape {
             // ^ defines: src/shapes.make function 48-59 exported
                                                // ^ references: src/shapes.Shape (scope)
             // ^ in: src/shapes
  const inner = () => 1;
     // ^ defines: src/shapes.make.inner function 52-52 unexported
     // ^ in: src/shapes.make
  return new Square(size ?? inner());
          // ^ calls: src/shapes.Base.constructor (constructor)
          // ^ calls: src/shapes.Square (scope)
                         // ^ calls: src/shapes.make.inner (scope)
}
export const twice = (n: number) => n * 2;
          // ^ defines: src/shapes.twice function 60-60 exported
          // ^ in: src/shapes
export const half = function (n: number) { return n / 2; };
          // ^ defines: src/shapes.half function 63-63 exported
          // ^ in: src/shapes
const LIMIT = 10;
   // ^ defines: src/shapes.LIMIT variable 66-66 unexported
   // ^ in: src/shapes
export class Square extends Base {
          // ^ defines: src/shapes.Square class 69-80 exported
                         // ^ extends: src/shapes.Base
          // ^ in: src/shapes
  area() { return this.size * this.size; }
// ^ defines: src/shapes.Square.area method 73-73 exported
// ^ in: src/shapes.Square
  onClick = () => this.area();
               // ^ calls: src/shapes.Square.area (self)
// ^ defines: src/shapes.Square.onClick method 76-76 exported
// ^ in: src/shapes.Square
}
export namespace Geometry {
              // ^ defines: src/shapes.Geometry module 81-89 exported
              // ^ in: src/shapes
  export function unit() { return new Square(1); }
               // ^ calls: src/shapes.Base.constructor (constructor)
                                   // ^ calls: src/shapes.Square (scope)
               // ^ defines: src/shapes.Geometry.unit function 84-84 exported
               // ^ in: src/shapes.Geometry
}
