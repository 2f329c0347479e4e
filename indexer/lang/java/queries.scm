; Java extraction queries. The capture that names the construct (@class, @call, ...)
; picks the handler in extract.py; the other captures are its parts.

; ---- definitions
(package_declaration) @package
(class_declaration name: (identifier) @name body: (_) @body) @class
(interface_declaration name: (identifier) @name body: (_) @body) @interface
(enum_declaration name: (identifier) @name body: (_) @body) @enum
(record_declaration name: (identifier) @name body: (_) @body) @record
(annotation_type_declaration name: (identifier) @name body: (_) @body) @annotation_type
(object_creation_expression type: (_) @type (class_body) @body) @anonymous
(enum_constant name: (identifier) @name) @enum_constant
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @constructor
(compact_constructor_declaration name: (identifier) @name) @compact_constructor
(annotation_type_element_declaration name: (identifier) @name) @element
(field_declaration) @field
(constant_declaration) @field

; ---- imports
(import_declaration) @import

; ---- uses
(method_invocation name: (identifier) @name arguments: (argument_list) @args) @call
(object_creation_expression type: (_) @type arguments: (argument_list) @args) @new
(explicit_constructor_invocation constructor: (_) @ctor arguments: (argument_list) @args) @ctor_call
(method_reference) @method_ref
(type_identifier) @typeref
(scoped_type_identifier) @scoped_typeref
(marker_annotation name: (_) @annotation_name) @annotation
(annotation name: (_) @annotation_name) @annotation

; ---- locals (typing of receivers inside bodies)
(local_variable_declaration type: (_) @type) @local_var
(enhanced_for_statement type: (_) @type name: (identifier) @name) @foreach
(catch_formal_parameter name: (identifier) @name) @catch
(resource type: (_) @type name: (identifier) @name) @resource
(instanceof_expression right: (_) @type name: (identifier) @name) @pattern
(lambda_expression parameters: (_) @params) @lambda
