; Kotlin extraction queries, in the shared capture vocabulary (native/vocabulary.py). The
; grammar names few fields: extract.py reads the pieces of each node by their types.

; ---- definitions
(package_header) @package
(class_declaration) @definition.class
(object_declaration) @definition.object
(function_declaration) @definition.function
(primary_constructor) @definition.constructor
(secondary_constructor) @definition.constructor
(property_declaration) @definition.property

; ---- imports
(import_header) @import

; ---- uses
(call_expression) @reference.call
