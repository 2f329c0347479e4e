// TSX and JSX: component files (was test_lang_typescript.py: test_tsx_component_files).
//
// - a component made by a call (`forwardRef(...)`) is a function named by its const; the
//   call itself is the module's (test_lang_typescript.py checks which scope calls);
// - JSX elements call their components: `<Button />`, `<Icon />` (a default import), a
//   namespace member `<Layout.Frame>`; an intrinsic element (`<div>`) calls nothing;
// - .jsx files are JavaScript, .tsx files TSX, `*.test.tsx` files tests (checked by
//   test_lang_typescript.py, which indexes this project).
// Every definition, CONTAINS edge and edge of the project is asserted (exact).
//
// exact: calls, imports, references, extends, implements, defines, in
// path: ui/Button.tsx
import React, { forwardRef } from "react";
                                // ^ imports: <external>::react
             // ^ imports: <external>::react.forwardRef
// ^ defines: ui/Button module 1-22
type Props = { label: string };
  // ^ defines: ui/Button.Props type_alias 5-5
  // ^ in: ui/Button
export const Button = forwardRef<HTMLButtonElement, Props>((props, ref) => {
                   // ^ calls: <external>::react.forwardRef (import) from ui/Button
          // ^ defines: ui/Button.Button function 8-15
                                                 // ^ references: ui/Button.Props (scope) from ui/Button.Button
          // ^ in: ui/Button
  return <button ref={ref}>{format(props.label)}</button>;
                         // ^ calls: ui/Button.format (scope) from ui/Button.Button
});
function format(s: string) { return s; }
      // ^ defines: ui/Button.format function 16-16
      // ^ in: ui/Button
export default function Icon() { return <svg />; }
                     // ^ defines: ui/Button.Icon function 19-19
                     // ^ in: ui/Button
// path: ui/Page.test.tsx
import { Page } from "./Page";
      // ^ imports: ui/Page.Page
// ^ defines: ui/Page.test module 1-7
test("renders", () => { render(<Page />); });
                             // ^ calls: ui/Page.Page (import) from ui/Page.test
                     // ^ unresolved: render
// path: ui/Page.tsx
import { useState } from "react";
      // ^ imports: <external>::react.useState
// ^ defines: ui/Page module 1-26
import Icon, { Button } from "./Button";
            // ^ imports: ui/Button.Button
    // ^ imports: ui/Button.Icon
import * as Layout from "./layout";
                        // ^ imports: ui/layout
export function Page() {
             // ^ defines: ui/Page.Page function 9-25
             // ^ in: ui/Page
  const [n, setN] = useState(0);
                 // ^ calls: <external>::react.useState (import) from ui/Page.Page
  return (
    <Layout.Frame>
  // ^ calls: ui/layout.Frame (import) from ui/Page.Page
      <Button label="x" />
    // ^ calls: ui/Button.Button (import) from ui/Page.Page
      <Icon />
    // ^ calls: ui/Button.Icon (import) from ui/Page.Page
      <div onClick={() => setN(n + 1)} />
                       // ^ unresolved: setN
    </Layout.Frame>
  );
}
// path: ui/layout.jsx
export function Frame({ children }) { return <main>{children}</main>; }
             // ^ defines: ui/layout.Frame function 1-1
// ^ defines: ui/layout module 1-5
             // ^ in: ui/layout
