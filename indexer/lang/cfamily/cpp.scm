; C++ only (joined after c.scm, whose patterns hold in the C++ grammar too): namespaces,
; classes, `using` aliases, constructions, `using namespace`, lambdas.

; ---- definitions
(namespace_definition body: (_) @body) @definition.namespace
(class_specifier body: (_) @body) @definition.class
(alias_declaration name: (_) @name type: (_) @type) @definition.type_alias

; ---- uses
(new_expression type: (_) @type) @reference.new
(using_declaration) @import

; ---- locals
(lambda_expression) @scope.lambda
