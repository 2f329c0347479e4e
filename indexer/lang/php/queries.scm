; PHP extraction queries, in the shared capture vocabulary (native/vocabulary.py).

; ---- definitions
(namespace_definition name: (_) @name) @package
(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.trait
(enum_declaration name: (name) @name body: (_) @body) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
(property_declaration) @definition.field

; ---- imports
(namespace_use_clause) @import

; ---- uses
(member_call_expression object: (_) @receiver name: (_) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (_) @name) @reference.call
(scoped_call_expression scope: (_) @receiver name: (_) @name) @reference.call
(function_call_expression function: (_) @callee) @reference.call
(object_creation_expression) @reference.new
(assignment_expression left: (variable_name) @left right: (_) @right) @assignment
(foreach_statement) @binding.iteration
