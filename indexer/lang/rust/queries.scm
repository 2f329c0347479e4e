; Rust extraction queries, in the shared capture vocabulary (native/vocabulary.py): the
; construct capture says what a match is (extract.py _KIND_OF: this module's kinds of
; definitions and sites), the part captures are its pieces.

; ---- definitions (each match has @name; impl blocks have @type instead)
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type_alias
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(const_item name: (identifier) @name) @definition.variable
(static_item name: (identifier) @name) @definition.variable
(impl_item type: (_) @type) @definition.implementation

; ---- module structure (`mod m;` is a module declared without a body: its file)
(mod_item name: (identifier) @name !body) @definition.module
(use_declaration argument: (_) @path) @import
(extern_crate_declaration name: (identifier) @name) @import.crate
(inner_attribute_item) @attribute
(macro_definition name: (identifier) @name) @definition.macro

; ---- sites inside code
(call_expression function: (_) @callee arguments: (arguments) @arguments) @reference.call
(struct_expression name: (_) @callee) @reference.new
(macro_invocation macro: (_) @callee (token_tree) @arguments) @reference.macro
(let_declaration pattern: (_) @left) @binding.local
(for_expression pattern: (identifier) @left value: (_) @right) @binding.iteration
(let_condition
  pattern: (tuple_struct_pattern type: (identifier) @type . (identifier) @name .)
  value: (_) @value) @binding.pattern

; ---- types written in signatures, fields and annotations (REFERENCES)
(parameter type: (_) @reference.type)
(function_item return_type: (_) @reference.type)
(function_signature_item return_type: (_) @reference.type)
(field_declaration type: (_) @reference.type)
(ordered_field_declaration_list type: (_) @reference.type)
(let_declaration type: (_) @reference.type)
(const_item type: (_) @reference.type)
(static_item type: (_) @reference.type)
(type_item type: (_) @reference.type)
