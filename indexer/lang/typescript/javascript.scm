; ECMAScript extraction patterns shared by the javascript, typescript and tsx grammars.
; The outermost capture of a pattern names its handler in extract.py; @name, @body,
; @value, @lhs, @rhs, @callee and @args are the parts a handler reads.

; ---- definitions (@body is where the definition's own code runs)
(class_declaration name: (_) @name body: (class_body) @body) @class
(function_declaration name: (identifier) @name body: (statement_block) @body) @function
(generator_function_declaration name: (identifier) @name body: (statement_block) @body) @function
(method_definition name: (_) @name body: (statement_block) @body) @method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @value) @var_function
(variable_declarator name: (identifier) @name value: (class body: (class_body) @body) @value) @var_class
; `export const Button = forwardRef((props, ref) => ...)`: a top-level name bound to a wrapped
; function literal (the handler keeps only module-level ones).
(variable_declarator
  name: (identifier) @name
  value: (call_expression
    arguments: (arguments . [(arrow_function) (function_expression)] @value))) @var_wrapped
; CommonJS `exports.f = function () {}`, `module.exports = class {}`
(assignment_expression
  left: (member_expression) @lhs
  right: [(arrow_function) (function_expression) (generator_function) (class)] @value) @assign_def
; `export default function () {}` / `export default class {}` (anonymous)
(export_statement
  value: [(function_expression) (arrow_function) (class) (generator_function)] @value) @default_def

; ---- other facts
(variable_declarator name: (_) @name) @declarator
(assignment_expression left: (_) @lhs right: (_) @rhs) @assign
(call_expression function: (_) @callee arguments: (arguments) @args) @call
(new_expression constructor: (_) @callee) @new
(decorator) @decorator
(import_statement) @import
(export_statement) @export
(return_statement (_) @value) @return
(ERROR) @error
