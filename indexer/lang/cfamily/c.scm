; C extraction queries (valid in the C++ grammar too), in the shared capture vocabulary
; (native/vocabulary.py). The construct capture picks the handler in extract.py; which form
; a node is (a prototype or a variable, a struct's own name or a typedef's) is read from the
; node there.

; ---- definitions
(function_definition body: (_) @body) @definition.function
(struct_specifier body: (_) @body) @definition.struct
(union_specifier body: (_) @body) @definition.struct
(enum_specifier body: (_) @body) @definition.enum
(type_definition) @definition.type_alias
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(declaration) @definition.variable

; ---- includes
(preproc_include path: (_) @path) @import

; ---- uses
(call_expression function: (_) @callee arguments: (argument_list) @arguments) @reference.call
(type_identifier) @reference.type
(assignment_expression left: (_) @left right: (identifier) @right) @assignment
