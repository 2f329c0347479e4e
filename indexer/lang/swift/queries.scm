; Swift extraction queries, in the shared capture vocabulary (native/vocabulary.py): a
; class, struct, enum and extension are all class_declaration (extract.py reads the keyword).

; ---- definitions
(class_declaration name: (_) @name) @definition.class
(protocol_declaration name: (_) @name) @definition.protocol
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration) @definition.constructor
(property_declaration) @definition.property

; ---- imports
(import_declaration) @import

; ---- uses
(call_expression) @reference.call
