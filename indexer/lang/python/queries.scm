; Python extraction queries, in the shared capture vocabulary (native/vocabulary.py): the
; construct capture says what a match is, the part captures name its pieces. extract.py's
; rules and the native fact engine (native/facts.c) read the matches by these names.
; No (ERROR) pattern: root.has_error says the same without a check at every node.
(class_definition name: (identifier) @name body: (block) @body) @definition.class
(function_definition name: (identifier) @name body: (block) @body) @definition.function
(decorator) @decorator
(call function: (_) @callee arguments: (_) @arguments) @reference.call
(import_statement) @import
(import_from_statement) @import.from
(assignment left: (_) @left right: (_) @right) @assignment
(assignment left: (_) @left type: (type) @type) @binding.typed
(return_statement (_) @value) @return
(yield (_) @value) @yield
(type) @reference.type
(for_statement left: (_) @left right: (_) @right) @binding.iteration
(assignment left: (attribute) @left) @assignment.member
(named_expression name: (identifier) @left value: (_) @right) @assignment.expression
(with_item value: (_) @value) @binding.context
(for_in_clause left: (_) @left right: (_) @right) @binding.comprehension
(lambda parameters: (lambda_parameters) @parameters) @scope.lambda
