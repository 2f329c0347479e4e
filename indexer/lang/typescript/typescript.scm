; TypeScript-only extraction patterns (typescript and tsx grammars), added to javascript.scm.

; ---- definitions
(abstract_class_declaration name: (_) @name body: (class_body) @body) @definition.class
(interface_declaration name: (_) @name body: (interface_body) @body) @definition.interface
(enum_declaration name: (_) @name body: (enum_body) @body) @definition.enum
(type_alias_declaration name: (_) @name) @definition.type_alias
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(internal_module name: (_) @name body: (statement_block) @body) @definition.namespace
(module name: (_) @name body: (statement_block) @body) @definition.namespace
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)] @value) @definition.method

; ---- typed members: receivers whose type is evident
(public_field_definition name: (_) @name) @definition.field
(property_signature name: (_) @name type: (type_annotation) @type) @definition.property

; ---- type references (filtered in the handler: declaration names and heritage are not uses)
(type_identifier) @reference.type
(nested_type_identifier) @reference.type
