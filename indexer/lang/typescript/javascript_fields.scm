; JavaScript-only class fields (TypeScript calls them public_field_definition).
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)] @value) @field_function
(field_definition property: (_) @name) @field
