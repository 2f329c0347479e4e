; TypeScript-only extraction patterns (typescript and tsx grammars), added to javascript.scm.

; ---- definitions
(abstract_class_declaration name: (_) @name body: (class_body) @body) @class
(interface_declaration name: (_) @name body: (interface_body) @body) @interface
(enum_declaration name: (_) @name body: (enum_body) @body) @enum
(type_alias_declaration name: (_) @name) @type_alias
(function_signature name: (identifier) @name) @function_sig
(method_signature name: (_) @name) @method_sig
(abstract_method_signature name: (_) @name) @method_sig
(internal_module name: (_) @name body: (statement_block) @body) @namespace
(module name: (_) @name body: (statement_block) @body) @namespace
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)] @value) @field_function

; ---- typed members: receivers whose type is evident
(public_field_definition name: (_) @name) @field
(property_signature name: (_) @name type: (type_annotation) @type) @property_sig

; ---- type references (filtered in the handler: declaration names and heritage are not uses)
(type_identifier) @type_ref
(nested_type_identifier) @type_ref
