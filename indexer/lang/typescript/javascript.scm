; ECMAScript extraction patterns shared by the javascript, typescript and tsx grammars, in
; the shared capture vocabulary (native/vocabulary.py). The construct capture (and, where one
; construct has several forms, the defining node: extract.py _key_of) picks the handler;
; @name, @body, @value, @left, @right, @callee and @arguments are the parts it reads.
; At most three captures a pattern, so that the runner's walk runs them (native/walk.c).

; ---- definitions (@body is where the definition's own code runs)
(class_declaration name: (_) @name body: (class_body) @body) @definition.class
(function_declaration name: (identifier) @name body: (statement_block) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (statement_block) @body) @definition.function
(method_definition name: (_) @name body: (statement_block) @body) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @value) @definition.function
; (the class's body is its value's `body` field: definitions.py reads it there)
(variable_declarator name: (identifier) @name value: (class body: (class_body)) @value) @definition.class
; `export const Button = forwardRef((props, ref) => ...)`: a top-level name bound to a wrapped
; function literal (the handler keeps only module-level ones).
(variable_declarator
  name: (identifier) @name
  value: (call_expression
    arguments: (arguments . [(arrow_function) (function_expression)] @value))) @definition.function
; CommonJS `exports.f = function () {}`, `module.exports = class {}`
(assignment_expression
  left: (member_expression) @left
  right: [(arrow_function) (function_expression) (generator_function) (class)] @value) @definition.value
; `export default function () {}` / `export default class {}` (anonymous)
(export_statement
  value: [(function_expression) (arrow_function) (class) (generator_function)] @value) @definition.value

; ---- other facts
(variable_declarator name: (_) @name) @binding.local
(assignment_expression left: (_) @left right: (_) @right) @assignment
; a call alone: its callee and arguments are its `function` and `arguments` fields, which
; extract.py (native/call_sites.c) reads, taking the calls in their arguments' order (that of
; a pattern capturing them); a tagged template's `arguments` is no argument list: no site
(call_expression) @reference.call
(new_expression constructor: (_) @callee) @reference.new
(decorator) @decorator
(import_statement) @import
(export_statement) @export
(return_statement (_) @value) @return
(ERROR) @error
