; JavaScript-only class fields (TypeScript calls them public_field_definition).
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)] @value) @definition.method
(field_definition property: (_) @name) @definition.field
