; Python extraction queries. Capture names are the contract with extract.py.
; native/syntax.c reproduces these patterns' matches (its PYTHON_PATTERNS): change both.
; No (ERROR) pattern: root.has_error says the same without a check at every node.
(class_definition name: (identifier) @name body: (block) @body) @class
(function_definition name: (identifier) @name body: (block) @body) @function
(decorator) @decorator
; no capture of the call itself: it starts where @callee does, and one node fewer per call counts
(call function: (_) @callee arguments: (_) @args)
(import_statement) @import
(import_from_statement) @import_from
(future_import_statement) @import_future
(assignment left: (_) @lhs right: (_) @rhs) @assign
(assignment left: (_) @lhs type: (type) @vartype) @annassign
(return_statement (_) @value) @return
(type) @annotation
(for_statement left: (_) @for_lhs right: (_) @for_rhs) @for
(named_expression name: (identifier) @walrus_name value: (_) @walrus_value) @walrus
(with_item value: (as_pattern . (_) @with_value alias: (as_pattern_target (identifier) @with_name))) @with
(for_in_clause left: (_) @for_lhs right: (_) @for_rhs) @compfor
(lambda parameters: (lambda_parameters) @lambda_params) @lambda
