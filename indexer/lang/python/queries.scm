; Python extraction queries, in the shared capture vocabulary (native/vocabulary.py): the
; construct capture says what a match is, the part captures name its pieces. extract.py's
; rules and the native fact engine (native/facts.c) read the matches by these names.
; No (ERROR) pattern: root.has_error says the same without a check at every node.
(class_definition name: (identifier) @name body: (block) @body) @definition.class
(function_definition name: (identifier) @name body: (block) @body) @definition.function
(decorator) @decorator
(decorator (call function: (_) @callee arguments: (argument_list) @arguments)) @binding.parameter
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
; binding.item: literal collections, `x[k] = v`, unpacking (no alternations: the native walk runs none)
(assignment left: (identifier) @left right: (list) @right) @binding.item
(assignment left: (identifier) @left right: (tuple) @right) @binding.item
(assignment left: (identifier) @left right: (set) @right) @binding.item
(assignment left: (identifier) @left right: (dictionary) @right) @binding.item
(assignment left: (attribute) @left right: (list) @right) @binding.item
(assignment left: (attribute) @left right: (tuple) @right) @binding.item
(assignment left: (attribute) @left right: (set) @right) @binding.item
(assignment left: (attribute) @left right: (dictionary) @right) @binding.item
(assignment left: (pattern_list) @left right: (_) @right) @binding.item
(assignment left: (tuple_pattern) @left right: (_) @right) @binding.item
(assignment left: (list_pattern) @left right: (_) @right) @binding.item
(assignment left: (subscript) @left right: (_) @right) @binding.item
(lambda parameters: (lambda_parameters) @parameters) @scope.lambda
; a member read as a value: kept for the outermost member of a chain that no other fact reads
; (extract.py `member_read`, native facts_bind.c `member_read`)
(attribute) @reference.member
