; JSX elements render their component: `<Button />` is a use of Button (javascript, tsx).
(jsx_opening_element name: (_) @callee) @reference.render
(jsx_self_closing_element name: (_) @callee) @reference.render
