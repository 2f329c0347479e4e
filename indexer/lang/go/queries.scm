; Go extraction queries, in the shared capture vocabulary (native/vocabulary.py): the
; construct capture picks the handler in extract.py; the part captures are its pieces.

; ---- definitions
(package_clause (package_identifier) @name) @package
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (_) @type) @definition.type
(type_alias name: (type_identifier) @name type: (_) @type) @definition.type_alias
(var_spec) @definition.variable
(const_spec) @definition.constant

; ---- imports
(import_spec path: (_) @path) @import

; ---- uses
(call_expression function: (_) @callee arguments: (argument_list) @arguments) @reference.call
(type_identifier) @reference.type
(qualified_type) @reference.type
(selector_expression operand: (identifier) @receiver field: (field_identifier) @name) @reference.member

; ---- locals (typing of receivers inside function bodies)
(short_var_declaration left: (expression_list) @left right: (expression_list) @right) @binding.local
(range_clause left: (expression_list) @left) @binding.iteration
(type_switch_statement alias: (expression_list) @left) @binding.pattern
(func_literal parameters: (parameter_list) @parameters) @scope.lambda
