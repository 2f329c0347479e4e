; Go extraction queries. The capture that names the construct (@function, @call, ...)
; picks the handler in extract.py; the other captures are its parts.

; ---- definitions
(package_clause (package_identifier) @package_name) @package
(function_declaration name: (identifier) @name) @function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (_) @type) @type_spec
(type_alias name: (type_identifier) @name type: (_) @type) @type_alias
(var_spec) @var_spec
(const_spec) @const_spec

; ---- imports
(import_spec path: (_) @path) @import

; ---- uses
(call_expression function: (_) @callee arguments: (argument_list) @args) @call
(type_identifier) @typeref
(qualified_type) @qualified_typeref
(selector_expression operand: (identifier) @operand field: (field_identifier) @field) @selector

; ---- locals (typing of receivers inside function bodies)
(short_var_declaration left: (expression_list) @lhs right: (expression_list) @rhs) @short_var
(range_clause left: (expression_list) @lhs) @range
(type_switch_statement alias: (expression_list) @lhs) @type_switch
(func_literal parameters: (parameter_list) @params) @func_literal
