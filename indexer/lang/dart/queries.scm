; Dart extraction queries, in the shared capture vocabulary (native/vocabulary.py). The
; grammar is flat: a function's signature and its body are siblings, and a call is a
; `selector` holding an `argument_part` that follows its receiver's nodes in their parent.
; extract.py reads the pieces of each node by their types.

; ---- module structure
(library_name) @package
(part_of_directive) @package
(import_or_export) @import
(part_directive) @import

; ---- definitions
(class_definition) @definition.class
(mixin_declaration) @definition.mixin
(extension_declaration) @definition.extension
(enum_declaration) @definition.enum
(enum_constant) @definition.enum_member
(function_signature) @definition.function
(getter_signature) @definition.property
(setter_signature) @definition.property
(constructor_signature) @definition.constructor
(constant_constructor_signature) @definition.constructor
(factory_constructor_signature) @definition.constructor
(redirecting_factory_constructor_signature) @definition.constructor
(initialized_identifier) @definition.field
(static_final_declaration) @definition.field

; ---- local bindings
(initialized_variable_definition) @binding.local
(for_loop_parts) @binding.iteration

; ---- uses
(selector (argument_part)) @reference.call
(cascade_section) @reference.call
(new_expression) @reference.new
(const_object_expression) @reference.new
