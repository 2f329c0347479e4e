; Ruby extraction queries, in the shared capture vocabulary (native/vocabulary.py).

; ---- definitions
(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.function

; ---- uses (require, include and extend are calls too: extract.py tells them apart)
(call method: (_) @callee) @reference.call
(super) @reference.constructor
(assignment left: (_) @left right: (_) @right) @assignment
