; Java extraction queries, in the shared capture vocabulary (native/vocabulary.py): the
; construct capture picks the handler in extract.py; the part captures are its pieces.

; ---- definitions
(package_declaration) @package
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(record_declaration name: (identifier) @name body: (_) @body) @definition.record
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.annotation
(object_creation_expression type: (_) @type (class_body) @body) @definition.object
(enum_constant name: (identifier) @name) @definition.enum_member
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(field_declaration) @definition.field
(constant_declaration) @definition.field

; ---- imports
(import_declaration) @import

; ---- uses
(method_invocation name: (identifier) @name arguments: (argument_list) @arguments) @reference.call
(object_creation_expression type: (_) @type arguments: (argument_list) @arguments) @reference.new
(explicit_constructor_invocation constructor: (_) @callee arguments: (argument_list) @arguments) @reference.constructor
(method_reference) @reference.method
(type_identifier) @reference.type
(scoped_type_identifier) @reference.type
(marker_annotation name: (_) @name) @reference.annotation
(annotation name: (_) @name) @reference.annotation

; ---- locals (typing of receivers inside bodies)
(local_variable_declaration type: (_) @type) @binding.local
(enhanced_for_statement type: (_) @type name: (identifier) @name) @binding.iteration
(catch_formal_parameter name: (identifier) @name) @binding.catch
(resource type: (_) @type name: (identifier) @name) @binding.context
(instanceof_expression right: (_) @type name: (identifier) @name) @binding.pattern
(lambda_expression parameters: (_) @parameters) @scope.lambda
