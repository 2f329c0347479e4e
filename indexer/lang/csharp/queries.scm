; C# extraction queries, in the shared capture vocabulary (native/vocabulary.py); the
; construct capture picks the handler in extract.py.

; ---- definitions
(namespace_declaration name: (_) @name body: (_) @body) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @package
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(struct_declaration name: (identifier) @name body: (_) @body) @definition.struct
(record_declaration name: (identifier) @name) @definition.record
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(enum_member_declaration name: (identifier) @name) @definition.enum_member
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
(field_declaration) @definition.field

; ---- imports
(using_directive) @import

; ---- uses
(invocation_expression function: (_) @callee arguments: (argument_list) @arguments) @reference.call
(object_creation_expression type: (_) @type) @reference.new
(constructor_initializer) @reference.constructor

; ---- locals
(local_declaration_statement) @binding.local
