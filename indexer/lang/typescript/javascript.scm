; ECMAScript extraction patterns shared by the javascript, typescript and tsx grammars, in
; the shared capture vocabulary (native/vocabulary.py). The construct capture (and, where one
; construct has several forms, the defining node: extract.py _key_of) picks the handler;
; @name, @body, @value, @left, @right, @callee and @arguments are the parts it reads.
; Written so the runner's walk runs them (native/walk.c): no alternatives (one pattern per
; node type instead, in the alternative's order) and at most three captures a pattern.

; ---- definitions (@body is where the definition's own code runs)
(class_declaration name: (_) @name body: (class_body) @body) @definition.class
(function_declaration name: (identifier) @name body: (statement_block) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (statement_block) @body) @definition.function
(method_definition name: (_) @name body: (statement_block) @body) @definition.method
(variable_declarator name: (identifier) @name value: (arrow_function) @value) @definition.function
(variable_declarator name: (identifier) @name value: (function_expression) @value) @definition.function
(variable_declarator name: (identifier) @name value: (generator_function) @value) @definition.function
; (the class's body is its value's `body` field: definitions.py reads it there)
(variable_declarator name: (identifier) @name value: (class body: (class_body)) @value) @definition.class
; `export const Button = forwardRef((props, ref) => ...)`: a top-level name bound to a wrapped
; function literal (the handler keeps only module-level ones).
(variable_declarator
  name: (identifier) @name
  value: (call_expression arguments: (arguments . (arrow_function) @value))) @definition.function
(variable_declarator
  name: (identifier) @name
  value: (call_expression arguments: (arguments . (function_expression) @value))) @definition.function
; CommonJS `exports.f = function () {}`, `module.exports = class {}`
(assignment_expression left: (member_expression) @left right: (arrow_function) @value) @definition.value
(assignment_expression left: (member_expression) @left right: (function_expression) @value) @definition.value
(assignment_expression left: (member_expression) @left right: (generator_function) @value) @definition.value
(assignment_expression left: (member_expression) @left right: (class) @value) @definition.value
; `export default function () {}` / `export default class {}` (anonymous)
(export_statement value: (function_expression) @value) @definition.value
(export_statement value: (arrow_function) @value) @definition.value
(export_statement value: (class) @value) @definition.value
(export_statement value: (generator_function) @value) @definition.value

; ---- other facts
(variable_declarator name: (_) @name) @binding.local
(assignment_expression left: (_) @left right: (_) @right) @assignment
(call_expression function: (_) @callee arguments: (arguments) @arguments) @reference.call
(new_expression constructor: (_) @callee) @reference.new
(decorator) @decorator
(import_statement) @import
(export_statement) @export
(return_statement (_) @value) @return
(ERROR) @error
