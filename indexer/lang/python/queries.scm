; Python extraction queries, in the shared capture vocabulary (native/vocabulary.py): the
; construct capture says what a match is, the part captures name its pieces. extract.py's
; rules and the native fact engine (native/facts.c) read the matches by these names.
; No (ERROR) pattern: root.has_error says the same without a check at every node.
; a definition alone: its name and body are its `name` and `body` fields (an identifier and a
; block, by the grammar), which the rules read (facts.c sort_matches, query_facts.py); a
; pattern capturing them kept a state over every def's parameters until its body
(class_definition) @definition.class
(function_definition) @definition.function
(decorator) @decorator
(decorator (call function: (_) @callee arguments: (argument_list) @arguments)) @binding.parameter
; a call alone: its callee and arguments are its `function` and `arguments` fields, read in
; their arguments' order, that of a pattern capturing them (facts.c sort_calls, query_facts.py)
(call) @reference.call
(import_statement) @import
(import_from_statement) @import.from
; an assignment that stores into or unpacks a container is read by items.py too (native:
; facts.c `holds_items`, the `items` hook), not by a pattern per target and container kind
(assignment left: (_) @left right: (_) @right) @assignment
(assignment left: (_) @left type: (type) @type) @binding.typed
(return_statement (_) @value) @return
(yield (_) @value) @yield
(type) @reference.type
(for_statement left: (_) @left right: (_) @right) @binding.iteration
(assignment left: (attribute) @left) @assignment.member
(named_expression name: (identifier) @left value: (_) @right) @assignment.expression
(with_item value: (_) @value) @binding.context
(except_clause value: (as_pattern) @value) @binding.catch
(for_in_clause left: (_) @left right: (_) @right) @binding.comprehension
(lambda parameters: (lambda_parameters) @parameters) @scope.lambda
; a lambda passed to a call: its parameters are typed by the callee's `Callable[[T], ...]`
; (bindings.py `_callback_binding`, through the `other` hook on both paths, which takes the
; call from the lambda's parents). Every lambda: a pattern rooted at the call kept a state
; over each call's whole argument list, 14% of the native walk for 563 matches in Django.
(lambda) @binding.callback
; a member read as a value: kept for the outermost member of a chain that no other fact reads
; (extract.py `member_read`, native facts_bind.c `member_read`)
(attribute) @reference.member
