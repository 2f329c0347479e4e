// Jest/Vitest (issue 26 point 1): a variable declared in a test file (or a describe block) and
// assigned in beforeEach holds what was assigned there, so the tests' calls on it resolve;
// the callbacks of test/it/describe/beforeEach are part of the file (their calls are the
// module's).
// path: package.json
// {"name": "m"}
// path: src/calc.ts
export class Calculator {
  add(a: number, b: number): number { return a + b; }
}

export class Other {
  sub(a: number, b: number): number { return a - b; }
}
// path: src/calc.test.ts
import { Calculator, Other } from "./calc";

let calc;

beforeEach(() => {
  calc = new Calculator();
  //         ^ calls: src/calc.Calculator
});

test("adds", () => {
  calc.add(1, 2);
  //   ^ calls: src/calc.Calculator.add (local-type)
});

describe("group", () => {
  let inner;
  beforeEach(() => {
    inner = new Other();
    //          ^ calls: src/calc.Other
  });
  it("subtracts", () => {
    inner.sub(1, 2);
    //    ^ calls: src/calc.Other.sub (local-type)
  });
});
