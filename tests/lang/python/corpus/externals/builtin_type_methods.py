# about: methods of builtin types are named builtins.TYPE.METHOD when the receiver's type is known
# externals: scored
# path: app.py
def join_words(words: list[str]) -> str:
    sep = ", "
    return sep.join(words)
    #          ^ calls: builtins.str.join


def upper_keys(d: dict) -> list:
    return [k.upper() for k in d.keys()]
    #         ^ calls: builtins.str.upper
    #                            ^ calls: builtins.dict.keys


join_words(["a", "b"])
#^ calls: app.join_words
upper_keys({"a": 1})
#^ calls: app.upper_keys
