; Rust extraction queries. Capture names are the contract with extract.py: the
; capture on the whole node names what it is (see extract.py _DEFS and _SITES).

; ---- definitions (each match has @name; impl blocks have @type instead)
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @trait
(type_item name: (type_identifier) @name) @type_alias
(mod_item name: (identifier) @name body: (declaration_list)) @module
(const_item name: (identifier) @name) @variable
(static_item name: (identifier) @name) @variable
(impl_item type: (_) @type) @impl

; ---- module structure
(mod_item name: (identifier) @name !body) @mod_decl
(use_declaration argument: (_) @arg) @use
(extern_crate_declaration name: (identifier) @name) @extern_crate
(inner_attribute_item) @inner_attribute
(macro_definition name: (identifier) @name) @macro_def

; ---- sites inside code
(call_expression function: (_) @callee arguments: (arguments) @args) @call
(struct_expression name: (_) @callee) @struct_literal
(macro_invocation macro: (_) @callee (token_tree) @tokens) @macro
(let_declaration pattern: (_) @pattern) @let
(for_expression pattern: (identifier) @pattern value: (_) @value) @for
(let_condition
  pattern: (tuple_struct_pattern type: (identifier) @wrapper . (identifier) @pattern .)
  value: (_) @value) @if_let

; ---- types written in signatures, fields and annotations (REFERENCES)
(parameter type: (_) @typeref)
(function_item return_type: (_) @typeref)
(function_signature_item return_type: (_) @typeref)
(field_declaration type: (_) @typeref)
(ordered_field_declaration_list type: (_) @typeref)
(let_declaration type: (_) @typeref)
(const_item type: (_) @typeref)
(static_item type: (_) @typeref)
(type_item type: (_) @typeref)

